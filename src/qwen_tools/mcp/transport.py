"""Transports built from an ``mcpServers`` entry, in Qwen Code's order of preference.

``httpUrl`` → Streamable HTTP, else ``url`` → SSE, else ``command`` → stdio (``args``, ``cwd``,
and ``env`` = our environment plus the entry's ``env``, the entry winning). Remote transports
send the entry's ``headers`` and, when logged in, OAuth tokens (:mod:`.oauth`). A stdio server's stderr goes to a temporary file whose tail
explains a failed start.

Every transport's read stream is watched: when it ends (the process exited, the connection
dropped) ``on_closed`` is called, so the connection learns of the death before the next call;
an item that is not a message (a line of garbage on a server's stdout) goes to ``on_invalid``.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, TextIO

from qwen_tools.config.tool_settings import McpServerConfig

if TYPE_CHECKING:
    from mcp.client._transport import ReadStream, TransportStreams
    from mcp.shared.message import SessionMessage

STDERR_TAIL_BYTES = 4096


class McpConfigError(Exception):
    """An ``mcpServers`` entry that cannot be started as configured (e.g. a missing ``cwd``)."""


class _WatchedReadStream:
    """A read stream that calls ``on_closed`` once, when the stream it wraps ends, and
    ``on_invalid`` for every item that is an error instead of a message."""

    def __init__(
        self,
        inner: ReadStream[SessionMessage | Exception],
        on_closed: Callable[[], None],
        on_invalid: Callable[[Exception], None] | None = None,
    ) -> None:
        self._inner = inner
        self._on_closed = on_closed
        self._on_invalid = on_invalid
        self._fired = False

    def _seen(self, item: SessionMessage | Exception) -> SessionMessage | Exception:
        if isinstance(item, Exception) and self._on_invalid is not None:
            self._on_invalid(item)
        return item

    def _closed(self) -> None:
        if not self._fired:
            self._fired = True
            self._on_closed()

    @property
    def last_context(self) -> Any:
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> SessionMessage | Exception:
        try:
            return self._seen(await self._inner.receive())
        except Exception:
            self._closed()
            raise

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> _WatchedReadStream:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return self._seen(await self._inner.__anext__())
        except (StopAsyncIteration, Exception):
            self._closed()
            raise

    async def __aenter__(self) -> _WatchedReadStream:
        await self._inner.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        self._closed()
        return await self._inner.__aexit__(exc_type, exc_val, exc_tb)


class StderrLog:
    """A temporary file receiving a stdio server's stderr; keeps the tail readable."""

    def __init__(self) -> None:
        self.file: TextIO = tempfile.TemporaryFile(  # noqa: SIM115 - closed by close()
            "w+", encoding="utf-8", errors="replace"
        )

    def tail(self, limit: int = STDERR_TAIL_BYTES) -> str:
        """The last ``limit`` bytes the server wrote, stripped."""
        try:
            fd = self.file.fileno()
            size = os.fstat(fd).st_size
            data = os.pread(fd, limit, max(0, size - limit))
        except (OSError, ValueError):
            return ""
        return data.decode("utf-8", "replace").strip()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.file.close()


def stdio_cwd(name: str, config: McpServerConfig, default: Path) -> Path:
    """The working directory of a stdio server; raises :class:`McpConfigError` if missing."""
    if config.cwd is None:
        return default
    cwd = Path(os.path.expanduser(config.cwd))
    if not cwd.is_absolute():
        cwd = default / cwd
    if not cwd.is_dir():
        raise McpConfigError(f"MCP server '{name}': configured cwd does not exist: {config.cwd}")
    return cwd


@contextlib.asynccontextmanager
async def _http_transport(
    url: str, headers: dict[str, str], auth: Any = None
) -> AsyncIterator[TransportStreams]:
    from mcp.client.streamable_http import streamable_http_client

    from qwen_tools.mcp.http_client import mcp_http_client

    async with (
        mcp_http_client(headers=dict(headers) or None, auth=auth) as http,
        streamable_http_client(url, http_client=http) as streams,
    ):
        yield streams


@contextlib.asynccontextmanager
async def _sse_transport(
    url: str, headers: dict[str, str], read_timeout: float, auth: Any = None
) -> AsyncIterator[TransportStreams]:
    from mcp.client.sse import sse_client

    from qwen_tools.mcp.http_client import mcp_http_client

    async with sse_client(
        url,
        headers=dict(headers) or None,
        sse_read_timeout=read_timeout,
        auth=auth,
        httpx_client_factory=mcp_http_client,
    ) as streams:
        yield streams


@contextlib.asynccontextmanager
async def open_transport(
    name: str,
    config: McpServerConfig,
    *,
    default_cwd: Path,
    stderr: StderrLog | None,
    on_closed: Callable[[], None],
    on_invalid: Callable[[Exception], None] | None = None,
    read_timeout: float = 3600.0,
    auth: Any = None,
) -> AsyncIterator[TransportStreams]:
    """Connect to server ``name``; yields the (watched) read stream and the write stream.

    A remote server gets ``auth`` (an ``httpx.Auth``), else its stored OAuth tokens if any
    (:func:`~qwen_tools.mcp.oauth.session_auth`)."""
    if (config.http_url or config.url) and auth is None:
        from qwen_tools.mcp.oauth import session_auth

        auth = session_auth(name, config)
    if config.http_url:
        transport = _http_transport(config.http_url, config.headers, auth)
    elif config.url:
        transport = _sse_transport(config.url, config.headers, read_timeout, auth)
    elif config.command:
        from mcp.client.stdio import StdioServerParameters, stdio_client

        params = StdioServerParameters(
            command=config.command,
            args=list(config.args),
            env={**os.environ, **config.env},
            cwd=stdio_cwd(name, config, default_cwd),
        )
        log = stderr.file if stderr is not None else sys.stderr
        transport = stdio_client(params, errlog=log)
    else:
        raise McpConfigError(
            "Invalid configuration: missing httpUrl (for Streamable HTTP), url (for SSE), "
            "and command (for stdio)."
        )
    async with transport as (read_stream, write_stream):
        yield _WatchedReadStream(read_stream, on_closed, on_invalid), write_stream
