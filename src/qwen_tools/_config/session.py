"""Per-session state shared by the tools of one ``Config``: what the user always allowed."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class SessionState:
    """Mutable state that lives as long as one session of tool calls."""

    always_allowed_tools: set[str] = field(default_factory=set)
    """Tool names the user answered "always allow" for."""
    always_allowed_mcp_servers: set[str] = field(default_factory=set)
    """MCP servers the user answered "always allow" for."""
    always_allowed_shell_roots: set[str] = field(default_factory=set)
    """Shell root commands (``git``, ``ls``…) the user answered "always allow" for."""
