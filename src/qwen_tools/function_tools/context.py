"""``ToolContext``: what a ``@tool`` function may receive from the session running it.

A function decorated with :func:`~qwen_tools.tool` whose parameter is annotated ``ToolContext``
gets the session's context there (the parameter is left out of the tool's schema), the way
pydantic-ai passes ``RunContext``::

    @tool
    def count_files(ctx: ToolContext, pattern: str) -> str:
        return str(len(list(ctx.target_dir.glob(pattern))))

The context is bound when a :class:`~qwen_tools.Session` registers the tool (each session gets
its own bound copy); a tool that asks for it outside a session fails with a clear error.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from qwen_tools.config.config import Config
    from qwen_tools.config.session import SessionState
    from qwen_tools.config.tool_settings import ApprovalMode, ToolSettings
    from qwen_tools.config.workspace import WorkspaceContext

__all__ = ["ToolContext"]


@dataclass(frozen=True)
class ToolContext:
    """The session a tool call runs in: its workspace, settings and mutable state."""

    config: Config

    @property
    def workspace(self) -> WorkspaceContext:
        """The workspace directories (paths must lie inside them)."""
        return self.config.workspace

    @property
    def target_dir(self) -> Path:
        """The project directory."""
        return self.config.target_dir

    @property
    def settings(self) -> ToolSettings:
        """The session's (immutable) tool settings."""
        return self.config.settings

    @property
    def state(self) -> SessionState:
        """The session's mutable state (read cache, "always allow" answers, background shells)."""
        return self.config.session

    @property
    def session_id(self) -> str:
        """The session's id."""
        return self.config.session_id

    @property
    def approval_mode(self) -> ApprovalMode:
        """The session's current approval mode."""
        return self.config.approval_mode
