"""Serving a :class:`ToolServer` over stdio or streamable HTTP, and stopping cleanly.

stdio
    The SDK's stdio transport. While it serves, file descriptor 1 points at stderr and 0 at
    ``/dev/null``, so only protocol messages reach stdout (tools' children included); logging
    goes to stderr. The server ends when the client closes stdin. On SIGINT/SIGTERM/SIGHUP the
    calls in flight are aborted (their commands' whole process trees killed), background shells
    are stopped, every process below ours is killed and the process exits at once (the SDK's
    stdin reader cannot be interrupted). Messages the SDK's JSON parser refuses (lone surrogate
    escapes, huge integers, deep nesting) are read again (:class:`.wire_text.RepairingReadStream`)
    instead of being dropped unanswered.
streamable HTTP
    Bound to ``127.0.0.1`` by default at ``/mcp``, with DNS-rebinding protection: the ``Host``
    header must be ``127.0.0.1:<port>``, ``localhost:<port>`` or ``[::1]:<port>`` (plus the bound
    host, when another one is given) and a browser ``Origin`` must be ``http://`` one of those;
    anything else gets 421/403. The socket is bound before serving, so a taken port is reported at
    once and ``--port 0`` picks a free one (the URL is announced on stderr). On SIGINT/SIGTERM/SIGHUP
    the calls in flight are aborted first, then uvicorn shuts down gracefully. Request bodies the
    SDK's parser would refuse are read again first (:class:`.wire_text.RepairingHttpApp`).
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import os
import signal
import socket
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from qwen_tools.process.supervisor import end_all

if TYPE_CHECKING:
    from mcp.server.transport_security import TransportSecuritySettings

    from qwen_tools.serve.server import ToolServer

__all__ = [
    "MCP_PATH",
    "ListenError",
    "bind_socket",
    "serve_http",
    "serve_stdio",
    "transport_security",
]

logger = logging.getLogger("qwen_tools.serve")

MCP_PATH = "/mcp"
"""Where the streamable HTTP endpoint lives."""

_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class ListenError(OSError):
    """The HTTP server could not listen on the requested address."""


@contextmanager
def _on_stop_signals(handler: Callable[[], None]) -> Iterator[None]:
    """Run ``handler`` on the event loop when SIGINT, SIGTERM or SIGHUP arrives."""
    loop = asyncio.get_running_loop()
    installed: list[signal.Signals] = []
    previous = {sig: signal.getsignal(sig) for sig in _STOP_SIGNALS}
    for sig in _STOP_SIGNALS:
        try:
            loop.add_signal_handler(sig, handler)
            installed.append(sig)
        except (NotImplementedError, RuntimeError, ValueError):  # not the main thread
            pass
    try:
        yield
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)
            signal.signal(sig, previous[sig])


# -- stdio ------------------------------------------------------------------------------


async def serve_stdio(app: ToolServer) -> None:
    """Serve ``app`` on stdin/stdout until the client closes stdin (or a stop signal)."""
    from mcp.server.stdio import stdio_server

    from qwen_tools.serve.wire_text import RepairingReadStream

    stopping: list[asyncio.Task[None]] = []

    async def stop_now() -> None:
        await app.shutdown()
        end_all(descendants=True)  # os._exit skips the CLI's own clean-up
        logging.shutdown()
        sys.stderr.flush()
        os._exit(0)

    def on_signal() -> None:
        if not stopping:
            stopping.append(asyncio.ensure_future(stop_now()))

    with _on_stop_signals(on_signal):
        try:
            async with stdio_server() as (read_stream, write_stream):
                options = app.server.create_initialization_options()
                repaired = RepairingReadStream(read_stream)  # see .wire_text
                await app.server.run(repaired, write_stream, options)
        finally:
            await app.shutdown()


# -- streamable HTTP --------------------------------------------------------------------


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _host_label(host: str) -> str:
    """``::1`` → ``[::1]`` (how a ``Host`` header spells an IPv6 address)."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def transport_security(host: str, port: int) -> TransportSecuritySettings:
    """DNS-rebinding protection for a server bound to ``host:port``."""
    from mcp.server.transport_security import TransportSecuritySettings

    names = ["127.0.0.1", "localhost", "[::1]"]
    label = _host_label(host)
    if label not in names and host not in ("0.0.0.0", "::"):
        names.append(label)
    hosts = [f"{name}:{port}" for name in names]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=hosts,
        allowed_origins=[f"http://{h}" for h in hosts],
    )


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port``; raises :class:`ListenError` (e.g. port taken)."""
    name = host.strip("[]")
    family = socket.AF_INET6 if ":" in name else socket.AF_INET
    try:
        infos = socket.getaddrinfo(name, port, family, socket.SOCK_STREAM)
        family, kind, proto, _, address = infos[0]
        sock = socket.socket(family, kind, proto)
    except OSError as exc:
        raise ListenError(exc.errno, exc.strerror or str(exc)) from exc
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise ListenError(exc.errno, exc.strerror or str(exc)) from exc
    return sock


async def serve_http(
    app: ToolServer,
    host: str = "127.0.0.1",
    port: int = 8000,
    *,
    announce: Callable[[str], None] | None = None,
    idle_timeout: float | None = 30 * 60.0,
    max_sessions: int | None = 100,
    stateless: bool = False,
    json_response: bool = False,
) -> None:
    """Serve ``app`` over streamable HTTP at ``http://host:port/mcp`` until a stop signal.

    ``announce`` receives the endpoint URL once the socket listens. A client session idle for
    ``idle_timeout`` seconds is closed; at most ``max_sessions`` are open at once (the SDK
    refuses one more with a JSON-RPC error, HTTP 503); ``None`` lifts either bound.
    ``stateless``: no ``Mcp-Session-Id``, every request is served on its own (so by any of several
    processes behind a load balancer) and gets a fresh session; ``json_response``: answers are
    one JSON body instead of an SSE stream (no progress notifications then).
    """
    import uvicorn

    from qwen_tools.serve.wire_text import RepairingHttpApp

    class _Server(uvicorn.Server):
        @contextmanager
        def capture_signals(self) -> Iterator[None]:
            # Signals are ours (below): uvicorn would re-raise them after shutting down.
            yield

    sock = bind_socket(host, port)
    try:
        bound_port = int(sock.getsockname()[1])
        if not _is_loopback(host):
            logger.warning(
                "serving on %s: the tools are reachable from the network, without authentication",
                host,
            )
        starlette_app = app.server.streamable_http_app(
            streamable_http_path=MCP_PATH,
            host=host,
            transport_security=transport_security(host, bound_port),
            session_idle_timeout=idle_timeout,
            max_sessions=max_sessions,
            stateless_http=stateless,
            json_response=json_response,
        )
        config = uvicorn.Config(
            RepairingHttpApp(starlette_app),  # see .wire_text
            log_config=None,
            access_log=False,
            lifespan="on",
            timeout_graceful_shutdown=5,
        )
        server = _Server(config)
        stopping: list[asyncio.Task[None]] = []

        async def stop() -> None:
            await app.abort_running()
            server.should_exit = True

        def on_signal() -> None:
            if stopping:
                server.force_exit = True
            else:
                stopping.append(asyncio.ensure_future(stop()))

        if announce is not None:
            announce(f"http://{_host_label(host)}:{bound_port}{MCP_PATH}")
        with _on_stop_signals(on_signal):
            try:
                await server.serve(sockets=[sock])
            finally:
                await app.shutdown()
    finally:
        sock.close()
