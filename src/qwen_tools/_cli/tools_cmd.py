"""``qwen-tools tools`` and ``qwen-tools schema``: what is registered, and how it is declared."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .context import CliConfigError, CliSession, mcp_connected, open_session, report_config_error
from .main import EXIT_CONFIG, EXIT_OK


def _with_mcp_tools(session: CliSession) -> Any:
    """The session's registry after connecting its MCP servers once (for listing only)."""
    if not session.config.settings.mcp_servers:
        return session.registry
    import asyncio

    async def connect() -> None:
        async with mcp_connected(session):
            pass

    asyncio.run(connect())
    return session.registry


def run_tools(args: argparse.Namespace) -> int:
    """List the registered tools with their kinds and descriptions."""
    try:
        session = open_session(args)
    except CliConfigError as exc:
        report_config_error(exc)
        return EXIT_CONFIG
    tools = _with_mcp_tools(session).get_all_tools()
    if args.json:
        rows: list[dict[str, Any]] = [
            {
                "name": t.name,
                "displayName": t.display_name,
                "kind": t.kind.value,
                "description": t.description,
                "server": t.server_name,
            }
            for t in tools
        ]
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return EXIT_OK
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{len(tools)} tools", show_lines=False)
    table.add_column("name", style="bold")
    table.add_column("kind")
    table.add_column("description", overflow="fold")
    for t in tools:
        first_line = t.description.strip().splitlines()[0] if t.description.strip() else ""
        table.add_row(t.name, t.kind.value, first_line)
    Console(file=sys.stdout).print(table)
    return EXIT_OK


def run_schema(args: argparse.Namespace) -> int:
    """Print every declaration in the requested provider format."""
    try:
        session = open_session(args)
    except CliConfigError as exc:
        report_config_error(exc)
        return EXIT_CONFIG
    exported = _with_mcp_tools(session).export(args.format)
    print(json.dumps(exported, indent=2, ensure_ascii=False))
    return EXIT_OK
