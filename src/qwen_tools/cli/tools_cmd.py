"""``qwen-tools tools`` and ``qwen-tools schema``: what is registered, and how it is declared."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from qwen_tools.cli.context import CliConfigError, open_session, report_config_error
from qwen_tools.cli.exit_codes import EXIT_CONFIG, EXIT_OK

if TYPE_CHECKING:
    from qwen_tools.registry.registry import ToolRegistry
    from qwen_tools.session.session import Session


def _with_mcp_tools(session: Session) -> ToolRegistry:
    """The session's registry, its MCP servers connected once (for listing only)."""
    import asyncio

    async def assemble() -> ToolRegistry:
        async with session:
            return session.registry

    try:
        return asyncio.run(assemble())
    finally:
        session.close_sync()


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
