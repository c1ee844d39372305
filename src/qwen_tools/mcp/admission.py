"""Which servers are started and which of their tools are offered.

* servers: ``mcp.allowed`` (when set) must match the name, ``mcp.excluded`` must not — excluded
  wins. Patterns support ``*`` and ``?`` and are otherwise exact (Qwen Code's
  ``matchesServerPattern``). An untrusted folder starts no server at all.
* tools: ``excludeTools`` drops a tool named exactly; ``includeTools`` (when set) keeps a tool
  named exactly or by an entry starting with ``<name>(``; exclude wins.
* gated servers (a project's ``.mcp.json``) that the user has not approved for their
  current entry (:mod:`qwen_tools.config.mcp_approvals`) are not started, unless the approval
  mode is ``yolo`` (as Qwen Code 0.24.4).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import TYPE_CHECKING

from qwen_tools.config.tool_settings import ApprovalMode, McpServerConfig, ToolSettings

if TYPE_CHECKING:
    from qwen_tools.config.config import Config
    from qwen_tools.config.mcp_approvals import ApprovalState

DEFAULT_STDIO_DISCOVERY_MS = 30_000
DEFAULT_REMOTE_DISCOVERY_MS = 5_000
MIN_DISCOVERY_MS = 100
MAX_DISCOVERY_MS = 300_000


@lru_cache(maxsize=256)
def _pattern(pattern: str) -> re.Pattern[str]:
    body = "".join(".*" if ch == "*" else "." if ch == "?" else re.escape(ch) for ch in pattern)
    return re.compile(body, re.S)


def matches_server_pattern(name: str, pattern: str) -> bool:
    """Whether server ``name`` matches ``pattern`` (``*`` any run, ``?`` one character)."""
    if "*" not in pattern and "?" not in pattern:
        return name == pattern
    return _pattern(pattern).fullmatch(name) is not None


def is_server_admitted(
    name: str, allowed: Iterable[str] | None, excluded: Iterable[str] = ()
) -> bool:
    """Whether ``mcp.allowed`` / ``mcp.excluded`` let server ``name`` start."""
    if any(matches_server_pattern(name, pattern) for pattern in excluded):
        return False
    return allowed is None or any(matches_server_pattern(name, pattern) for pattern in allowed)


def admitted_servers(settings: ToolSettings) -> dict[str, McpServerConfig]:
    """The ``mcpServers`` entries that may start, in configuration order."""
    if not settings.trusted:
        return {}
    return {
        name: config
        for name, config in settings.mcp_servers.items()
        if is_server_admitted(name, settings.mcp_allowed, settings.mcp_excluded)
    }


def gated_states(config: Config) -> dict[str, ApprovalState]:
    """The approval state of every gated server (``approved``, ``rejected`` or ``pending``)."""
    gated = config.settings.mcp_gated
    if not gated:
        return {}
    from qwen_tools.config.mcp_approvals import McpApprovals, approvals_path

    approvals = McpApprovals(approvals_path(config.home_dir))
    return {name: approvals.state(config.target_dir, name, h) for name, h in gated.items()}


def pending_servers(config: Config) -> dict[str, ApprovalState]:
    """The gated servers not approved (``pending`` or ``rejected``); none in ``yolo`` mode."""
    if config.approval_mode is ApprovalMode.YOLO:
        return {}
    return {name: s for name, s in gated_states(config).items() if s != "approved"}


def is_tool_enabled(tool: str, config: McpServerConfig) -> bool:
    """Whether ``includeTools`` / ``excludeTools`` of the server keep ``tool``."""
    if tool in config.exclude_tools:
        return False
    include = config.include_tools
    return include is None or any(
        entry == tool or entry.startswith(f"{tool}(") for entry in include
    )


def discovery_timeout_ms(config: McpServerConfig) -> int:
    """How long connecting and listing may take: ``discoveryTimeoutMs`` in [100, 300,000],
    else 5 s for remote servers and 30 s for stdio ones."""
    override = config.extra.get("discoveryTimeoutMs")
    if isinstance(override, int | float) and not isinstance(override, bool):
        return int(max(MIN_DISCOVERY_MS, min(override, MAX_DISCOVERY_MS)))
    remote = bool(config.http_url or config.url or config.extra.get("tcp"))
    return DEFAULT_REMOTE_DISCOVERY_MS if remote else DEFAULT_STDIO_DISCOVERY_MS
