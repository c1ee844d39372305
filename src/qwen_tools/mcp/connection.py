"""One MCP server: its session task, status, discovered tools, and the calls made through it.

Each connection attempt runs in its own long-lived task that enters the SDK client (transport,
then session) and leaves it again, so every anyio cancel scope is entered and exited in the
same task; callers only send requests through the session. The attempt's discovery (handshake
and listing) has a deadline — the discovery cap — after which the server costs nothing more
than a ``disconnected`` status with its reason.

A server that dies (its read stream ends) is marked ``disconnected`` at once; the next call
reconnects it on demand (:meth:`McpConnection.reconnect`). A server that sends something that
is not a JSON-RPC message (garbage on stdout) gets one warning line for the whole connection's
life; the rest go to the debug log (the SDK's tracebacks too, see :mod:`.sdk_logs`).

What a server lists is read in :mod:`.listing`; failures are worded in :mod:`.failures`.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Awaitable, Callable
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import anyio

from qwen_tools.config.tool_settings import McpServerConfig
from qwen_tools.mcp.admission import discovery_timeout_ms
from qwen_tools.mcp.failures import (
    ConnectionLost,
    describe_error,
    failure_text,
    is_connection_error,
    short_error,
)
from qwen_tools.mcp.listing import McpToolInfo, list_tools
from qwen_tools.mcp.sdk_logs import quiet_sdk_tracebacks
from qwen_tools.mcp.transport import McpConfigError, StderrLog, open_transport

_T = TypeVar("_T")

if TYPE_CHECKING:
    from mcp.client import Client, ClientRequestContext
    from mcp.shared.dispatcher import ProgressFnT
    from mcp_types import ListRootsResult

logger = logging.getLogger("qwen_tools.mcp")


class McpServerStatus(StrEnum):
    """Where a server's connection stands."""

    CONNECTING = "connecting"
    CONNECTED = "connected"
    DISCONNECTED = "disconnected"


class _Attempt:
    """One connection attempt: its task, and the events it reports through."""

    def __init__(self) -> None:
        self.ready = asyncio.Event()
        self.stop = anyio.Event()
        self.client: Client | None = None
        self.dead = False
        self.timed_out = False
        self.task: asyncio.Task[None] | None = None


class McpConnection:
    """The connection to one configured server."""

    def __init__(
        self,
        name: str,
        config: McpServerConfig,
        *,
        default_cwd: Path,
        roots: Callable[[], list[Path]],
        discovery_timeout: float | None = None,
    ) -> None:
        self.name = name
        self.config = config
        self.status = McpServerStatus.DISCONNECTED
        self.error: str | None = None
        """Why the server is (or last went) disconnected."""
        self.tools: tuple[McpToolInfo, ...] = ()
        self.instructions: str | None = None
        self.generation = 0
        """Increases with every successful connection."""
        self.discovery_timeout = (
            discovery_timeout
            if discovery_timeout is not None
            else discovery_timeout_ms(config) / 1000
        )
        self._default_cwd = default_cwd
        self._roots = roots
        self._attempt: _Attempt | None = None
        self._lock = asyncio.Lock()
        self._closed = False
        self._invalid_reported = False

    def __repr__(self) -> str:
        return f"McpConnection({self.name!r}, status={self.status.value!r})"

    @property
    def connected(self) -> bool:
        """Whether calls can be sent now."""
        attempt = self._attempt
        return (
            self.status is McpServerStatus.CONNECTED
            and attempt is not None
            and attempt.client is not None
            and not attempt.dead
        )

    # -- lifecycle --------------------------------------------------------------------------

    async def connect(self) -> bool:
        """Connect unless connected: one attempt, awaited until it succeeds or fails.

        Never raises; the outcome is in :attr:`status` and :attr:`error`.
        """
        async with self._lock:
            if self.connected:
                return True
            await self._stop_attempt()
            return await self._connect_locked()

    async def reconnect(self, seen_generation: int | None = None) -> bool:
        """Reconnect now; with ``seen_generation``, only if nobody reconnected since then."""
        async with self._lock:
            if (
                seen_generation is not None
                and self.connected
                and seen_generation != self.generation
            ):
                return True
            await self._stop_attempt()
            return await self._connect_locked()

    async def _connect_locked(self) -> bool:
        if self._closed:
            return False
        attempt = _Attempt()
        self._attempt = attempt
        self.status = McpServerStatus.CONNECTING
        attempt.task = asyncio.create_task(self._run(attempt), name=f"mcp-server-{self.name}")
        try:
            await asyncio.wait_for(attempt.ready.wait(), self.discovery_timeout)
        except TimeoutError:
            # The attempt's own deadline tears the session down in the background.
            attempt.timed_out = attempt.dead = True
            attempt.stop.set()
            self._fail(attempt, self._timeout_reason())
        return self.connected and self._attempt is attempt

    async def _stop_attempt(self) -> None:
        attempt, self._attempt = self._attempt, None
        if attempt is None:
            return
        attempt.stop.set()
        if attempt.task is not None:
            await asyncio.shield(attempt.task)

    async def aclose(self) -> None:
        """Disconnect and wait for the session task to end (idempotent)."""
        self._closed = True
        async with self._lock:
            await self._stop_attempt()
        self.status = McpServerStatus.DISCONNECTED

    def _timeout_reason(self) -> str:
        ms = round(self.discovery_timeout * 1000)
        return f"MCP server '{self.name}' discovery timed out after {ms}ms"

    def _fail(self, attempt: _Attempt, reason: str | None) -> None:
        if self._attempt is not attempt:
            return
        if self.status is not McpServerStatus.DISCONNECTED and reason is not None:
            logger.warning("%s", failure_text(self.name, reason))
        self.status = McpServerStatus.DISCONNECTED
        if reason is not None:
            self.error = reason

    # -- the session task -------------------------------------------------------------------

    def _on_stream_closed(self, attempt: _Attempt) -> None:
        if not attempt.stop.is_set():
            attempt.dead = True
            attempt.stop.set()
            # the server already counts as disconnected: give the reason now (the session
            # task refines it, with the stderr tail, once the transport is torn down)
            if self._attempt is attempt and self.error is None:
                self.error = "Connection closed"

    def _on_invalid_message(self, exc: Exception) -> None:
        where = "on stdout" if self.config.transport == "stdio" else "from the server"
        line = f"MCP server '{self.name}': invalid JSON-RPC message {where} ({short_error(exc)})"
        if self._invalid_reported:
            logger.debug("%s", line)
            return
        self._invalid_reported = True
        logger.warning("%s", line)

    async def _list_roots(self, context: ClientRequestContext) -> ListRootsResult:
        from mcp_types import ListRootsResult, Root

        roots = [Root(uri=d.as_uri(), name=d.name) for d in self._roots()]  # type: ignore[arg-type]
        return ListRootsResult(roots=roots)

    async def _run(self, attempt: _Attempt) -> None:
        stderr = StderrLog() if self.config.transport == "stdio" else None
        reason: str | None = None
        try:
            deadline = anyio.current_time() + self.discovery_timeout
            with anyio.CancelScope(deadline=deadline) as scope:
                await self._session(attempt, scope, stderr)
            if scope.cancelled_caught and not attempt.stop.is_set():
                attempt.timed_out = True
        except McpConfigError as exc:
            reason = str(exc)
        except ImportError:
            reason = "The 'mcp' package is not installed (pip install 'qwen-tools[mcp]')."
        except Exception as exc:
            reason = describe_error(exc)
        if attempt.timed_out:
            reason = self._timeout_reason()
        elif reason is None and attempt.dead:
            reason = "Connection closed"
        if reason is not None and stderr is not None and not attempt.timed_out:
            last = stderr.tail().splitlines()[-1:]
            if last:
                reason = f"{reason} (stderr: {last[0][:300]})"
        if stderr is not None:
            stderr.close()
        attempt.client = None
        attempt.dead = True
        self._fail(attempt, reason)
        attempt.ready.set()

    async def _session(
        self, attempt: _Attempt, scope: anyio.CancelScope, stderr: StderrLog | None
    ) -> None:
        from mcp.client import Client
        from mcp_types import Implementation

        quiet_sdk_tracebacks()
        transport = open_transport(
            self.name,
            self.config,
            default_cwd=self._default_cwd,
            stderr=stderr,
            on_closed=lambda: self._on_stream_closed(attempt),
            on_invalid=self._on_invalid_message,
            # an SSE stream may stay silent for as long as a call may last
            read_timeout=max(3600.0, (self.config.timeout or 600_000) / 1000 + 60),
        )
        client = Client(
            transport,
            mode="legacy",
            cache=None,
            list_roots_callback=self._list_roots,
            client_info=Implementation(name=f"qwen-cli-mcp-client-{self.name}", version="0.0.1"),
        )
        async with client:
            tools = await list_tools(client, self.name)
            scope.deadline = math.inf
            if attempt.stop.is_set():
                return
            self.tools = tools
            self.instructions = client.instructions
            self.generation += 1
            attempt.client = client
            self.status = McpServerStatus.CONNECTED
            self.error = None
            attempt.ready.set()
            await attempt.stop.wait()
            attempt.client = None

    # -- calls ------------------------------------------------------------------------------

    async def call_tool(
        self,
        tool: str,
        arguments: dict[str, Any],
        *,
        timeout: float | None,
        progress: ProgressFnT | None = None,
    ) -> Any:
        """Call ``tool``; raises :class:`ConnectionLost` when the connection is (or goes) down."""
        attempt = self._attempt
        client = attempt.client if attempt is not None and not attempt.dead else None
        if client is None:
            raise ConnectionLost(f"MCP server '{self.name}' is {self.status.value}", sent=False)
        try:
            return await client.call_tool(
                tool, arguments, read_timeout_seconds=timeout, progress_callback=progress
            )
        except Exception as exc:
            if is_connection_error(exc):
                raise ConnectionLost(describe_error(exc), sent=True) from exc
            raise

    async def request(self, send: Callable[[Client], Awaitable[_T]]) -> _T:
        """Send another request (``resources/read``...) through the live session; raises
        :class:`ConnectionLost` when the connection is (or goes) down."""
        attempt = self._attempt
        client = attempt.client if attempt is not None and not attempt.dead else None
        if client is None:
            raise ConnectionLost(f"MCP server '{self.name}' is {self.status.value}", sent=False)
        try:
            return await send(client)
        except Exception as exc:
            if is_connection_error(exc):
                raise ConnectionLost(describe_error(exc), sent=True) from exc
            raise
