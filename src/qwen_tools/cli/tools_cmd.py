"""``qwen-tools tools`` and ``qwen-tools schema``: what is registered, and how it is declared."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from qwen_tools.cli.context import (
    CliConfigError,
    open_session,
    person_at_terminal,
    report_config_error,
)
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


def tool_rows(rows: list[tuple[str, str, str]], width: int | None = None) -> str:
    """The table of (name, kind, description) rows: names whole (never cut or folded), the
    descriptions' first lines folded into what room is left."""
    import io

    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{len(rows)} tools", show_lines=False)
    longest = max((len(name) for name, _, _ in rows), default=4)
    table.add_column("name", style="bold", no_wrap=True, min_width=longest)
    table.add_column("kind", no_wrap=True)
    table.add_column("description", overflow="fold", ratio=1)
    for name, kind, description in rows:
        first_line = description.strip().splitlines()[0] if description.strip() else ""
        table.add_row(name, kind, first_line)
    buffer = io.StringIO()
    wide_enough = longest + 30  # name, kind and a little description
    console = Console(
        file=buffer, width=max(width or 80, wide_enough), force_terminal=sys.stdout.isatty()
    )
    console.print(table)
    return buffer.getvalue()


def run_tools(args: argparse.Namespace) -> int:
    """List the tools ``call`` accepts here, with their kinds and descriptions.

    As ``call`` does, a session without a terminal leaves out the plan-mode tools.
    """
    try:
        session = open_session(args, interactive=person_at_terminal())
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
    import shutil

    width = shutil.get_terminal_size().columns if sys.stdout.isatty() else None
    sys.stdout.write(tool_rows([(t.name, t.kind.value, t.description) for t in tools], width))
    return EXIT_OK


def run_schema(args: argparse.Namespace) -> int:
    """Print every declaration in the requested provider format: the tools ``call`` accepts
    here (without a terminal, no plan-mode tools)."""
    try:
        session = open_session(args, interactive=person_at_terminal())
    except CliConfigError as exc:
        report_config_error(exc)
        return EXIT_CONFIG
    exported = _with_mcp_tools(session).export(args.format)
    print(json.dumps(exported, indent=2, ensure_ascii=False))
    return EXIT_OK
