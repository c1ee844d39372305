"""``qwen-tools serve``: the session's tools as an MCP server, over stdio or streamable HTTP.

Every registered tool is offered: the built-ins, the tools of ``tools.discoveryCommand`` and the
tools of the ``mcpServers`` it connects to (in parallel, before serving; they stay connected until
the server stops). A failing discovery or upstream server costs only its own tools (logged).
Entries that would make the server connect to itself are not started (:mod:`~qwen_tools.serve.self_guard`), and a
server on stdio stops when the process that started it exits (as when its stdin closes).

Over streamable HTTP each MCP client session gets its own session (read cache, todos, approval
state, background shells), opened with the same arguments, connecting upstream MCP servers only
when one of its calls needs them; it is closed, and its processes stopped, when the client ends
it (DELETE), its transport closes or it stays idle for ``--session-idle-timeout`` seconds.
``--max-sessions`` bounds how many are open at once (beyond it, opening one is refused with a
JSON-RPC error, HTTP 503). Over stdio there is one client: it uses the server's session.
``--stateless`` drops the ``Mcp-Session-Id``: every request stands alone (any of several
processes behind a load balancer may answer it) and gets a fresh session, closed with its
answer; ``--json-response`` answers with one JSON body instead of an SSE stream.

Exit codes: 0 the server stopped (the client closed stdin, or SIGINT/SIGTERM); 2 the ``mcp``
extra is missing or the port cannot be bound; 3 settings error.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys
from typing import TYPE_CHECKING

from qwen_tools.cli.context import (
    CliConfigError,
    open_session,
    report_config_error,
)
from qwen_tools.cli.exit_codes import EXIT_CONFIG, EXIT_OK, EXIT_USAGE
from qwen_tools.contract.tool_names import ToolNames

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from pathlib import Path

    from qwen_tools.config.config import Config
    from qwen_tools.serve.server import ToolServer
    from qwen_tools.session.session import McpMode, Session

__all__ = [
    "DEFAULT_IDLE_TIMEOUT_S",
    "DEFAULT_MAX_SESSIONS",
    "MISSING_SDK",
    "build_tool_server",
    "run_serve",
    "session_factory",
]

DEFAULT_IDLE_TIMEOUT_S = 30 * 60.0
"""A client session idle this long (seconds) is closed (``--session-idle-timeout``)."""

DEFAULT_MAX_SESSIONS = 100
"""How many client sessions may be open at once over HTTP (``--max-sessions``)."""

MISSING_SDK = (
    "qwen-tools: 'serve' needs the MCP SDK; install it with: pip install 'qwen-tools[mcp]'"
)


def _configure_logging() -> None:
    """Everything we (and the SDK, and uvicorn) log goes to stderr, never to stdout."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("qwen-tools serve: %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.WARNING)


SESSION_ONLY_TOOLS = (ToolNames.TASK, ToolNames.ENTER_PLAN_MODE, ToolNames.EXIT_PLAN_MODE)
"""Built-ins not served: subagents need the agent's model, plan mode a user in the session."""


def _announce(url: str) -> None:
    print(f"qwen-tools: serving MCP over streamable HTTP at {url}", file=sys.stderr, flush=True)


def session_factory(
    args: argparse.Namespace, mcp: McpMode = "connect", base: Config | None = None
) -> Callable[[Sequence[Path] | None], Session]:
    """Opens a served session (not entered) from the command's arguments, on a client's roots.

    Raises :class:`~qwen_tools.cli.context.CliConfigError`. The session's calls are confirmed
    by the MCP client (nobody answers prompts here), so it is not interactive; the tools that
    need a person in the loop or the agent's model (:data:`SESSION_ONLY_TOOLS`) are left out.
    ``mcp``: how it joins the ``mcpServers`` (see :class:`~qwen_tools.Session`). Given roots
    (directories already checked to lie in the server's workspace, :mod:`~qwen_tools.serve.roots`), the session's
    workspace is them; its settings stay those of ``--cwd`` (never read from a root).
    ``base``: the server's own session's config, whose settings (read once, at start, and
    guarded by :mod:`~qwen_tools.serve.self_guard`) every client session shares instead of reading the files
    again (a stateless request opens a session of its own): the sessions are opened by a
    :class:`~qwen_tools.session.template.SessionTemplate` on it.
    """
    if base is not None:
        from qwen_tools.session.template import SessionTemplate

        return SessionTemplate(base, mcp=mcp, exclude_tools=SESSION_ONLY_TOOLS).open

    def open_one(roots: Sequence[Path] | None = None) -> Session:
        if not roots:
            return open_session(args, interactive=False, mcp=mcp, exclude_tools=SESSION_ONLY_TOOLS)
        from qwen_tools.config.workspace import WorkspaceContext
        from qwen_tools.session.session import Session

        mode = getattr(args, "approval_mode", None)
        return Session(
            getattr(args, "cwd", None),
            workspace=WorkspaceContext(roots[0], roots[1:]),
            approval_mode=mode or None,
            interactive=False,
            mcp=mcp,
            exclude_tools=SESSION_ONLY_TOOLS,
        )

    return open_one


def build_tool_server(
    session: Session, open_client: Callable[[Sequence[Path] | None], Session] | None = None
) -> ToolServer:
    """A :class:`ToolServer` on an entered ``session`` (every tool: built-in, discovered, MCP).

    Must run in the event loop that will serve: the MCP connections live in it. Closing the
    session is the caller's (after :meth:`ToolServer.shutdown`). ``open_client`` gives each
    client connection its own session (HTTP).
    """
    from qwen_tools.serve.server import ToolServer

    return ToolServer(session.registry, session.config, open_session=open_client)


def _stop_when_parent_exits(parent: int) -> None:
    """A server on stdio lives no longer than its client (the process that started it)."""
    from qwen_tools.process.parent import watch_parent

    watch_parent(lambda: os.kill(os.getpid(), signal.SIGTERM), parent)


async def _serve(session: Session, args: argparse.Namespace, parent: int) -> None:
    from qwen_tools.serve.self_guard import guard_servers
    from qwen_tools.serve.transports import serve_http, serve_stdio

    if args.transport == "stdio":
        _stop_when_parent_exits(parent)
    guard_servers(
        session.config,
        http_address=None if args.transport == "stdio" else (args.host, args.port),
    )
    async with session:
        http = args.transport != "stdio"
        clients = session_factory(args, "on_demand", session.config) if http else None
        app = build_tool_server(session, clients)
        try:
            if not http:
                await serve_stdio(app)
            else:
                await serve_http(
                    app,
                    args.host,
                    args.port,
                    announce=_announce,
                    idle_timeout=getattr(args, "session_idle_timeout", DEFAULT_IDLE_TIMEOUT_S),
                    max_sessions=getattr(args, "max_sessions", DEFAULT_MAX_SESSIONS),
                    stateless=bool(getattr(args, "stateless", False)),
                    json_response=bool(getattr(args, "json_response", False)),
                )
        finally:
            await app.shutdown()


def run_serve(args: argparse.Namespace) -> int:
    """Entry point of ``qwen-tools serve``."""
    parent = os.getppid()  # noted before the slow imports: the client may not wait for them
    try:
        import mcp  # noqa: F401
    except ImportError:
        print(MISSING_SDK, file=sys.stderr)
        return EXIT_USAGE
    try:
        session = session_factory(args)(None)
    except CliConfigError as exc:
        report_config_error(exc)
        return EXIT_CONFIG
    _configure_logging()

    from qwen_tools.serve.transports import ListenError

    try:
        asyncio.run(_serve(session, args, parent))
    except ListenError as exc:
        print(f"qwen-tools: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    finally:
        session.close_sync()
    return EXIT_OK
