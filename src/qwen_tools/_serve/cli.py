"""``qwen-tools serve``: the session's tools as an MCP server, over stdio or streamable HTTP.

Exit codes: 0 the server stopped (the client closed stdin, or SIGINT/SIGTERM); 2 the ``mcp``
extra is missing or the port cannot be bound; 3 settings error.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys

from .._cli.context import CliConfigError, open_session, report_config_error
from .._cli.main import EXIT_CONFIG, EXIT_OK, EXIT_USAGE

__all__ = ["MISSING_SDK", "run_serve"]

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


def _announce(url: str) -> None:
    print(f"qwen-tools: serving MCP over streamable HTTP at {url}", file=sys.stderr, flush=True)


def run_serve(args: argparse.Namespace) -> int:
    """Entry point of ``qwen-tools serve``."""
    try:
        import mcp  # noqa: F401
    except ImportError:
        print(MISSING_SDK, file=sys.stderr)
        return EXIT_USAGE
    try:
        session = open_session(args)
    except CliConfigError as exc:
        report_config_error(exc)
        return EXIT_CONFIG
    _configure_logging()

    from .server import ToolServer
    from .transports import ListenError, serve_http, serve_stdio

    app = ToolServer(session.registry, session.config)
    if args.transport == "stdio":
        asyncio.run(serve_stdio(app))
        return EXIT_OK
    try:
        asyncio.run(serve_http(app, args.host, args.port, announce=_announce))
    except ListenError as exc:
        print(f"qwen-tools: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK
