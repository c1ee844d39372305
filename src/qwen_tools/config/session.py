"""Per-session state shared by the tools of one ``Config``.

What the user always allowed (tools, MCP servers, shell roots, memory files), which files the
model has read (prior-read enforcement and read_file's "unchanged" fast path), the per-file locks
that serialise edits, and the background shells started by ``run_shell_command``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from qwen_tools.fs.locks import FileLocks
from qwen_tools.fs.read_cache import FileReadCache

if TYPE_CHECKING:
    from qwen_tools.shell.background import BackgroundShellRegistry


def _background_shells() -> BackgroundShellRegistry:
    from qwen_tools.shell.background import BackgroundShellRegistry

    return BackgroundShellRegistry()


@dataclass
class SessionState:
    """Mutable state that lives as long as one session of tool calls."""

    always_allowed_tools: set[str] = field(default_factory=set)
    """Tool names the user answered "always allow" for."""
    always_allowed_mcp_servers: set[str] = field(default_factory=set)
    """MCP servers the user answered "always allow" for."""
    always_allowed_shell_roots: set[str] = field(default_factory=set)
    """Shell root commands (``git``, ``ls``…) the user answered "always allow" for."""
    always_allowed_memory_files: set[str] = field(default_factory=set)
    """``save_memory`` targets (``<path>_<scope>``) the user answered "always allow" for."""
    read_cache: FileReadCache = field(default_factory=FileReadCache)
    """Files read or written this session, for prior-read enforcement."""
    file_locks: FileLocks = field(default_factory=FileLocks)
    """One lock per file, held across an edit's read-modify-write."""
    background_shells: BackgroundShellRegistry = field(default_factory=_background_shells)
    """Background shells of this session (``is_background: true``), for ``task_stop``."""
