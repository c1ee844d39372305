"""``qwen-tools serve``: the session's tools as an MCP server, over stdio or streamable HTTP.

Every registered tool is offered: the built-ins, the tools of ``tools.discoveryCommand`` and the
tools of the ``mcpServers`` it connects to (in parallel, before serving; they stay connected until
the server stops). A failing discovery or upstream server costs only its own tools (logged).
Entries that would make the server connect to itself are not started (:mod:`.self_guard`), and a
server on stdio stops when the process that started it exits (as when its stdin closes).

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

from .._cli.context import CliConfigError, load_config, report_config_error
from .._cli.main import EXIT_CONFIG, EXIT_OK, EXIT_USAGE

if TYPE_CHECKING:
    from .._config.config import Config
    from .server import ToolServer

__all__ = ["MISSING_SDK", "build_tool_server", "run_serve"]

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


SESSION_ONLY_TOOLS = ("task", "enter_plan_mode", "exit_plan_mode")
"""Built-ins not served: subagents need the agent's model, plan mode a user in the session."""


def _announce(url: str) -> None:
    print(f"qwen-tools: serving MCP over streamable HTTP at {url}", file=sys.stderr, flush=True)


async def build_tool_server(config: Config) -> ToolServer:
    """A :class:`ToolServer` with every tool: built-in, discovered, and from ``mcpServers``.

    Must run in the event loop that will serve: the MCP connections live in it.
    """
    from .._registry.defaults import build_registry_async
    from .server import ToolServer

    registry = await build_registry_async(config)
    for name in SESSION_ONLY_TOOLS:
        # they need a person in the loop or the agent's model, neither of which a server has
        registry.unregister_tool(name)
    if not config.settings.mcp_servers:
        return ToolServer(registry, config)
    from .._mcp.manager import McpManager
    from .._mcp.registration import register_mcp_tools

    manager = McpManager(config)
    try:
        await register_mcp_tools(registry, manager)
    except BaseException:
        await manager.aclose()
        raise
    return ToolServer(registry, config, mcp_manager=manager)


def _stop_when_parent_exits(parent: int) -> None:
    """A server on stdio lives no longer than its client (the process that started it)."""
    from .._process.parent import watch_parent

    watch_parent(lambda: os.kill(os.getpid(), signal.SIGTERM), parent)


async def _serve(config: Config, args: argparse.Namespace, parent: int) -> None:
    from .self_guard import guard_servers
    from .transports import serve_http, serve_stdio

    if args.transport == "stdio":
        _stop_when_parent_exits(parent)
    guard_servers(
        config, http_address=None if args.transport == "stdio" else (args.host, args.port)
    )
    app = await build_tool_server(config)
    try:
        if args.transport == "stdio":
            await serve_stdio(app)
        else:
            await serve_http(app, args.host, args.port, announce=_announce)
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
        config = load_config(args)
    except CliConfigError as exc:
        report_config_error(exc)
        return EXIT_CONFIG
    config.interactive = False  # MCP clients confirm on their side; nobody answers prompts here
    _configure_logging()

    from .transports import ListenError

    try:
        asyncio.run(_serve(config, args, parent))
    except ListenError as exc:
        print(f"qwen-tools: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK
