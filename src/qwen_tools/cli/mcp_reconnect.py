"""``qwen-tools mcp reconnect NAME | --all``: connect configured servers again and say how it went.

As ``qwen mcp reconnect`` of Qwen Code 0.24.4 (same lines, same exit status 1 on a failure): a
server that settings keep from starting (``mcp.excluded``, ``mcp.allowed``, awaiting approval, an
untrusted folder) is skipped with the reason, never started. The command runs in its own process,
so it cannot refresh the tools of a session already running elsewhere; a library session
reconnects with :meth:`qwen_tools.mcp.manager.McpManager.reconnect`.
"""

from __future__ import annotations

import argparse
import logging
import sys
from typing import TYPE_CHECKING, Any

from qwen_tools.cli.exit_codes import EXIT_CONFIG, EXIT_OK, EXIT_TOOL_ERROR, EXIT_USAGE

if TYPE_CHECKING:
    from qwen_tools.config.config import Config
    from qwen_tools.mcp.manager import McpManager

__all__ = ["add_reconnect_parser", "run_reconnect"]

SESSION_SCOPE_NOTE = (
    "Note: this command reconnects in a separate process; it cannot refresh the MCP tools of an "
    "already-running qwen-tools session. Restart that session if its tools remain unavailable."
)
NO_TARGET = "Please specify a server name or use --all to reconnect all servers."


def add_reconnect_parser(commands: Any) -> None:
    """Add ``reconnect`` to the ``mcp`` subcommands."""
    parser = commands.add_parser("reconnect", help="reconnect MCP server(s)")
    parser.add_argument("server_name", nargs="?", metavar="server-name", help="server to reconnect")
    parser.add_argument("-a", "--all", action="store_true", help="reconnect all configured servers")
    parser.add_argument(
        "--cwd", metavar="DIR", help="project directory (default: the current directory)"
    )


def skipped_reason(config: Config, manager: McpManager, name: str) -> str | None:
    """Why server ``name`` is not even tried (0.24.4's ``describeSkippedConnectionReason``)."""
    from qwen_tools.mcp.admission import matches_server_pattern

    settings = config.settings
    if any(matches_server_pattern(name, p) for p in settings.mcp_excluded):
        return "server is excluded in settings (mcp.excluded)"
    if settings.mcp_allowed is not None and not any(
        matches_server_pattern(name, p) for p in settings.mcp_allowed
    ):
        return "server is not in the mcp.allowed list"
    if name in manager.pending:
        return "server is pending approval (.mcp.json)"
    if not settings.trusted:
        return "workspace folder is not trusted"
    return None


async def _attempt(config: Config, names: list[str]) -> dict[str, tuple[str, str]]:
    """Each server's outcome: ``("ok", "")``, ``("skipped", reason)`` or ``("failed", why)``."""
    from qwen_tools.mcp.manager import McpManager

    manager = McpManager(config)
    outcome: dict[str, tuple[str, str]] = {}
    try:
        tried = [n for n in names if n in manager.server_names]
        await manager.connect(tried)
        for name in names:
            reason = skipped_reason(config, manager, name)
            if reason is not None:
                outcome[name] = ("skipped", reason)
                continue
            status = manager.status(name).value if name in tried else "disconnected"
            if status == "connected":
                outcome[name] = ("ok", "")
                continue
            error = manager.last_error(name) if name in tried else None
            why = f"connection attempt finished without a live connection (status: {status})"
            outcome[name] = ("failed", why + (f": {error}" if error else ""))
    finally:
        await manager.aclose()
    return outcome


def _quietly(config: Config, names: list[str]) -> dict[str, tuple[str, str]]:
    import asyncio

    # The outcome lines give every reason: the manager's warnings would only repeat them.
    mcp_logger = logging.getLogger("qwen_tools.mcp")
    level = mcp_logger.level
    mcp_logger.setLevel(logging.ERROR)
    try:
        return asyncio.run(_attempt(config, names))
    finally:
        mcp_logger.setLevel(level)


def _one(config: Config, name: str) -> int:
    if name not in config.settings.mcp_servers:
        print(f'Error: Server "{name}" not found in configuration.', file=sys.stderr)
        return EXIT_TOOL_ERROR
    print(f'Reconnecting to server "{name}"...', flush=True)
    kind, why = _quietly(config, [name])[name]
    if kind == "ok":
        print(f'Successfully reconnected to server "{name}".')
        print(SESSION_SCOPE_NOTE)
        return EXIT_OK
    if kind == "skipped":
        why = f"no connection attempt was made: {why}"
    print(SESSION_SCOPE_NOTE, flush=True)
    print(f'Failed to reconnect to server "{name}": {why}', file=sys.stderr)
    return EXIT_TOOL_ERROR


def _all(config: Config) -> int:
    names = list(config.settings.mcp_servers)
    if not names:
        print("No MCP servers configured.")
        return EXIT_OK
    print("Reconnecting to all MCP servers...\n", flush=True)
    failed = 0
    for name, (kind, why) in _quietly(config, names).items():
        if kind == "ok":
            print(f"\u2713 {name}: Reconnected successfully")
        elif kind == "skipped":
            print(f"- {name}: Skipped - {why}")
        else:
            failed += 1
            print(f"\u2717 {name}: Failed - {why}")
    print("")
    print(SESSION_SCOPE_NOTE, flush=True)
    if failed:
        print(
            f"Failed to reconnect {failed} of {len(names)} configured server(s).", file=sys.stderr
        )
        return EXIT_TOOL_ERROR
    return EXIT_OK


def run_reconnect(args: argparse.Namespace) -> int:
    """Entry point of ``qwen-tools mcp reconnect``."""
    from qwen_tools.cli.context import CliConfigError, load_config, report_config_error

    if args.server_name and args.all:
        print("qwen-tools mcp reconnect: error: give a server name or --all, not both",
              file=sys.stderr)  # fmt: skip
        return EXIT_USAGE
    if not args.server_name and not args.all:
        print(NO_TARGET, file=sys.stderr)
        return EXIT_USAGE
    try:
        config = load_config(args)
    except CliConfigError as exc:
        report_config_error(exc)
        return EXIT_CONFIG
    return _all(config) if args.all else _one(config, args.server_name)
