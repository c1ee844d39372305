"""``qwen-tools mcp approve|reject [NAME] [--all]``: decide on gated servers, as ``qwen mcp approve``.

Gated servers are those of the project's ``.mcp.json`` (:mod:`qwen_tools.config.project_mcp`;
0.24.4 also gates the workspace's ``.qwen/settings.json``); they do not run until approved. The decision is stored in
the approvals file shared with Qwen Code (:mod:`qwen_tools.config.mcp_approvals`), bound to the
server's current entry: editing the entry asks again. The lines printed are Qwen Code 0.24.4's.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, Literal

from qwen_tools.cli.exit_codes import EXIT_CONFIG, EXIT_OK

__all__ = ["add_approval_parsers", "run_approval"]

NONE_GATED = "No approval-requiring MCP servers found (looked in .mcp.json)."
NO_TARGET = "Specify a server name or pass --all."
APPROVED_NOTE = "Approved servers connect in your next interactive session."


def add_approval_parsers(commands: Any) -> None:
    """Add ``approve`` and ``reject`` to the ``mcp`` subcommands."""
    for verb, what in (("approve", "approve"), ("reject", "reject")):
        parser = commands.add_parser(
            verb,
            help=f"{what} a gated MCP server (.mcp.json)",
        )
        parser.add_argument("name", nargs="?", help=f"name of the gated server to {what}")
        parser.add_argument(
            "--all", action="store_true", help=f"{what} all gated servers in this workspace"
        )
        parser.add_argument(
            "--cwd", metavar="DIR", help="project directory (default: the current directory)"
        )


def run_approval(args: argparse.Namespace) -> int:
    """Entry point of ``mcp approve`` and ``mcp reject``."""
    from qwen_tools.cli.context import CliConfigError, load_config, report_config_error
    from qwen_tools.config.mcp_approvals import McpApprovals, approvals_path

    status: Literal["approved", "rejected"] = (
        "approved" if args.mcp_command == "approve" else "rejected"
    )
    try:
        config = load_config(args)
    except CliConfigError as exc:
        report_config_error(exc)
        return EXIT_CONFIG
    gated = config.settings.mcp_gated
    names = list(gated)
    if not names:
        print(NONE_GATED)
        return EXIT_OK
    targets = names if args.all else [args.name] if args.name else []
    if not targets:
        print(NO_TARGET)
        return EXIT_OK
    approvals = McpApprovals(approvals_path(config.home_dir))
    verb = "Approved" if status == "approved" else "Rejected"
    code = EXIT_OK
    for target in targets:
        if target not in gated:
            print(f'Server "{target}" not found. Available: {", ".join(names)}')
            continue
        try:
            approvals.set_state(config.target_dir, target, gated[target], status)
        except OSError as exc:
            print("Error saving MCP approvals file.", file=sys.stderr)
            print(exc.strerror or str(exc), file=sys.stderr)
            code = EXIT_CONFIG
            continue
        print(f'{verb} MCP server "{target}" (bound to its current config).')
    if status == "approved":
        print(APPROVED_NOTE)
    return code
