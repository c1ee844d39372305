"""``qwen-tools mcp auth NAME``: log in to a remote MCP server with OAuth 2.1.

Prints the authorization URL to open in a browser and waits (at most ``--timeout`` seconds) for
the redirect on a listener bound to ``127.0.0.1``; the tokens (and the client registered on the
way) are stored with mode 0600 (:mod:`qwen_tools.mcp.oauth_store`) and used, and refreshed, by
every later session. ``--logout`` forgets them.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from qwen_tools.cli.exit_codes import EXIT_CONFIG, EXIT_OK, EXIT_TOOL_ERROR, EXIT_USAGE

__all__ = ["add_auth_parser", "run_auth"]


def add_auth_parser(commands: Any) -> None:
    """Add ``auth`` to the ``mcp`` subcommands."""
    parser = commands.add_parser("auth", help="log in to a remote MCP server (OAuth)")
    parser.add_argument("name", help="name of the server")
    parser.add_argument(
        "--timeout", type=float, default=300.0, metavar="S", help="how long to wait for the login"
    )
    parser.add_argument("--logout", action="store_true", help="forget the stored tokens")
    parser.add_argument(
        "--cwd", metavar="DIR", help="project directory (default: the current directory)"
    )


def run_auth(args: argparse.Namespace) -> int:
    """Entry point of ``qwen-tools mcp auth``."""
    import asyncio

    from qwen_tools.cli.context import CliConfigError, load_config, report_config_error
    from qwen_tools.mcp.oauth import server_url
    from qwen_tools.mcp.oauth_login import login
    from qwen_tools.mcp.oauth_store import forget_server, tokens_path

    try:
        config = load_config(args)
    except CliConfigError as exc:
        report_config_error(exc)
        return EXIT_CONFIG
    server = config.settings.mcp_servers.get(args.name)
    if server is None:
        print(f'Error: Server "{args.name}" not found in configuration.', file=sys.stderr)
        return EXIT_USAGE
    if args.logout:
        forgotten = forget_server(tokens_path(config.home_dir), args.name)
        print(f'{"Removed" if forgotten else "No"} stored OAuth tokens for "{args.name}".')
        return EXIT_OK
    if not server_url(server):
        print(f'Error: Server "{args.name}" is not a remote (http or sse) server.', file=sys.stderr)
        return EXIT_USAGE

    async def show(url: str) -> None:
        print(
            f'To log in to MCP server "{args.name}", open this URL in a browser:\n{url}', flush=True
        )

    try:
        asyncio.run(login(args.name, server, show, home=config.home_dir, timeout=args.timeout))
    except TimeoutError:
        print(f"No login within {args.timeout:g} s.", file=sys.stderr)
        return EXIT_TOOL_ERROR
    except Exception as exc:
        from qwen_tools.mcp.failures import describe_error

        print(f'Login to "{args.name}" failed: {describe_error(exc)}', file=sys.stderr)
        return EXIT_TOOL_ERROR
    print(f'Logged in to MCP server "{args.name}".')
    return EXIT_OK
