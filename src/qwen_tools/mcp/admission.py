"""Which servers are started and which of their tools are offered.

* servers: ``mcp.allowed`` (when set) must match the name, ``mcp.excluded`` must not — excluded
  wins. Patterns support ``*`` and ``?`` and are otherwise exact (Qwen Code's
  ``matchesServerPattern``). An untrusted folder starts no server at all.
* tools: ``excludeTools`` drops a tool named exactly; ``includeTools`` (when set) keeps a tool
  named exactly or by an entry starting with ``<name>(``; exclude wins.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from qwen_tools.config.tool_settings import McpServerConfig, ToolSettings

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
