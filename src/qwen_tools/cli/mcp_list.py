"""``qwen-tools mcp list``: connect every configured server at once and show its status and tools.

Each line is Qwen Code 0.24.4's (``✓ name: target (transport) - Connected``, ``✗ … -
Disconnected``, ``Disconnected (timed out after Nms)``); below it we add what 0.24.4 does not
show: the server's tools (after ``includeTools``/``excludeTools``) or why it is disconnected. A
server that settings keep from starting (``mcp.allowed``/``mcp.excluded``, an untrusted folder) is
not started and shows as ``Disabled``; a gated server (a project's ``.mcp.json``) not
approved is not started and shows as ``Pending approval`` or ``Rejected``, as in 0.24.4. Colours only on a terminal (and not with ``NO_COLOR``).
``--json`` prints one object per server instead.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import re
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from qwen_tools.cli.context import CliConfigError, load_config, report_config_error
from qwen_tools.cli.exit_codes import EXIT_CONFIG, EXIT_OK

if TYPE_CHECKING:
    from qwen_tools.config.config import Config
    from qwen_tools.config.tool_settings import McpServerConfig

__all__ = ["ServerReport", "collect_reports", "render_text", "run_list"]

NO_SERVERS = "No MCP servers configured."
HEADER = "Configured MCP servers:\n"
_GREEN, _YELLOW, _RED, _RESET = "\x1b[32m", "\x1b[33m", "\x1b[31m", "\x1b[0m"
_TIMED_OUT = re.compile(r"timed out after (\d+)ms$")


@dataclass
class ServerReport:
    """What ``list`` knows about one configured server."""

    name: str
    transport: str | None
    target: str
    status: str
    """``connected``, ``disconnected``, ``disabled`` (not started), or for a gated server not
    approved (never started) ``pending`` or ``rejected``."""
    error: str | None = None
    tools: list[dict[str, str]] = field(default_factory=list)
    """``{"name", "serverToolName", "description"}``: ``name`` is the model-facing one."""
    info: str = ""
    """The text line's ``name: target (transport)``."""

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "transport": self.transport,
            "target": self.target,
            "status": self.status,
            "error": self.error,
            "tools": self.tools,
        }


def _target(config: McpServerConfig) -> str:
    """Where the server is: its URL, or its command line."""
    if config.http_url or config.url:
        return config.http_url or config.url or ""
    return " ".join([config.command, *config.args]) if config.command else ""


def _info(name: str, config: McpServerConfig) -> str:
    """0.24.4's ``name: target (transport)`` (``command args (stdio)``, a space even with no args)."""
    if config.http_url:
        return f"{name}: {config.http_url} (http)"
    if config.url:
        return f"{name}: {config.url} (sse)"
    if config.command:
        return f"{name}: {config.command} {' '.join(config.args)} (stdio)"
    return f"{name}: "


def _not_admitted(config: Config, name: str) -> str | None:
    from qwen_tools.mcp.admission import matches_server_pattern

    settings = config.settings
    if not settings.trusted:
        return "The folder is not trusted: no MCP server is started."
    if any(matches_server_pattern(name, p) for p in settings.mcp_excluded):
        return "Excluded by mcp.excluded."
    if settings.mcp_allowed is not None and not any(
        matches_server_pattern(name, p) for p in settings.mcp_allowed
    ):
        return "Not allowed by mcp.allowed."
    return None


async def collect_reports(config: Config) -> list[ServerReport]:
    """Connect every admitted server in parallel and report on every configured one."""
    from qwen_tools.mcp.manager import McpManager

    reports: dict[str, ServerReport] = {}
    for name, server in config.settings.mcp_servers.items():
        reason = _not_admitted(config, name)
        status = "disabled" if reason else "connecting"
        target = _target(server)
        reports[name] = ServerReport(
            name, server.transport, target, status, reason, info=_info(name, server)
        )
    async with McpManager(config) as manager:
        for tool in manager.tools():
            reports[tool.connection.name].tools.append(
                {
                    "name": tool.name,
                    "serverToolName": tool.server_tool_name,
                    "description": tool.description,
                }
            )
        for name, status in manager.statuses().items():
            reports[name].status = status.value
            reports[name].error = manager.last_error(name) if status.value != "connected" else None
        for name, state in manager.pending.items():
            if reports[name].status != "disabled":
                reports[name].status = state
                reports[name].error = None
    return list(reports.values())


def _colour(code: str, text: str, enabled: bool) -> str:
    return f"{code}{text}{_RESET}" if enabled else text


def render_text(reports: list[ServerReport], *, colour: bool = False) -> str:
    """The listing as 0.24.4 prints it, with our tools/reason lines under each server."""
    lines = [HEADER]
    for report in reports:
        timed_out = _TIMED_OUT.search(report.error or "")
        if report.status == "connected":
            mark, text = _colour(_GREEN, "\u2713", colour), "Connected"
        elif report.status == "disabled":
            mark, text = _colour(_YELLOW, "\u25cf", colour), "Disabled"
        elif report.status in ("pending", "rejected"):
            mark = _colour(_YELLOW, "\u25cf", colour)
            text = "Rejected" if report.status == "rejected" else "Pending approval"
        else:
            mark = _colour(_RED, "\u2717", colour)
            text = "Disconnected"
            if timed_out:
                text = f"Disconnected (timed out after {timed_out.group(1)}ms)"
        lines.append(f"{mark} {report.info} - {text}")
        if report.status == "connected":
            names = ", ".join(t["serverToolName"] for t in report.tools) or "(none)"
            lines.append(f"    Tools: {names}")
        elif report.error and not timed_out:
            lines.append(f"    Reason: {report.error}")
    return "\n".join(lines)


def _use_colour() -> bool:
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def run_list(args: argparse.Namespace) -> int:
    """Entry point of ``qwen-tools mcp list``."""
    try:
        config = load_config(args)
    except CliConfigError as exc:
        report_config_error(exc)
        return EXIT_CONFIG
    if not config.settings.mcp_servers:
        print("[]" if args.json else NO_SERVERS)
        return EXIT_OK
    # The reasons are in the listing: the manager's warnings would only repeat them.
    mcp_logger = logging.getLogger("qwen_tools.mcp")
    level = mcp_logger.level
    mcp_logger.setLevel(logging.ERROR)
    from qwen_tools.cli.progress import Spinner

    count = len(config.settings.mcp_servers)
    try:
        with Spinner(f"Connecting to {count} MCP server{'s' if count != 1 else ''}…"):
            reports = asyncio.run(collect_reports(config))
    finally:
        mcp_logger.setLevel(level)
    if args.json:
        print(json.dumps([r.as_json() for r in reports], indent=2, ensure_ascii=False))
    else:
        print(render_text(reports, colour=_use_colour()))
    return EXIT_OK
