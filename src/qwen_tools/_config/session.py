"""Per-session state shared by the tools of one ``Config``.

What the user always allowed, which files the model has read (prior-read enforcement and
read_file's "unchanged" fast path) and the per-file locks that serialise edits.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from qwen_tools._fs.locks import FileLocks
from qwen_tools._fs.read_cache import FileReadCache


@dataclass
class SessionState:
    """Mutable state that lives as long as one session of tool calls."""

    always_allowed_tools: set[str] = field(default_factory=set)
    """Tool names the user answered "always allow" for."""
    always_allowed_mcp_servers: set[str] = field(default_factory=set)
    """MCP servers the user answered "always allow" for."""
    always_allowed_shell_roots: set[str] = field(default_factory=set)
    """Shell root commands (``git``, ``ls``…) the user answered "always allow" for."""
    read_cache: FileReadCache = field(default_factory=FileReadCache)
    """Files read or written this session, for prior-read enforcement."""
    file_locks: FileLocks = field(default_factory=FileLocks)
    """One lock per file, held across an edit's read-modify-write."""
