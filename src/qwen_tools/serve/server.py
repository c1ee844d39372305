"""The MCP server: ``tools/list`` and ``tools/call`` over a registry, through the scheduler.

:class:`ToolServer` wraps the SDK's low-level ``Server`` so our JSON schemas reach the client as
they are (only the root is normalised to ``type: object``, as :func:`to_mcp_tools` does):

``tools/list``
    Every registered tool, read from the registry at each request (tools added later show up):
    ``name``, ``title`` (the display name), ``description``, ``inputSchema`` and ``annotations``
    derived from the tool's kind (:func:`mcp_tool_annotations`). A tool whose schema cannot be
    exported (a non-object root) is left out and logged.
``tools/call``
    Each client session runs its calls through its own :class:`ToolScheduler` (``confirm=None``)
    on its own :class:`~qwen_tools.Session` (see "Sessions" below), so state (files read, per-file
    locks, todos, background shells) carries from call to call of that client only. Calls that
    need approval are refused with the reference's non-interactive message unless the approval
    mode allows them (``yolo``; ``auto-edit`` for edits). The tool's live output becomes
    ``notifications/progress`` when the client sent a progress token. The client's
    ``notifications/cancelled`` (or a closed HTTP stream, or shutdown) cancels the handler, which
    fires the call's ``AbortSignal`` and waits for the tool to wind down (a shell command's process
    group is killed) before the SDK drops the response. Every other outcome, including unknown
    tools and invalid params, is a ``CallToolResult`` (see :mod:`.content`), its strings made
    well-formed before the SDK writes them (:func:`.wire_text.well_formed_result`).

The registry may hold MCP tools proxied from upstream servers; the :class:`McpManager` that
connects them (``mcp_manager``) stays open for the server's lifetime and is closed by
:meth:`ToolServer.shutdown`.

Sessions: given ``open_session`` (a factory of unentered sessions), every MCP connection gets its
own ``Session``, opened on its first request and closed (calls aborted, background shells and
their process trees stopped) when the connection ends: on streamable HTTP's handshake protocol
that is the ``Mcp-Session-Id`` session (ended by the client's DELETE, the transport closing, or the
SDK's idle timeout); on the session-less protocol revision (2026-07-28 envelopes) every request is
its own connection, so it gets a fresh session that lives for that one request. ``tools/list``
is answered from the server's own session. A client that declares the ``roots`` capability is
asked for its roots when its session opens; its session's workspace is those inside the server's
(:mod:`.roots`; with none, its calls are refused with an error naming them). Without ``open_session`` (stdio: one client) every
call runs on the server's own session.

Since an MCP server cannot tell one conversation from the next (Claude Desktop keeps one server
for every chat), ``read_file``'s "unchanged since last read" placeholder is switched off by
default: a full read always returns the content. Prior-read enforcement for edits stays on.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server

from qwen_tools._version import __version__
from qwen_tools.contract.abort import AbortController
from qwen_tools.contract.display import McpToolProgressDisplay, ToolResultDisplay
from qwen_tools.contract.well_formed import to_well_formed
from qwen_tools.execution.call_types import ToolCallRequest
from qwen_tools.execution.scheduler import ToolCallEvent, ToolScheduler
from qwen_tools.fs.read_cache import FileReadCache
from qwen_tools.serve.content import call_result
from qwen_tools.serve.roots import RootsRefused, client_roots
from qwen_tools.serve.tool_list import ToolExports
from qwen_tools.serve.wire_text import well_formed_result

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext

    from qwen_tools.config.config import Config
    from qwen_tools.execution.call_types import CompletedToolCall
    from qwen_tools.mcp.manager import McpManager
    from qwen_tools.registry.registry import ToolRegistry
    from qwen_tools.session.session import Session

__all__ = ["PROGRESS_MESSAGE_CHARS", "ProgressSender", "ToolServer"]

logger = logging.getLogger("qwen_tools.serve")

ProgressSender = Callable[[float, float | None, str | None], Awaitable[None]]
"""Sends one progress notification: ``(progress, total, message)``."""

PROGRESS_MESSAGE_CHARS = 2000
"""Live output longer than this is sent as its tail (from a line start when there is one)."""

CANCEL_REASON = "The MCP client cancelled the call."

_CLIENT_KEY = "qwen_tools.session"
"""Where a connection's ``state`` keeps its session (a future of ``(Session, ToolScheduler)``)."""


def _tail(text: str, limit: int = PROGRESS_MESSAGE_CHARS) -> str:
    if len(text) <= limit:
        return text
    tail = text[-limit:]
    newline = tail.find("\n")
    return tail[newline + 1 :] if 0 <= newline < len(tail) - 1 else tail


class _ProgressRelay:
    """Forwards live output to the client, one notification at a time, latest value wins.

    ``push`` may be called from any thread; ``run`` sends from the server's event loop, so a slow
    client never blocks the tool (intermediate outputs are skipped, never queued). The sending
    task starts with the first output (most calls have none) and ends with :meth:`close`.
    """

    def __init__(self, send: ProgressSender) -> None:
        self._send = send
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        self._latest: tuple[float | None, float | None, str | None] | None = None
        self._count = 0
        self._task: asyncio.Task[None] | None = None
        self._closed = False

    def push(self, output: ToolResultDisplay) -> None:
        if isinstance(output, str):
            item: tuple[float | None, float | None, str | None] = (None, None, _tail(output))
        elif isinstance(output, McpToolProgressDisplay):
            item = (output.progress, output.total, output.message)
        else:
            return
        if item[2] is not None:
            item = (item[0], item[1], to_well_formed(item[2]))  # pydantic cannot write others
        self._loop.call_soon_threadsafe(self._set, item)

    def _set(self, item: tuple[float | None, float | None, str | None]) -> None:
        if self._closed:
            return
        self._latest = item
        self._wake.set()
        if self._task is None:
            self._task = self._loop.create_task(self.run())

    def close(self) -> None:
        """Stop sending (an output not sent yet is dropped)."""
        self._closed = True
        if self._task is not None:
            self._task.cancel()

    async def run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            item, self._latest = self._latest, None
            if item is None:
                continue
            progress, total, message = item
            self._count += 1
            try:
                await self._send(self._count if progress is None else progress, total, message)
            except Exception as exc:  # the client went away: the call itself goes on
                logger.debug("progress notification not sent: %s", exc)


class _NoUnchangedReads(FileReadCache):
    """A read cache that enforces prior reads but never answers "unchanged since last read"."""

    def is_unchanged_since_full_read(
        self, path: str, stat_result: os.stat_result | None = None
    ) -> bool:
        """Always ``False``: the client may be in another conversation than the last read."""
        return False


class ToolServer:
    """A :class:`ToolRegistry` served over MCP; :attr:`server` is the SDK's low-level server."""

    def __init__(
        self,
        registry: ToolRegistry,
        config: Config,
        *,
        name: str = "qwen-tools",
        version: str = __version__,
        cancel_grace_s: float = 30.0,
        unchanged_reads: bool = False,
        mcp_manager: McpManager | None = None,
        open_session: Callable[[Sequence[Path] | None], Session] | None = None,
    ) -> None:
        """Serve ``registry`` in the session ``config``.

        ``cancel_grace_s`` bounds how long a cancelled call may take to wind down before the
        handler gives up waiting for it. ``unchanged_reads=True`` keeps ``read_file``'s
        "unchanged since last read" answer (only safe when one client runs one conversation).
        ``mcp_manager`` (the upstream servers of the registry's MCP tools) is closed on shutdown.
        ``open_session`` gives each client connection its own session (module docstring), on
        the client's accepted roots (``None``: the server's workspace).
        """
        self.registry = registry
        self.config = config
        self.mcp_manager = mcp_manager
        self.unchanged_reads = unchanged_reads
        self._guard_reads(config)
        self._open_session = open_session
        self.client_sessions: set[Session] = set()
        """The client sessions open right now."""
        self.cancel_grace_s = cancel_grace_s
        self.scheduler = ToolScheduler(registry, config, confirm=None)
        self._exports = ToolExports(registry)
        self.scheduler.subscribe(self._on_event)
        self._ids = itertools.count(1)
        self._relays: dict[str, _ProgressRelay] = {}
        self._running: dict[str, tuple[AbortController, asyncio.Future[Any]]] = {}
        self.server: Server[Any] = Server(
            name,
            version=version,
            title="qwen-tools",
            description="Qwen Code's tools: files, search and shell on one workspace.",
            instructions=self.instructions(),
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
            get_tool_input_schema=self.input_schema,
        )

    def _guard_reads(self, config: Config) -> None:
        cache = config.session.read_cache
        if not self.unchanged_reads and type(cache) is FileReadCache:
            config.session.read_cache = _NoUnchangedReads(enabled=cache.enabled)

    # -- client sessions ----------------------------------------------------------------

    async def _enter_client(self, peer: Any = None) -> tuple[Session, ToolScheduler]:
        """Open a client's session; ``peer`` (its SDK server session) is asked for its roots."""
        assert self._open_session is not None
        roots = None
        if peer is not None:
            roots = await client_roots(peer, lambda: self.config.workspace.directories)
        session = self._open_session(roots)
        self._guard_reads(session.config)
        await session.__aenter__()
        self.client_sessions.add(session)
        scheduler = ToolScheduler(session.registry, session.config, confirm=None)
        scheduler.subscribe(self._on_event)
        return session, scheduler

    async def _leave_client(self, entry: asyncio.Future[tuple[Session, ToolScheduler]]) -> None:
        with anyio.CancelScope(shield=True):
            if not entry.done():
                await asyncio.wait({entry})
            if entry.cancelled() or entry.exception() is not None:
                return
            session, _ = entry.result()
            self.client_sessions.discard(session)
            await session.aclose()

    async def client_session(self, ctx: Any) -> tuple[Session | None, ToolScheduler]:
        """The session and scheduler of the connection ``ctx`` (a request context) belongs to.

        Opened on the connection's first request; closed by the connection's exit stack.
        Raises :class:`~.roots.RootsRefused` (at every call) when the client's roots are refused.
        """
        # the SDK keeps the Connection (with per-connection state and teardown) private on
        # ctx.session; without one, the call runs on the server's own session
        connection = getattr(getattr(ctx, "session", None), "_connection", None)
        if self._open_session is None or connection is None:
            return None, self.scheduler
        entry = connection.state.get(_CLIENT_KEY)
        if entry is None:
            entry = asyncio.ensure_future(self._enter_client(ctx.session))
            connection.state[_CLIENT_KEY] = entry
            connection.exit_stack.push_async_callback(self._leave_client, entry)
        session, scheduler = await asyncio.shield(entry)
        return session, scheduler

    # -- tools/list ---------------------------------------------------------------------

    def instructions(self) -> str:
        """What the server tells the client about the workspace and the approval mode."""
        dirs = ", ".join(str(d) for d in self.config.workspace.directories)
        return (
            f"Qwen Code's tools working on the workspace {dirs} "
            f"(approval mode: {self.config.approval_mode.value}). Paths must lie inside it. "
            "Calls that need the user's approval in this mode are refused."
        )

    def tools(self) -> list[types.Tool]:
        """The ``tools/list`` entries, sorted by name (:class:`.tool_list.ToolExports`)."""
        return self._exports.tools()

    def input_schema(self, name: str) -> dict[str, Any] | None:
        """The exported input schema of ``name`` (``None`` for an unknown tool)."""
        return self._exports.input_schema(name)

    async def _list_tools(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=self.tools())

    # -- tools/call ---------------------------------------------------------------------

    def _on_event(self, event: ToolCallEvent) -> None:
        if event.output is None:
            return
        relay = self._relays.get(event.request.call_id)
        if relay is not None:
            relay.push(event.output)

    async def call(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        progress: ProgressSender | None = None,
        scheduler: ToolScheduler | None = None,
    ) -> CompletedToolCall:
        """Run one call through the scheduler.

        Cancelling the awaiting task fires the call's ``AbortSignal``; the cancellation is
        re-raised once the tool has wound down (or after ``cancel_grace_s``). ``scheduler``
        defaults to the server's own session's.
        """
        call_id = f"mcp_{next(self._ids)}"
        request = ToolCallRequest(name, dict(arguments or {}), call_id)
        controller = AbortController()
        relay = _ProgressRelay(progress) if progress is not None else None
        if relay is not None:
            self._relays[call_id] = relay
        scheduler = scheduler or self.scheduler
        task = asyncio.ensure_future(scheduler.schedule([request], controller.signal))
        self._running[call_id] = (controller, task)
        try:
            await asyncio.shield(task)
        except BaseException:
            controller.abort(CANCEL_REASON)
            await self._wind_down(task)
            raise
        finally:
            if relay is not None:
                relay.close()
            self._relays.pop(call_id, None)
            self._running.pop(call_id, None)
        (completed,) = task.result()
        return completed

    async def _wind_down(self, task: asyncio.Future[Any]) -> None:
        with anyio.CancelScope(shield=True), anyio.move_on_after(self.cancel_grace_s):
            await asyncio.wait({task})
        if not task.done():
            logger.warning("a cancelled call did not stop within %ss", self.cancel_grace_s)
            task.cancel()

    async def _call_tool(
        self, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        session = ctx.session

        async def progress(value: float, total: float | None, message: str | None) -> None:
            # A no-op unless the client asked for progress (a token, or an in-process callback).
            await session.report_progress(value, total, message)

        try:
            client, scheduler = await self.client_session(ctx)
        except RootsRefused as exc:
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=str(exc))], is_error=True
            )
        if client is not None:
            await client.ensure_tool(params.name)
        completed = await self.call(
            params.name, params.arguments, progress=progress, scheduler=scheduler
        )
        return well_formed_result(call_result(completed))

    # -- shutdown -----------------------------------------------------------------------

    async def abort_running(self) -> None:
        """Abort every call in flight and wait for them to wind down."""
        running = list(self._running.values())
        for controller, _ in running:
            controller.abort(CANCEL_REASON)
        for _, task in running:
            await self._wind_down(task)

    async def shutdown(self) -> None:
        """Abort the calls in flight, stop background shells, disconnect upstream MCP servers.

        Safe to call more than once.
        """
        await self.abort_running()
        with anyio.CancelScope(shield=True):
            for client in list(self.client_sessions):
                self.client_sessions.discard(client)
                await client.aclose()
            await self.config.session.background_shells.stop_all()
            if self.mcp_manager is not None:
                await self.mcp_manager.aclose()
