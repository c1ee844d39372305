"""Confirmation: what a tool asks the user before it runs (the answer is in :mod:`.outcome`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from qwen_tools.contract.outcome import (
    ToolConfirmationOutcome as ToolConfirmationOutcome,
    ToolConfirmationPayload as ToolConfirmationPayload,
)

OnConfirm: TypeAlias = Callable[
    [ToolConfirmationOutcome, ToolConfirmationPayload | None], Awaitable[None]
]
"""Hook a tool may attach to run its own side effect of an answer."""


async def _no_op(
    _outcome: ToolConfirmationOutcome, _payload: ToolConfirmationPayload | None
) -> None:
    return None


@dataclass(slots=True, kw_only=True)
class EditConfirmationDetails:
    """Confirm a file change; carries the diff and both versions of the content."""

    title: str
    file_name: str
    file_path: str
    file_diff: str
    original_content: str | None
    new_content: str
    is_modifying: bool = False
    on_confirm: OnConfirm = _no_op
    type: Literal["edit"] = field(default="edit", init=False)

    def to_dict(self) -> dict[str, Any]:
        """Serialise with camelCase keys (no callback)."""
        return {
            "type": self.type,
            "title": self.title,
            "fileName": self.file_name,
            "filePath": self.file_path,
            "fileDiff": self.file_diff,
            "originalContent": self.original_content,
            "newContent": self.new_content,
            "isModifying": self.is_modifying,
        }


@dataclass(slots=True, kw_only=True)
class ExecConfirmationDetails:
    """Confirm a shell command; ``root_commands`` are the programs it runs (for allow lists)."""

    title: str
    command: str
    root_commands: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    permission_rules: tuple[str, ...] = ()  # what "Always allow …" persists
    hide_always_allow: bool = False
    on_confirm: OnConfirm = _no_op
    type: Literal["exec"] = field(default="exec", init=False)

    @property
    def root_command(self) -> str:
        """The roots joined with commas, as the reference displays them."""
        return ", ".join(self.root_commands)

    def to_dict(self) -> dict[str, Any]:
        """Serialise with camelCase keys (no callback)."""
        return {
            "type": self.type,
            "title": self.title,
            "command": self.command,
            "rootCommand": self.root_command,
            "rootCommands": list(self.root_commands),
            "warnings": list(self.warnings),
        }


@dataclass(slots=True, kw_only=True)
class McpConfirmationDetails:
    """Confirm a call to a tool of an MCP server."""

    title: str
    server_name: str
    tool_name: str
    tool_display_name: str
    permission_rules: tuple[str, ...] = ()  # what "Always allow …" persists
    hide_always_allow: bool = False
    on_confirm: OnConfirm = _no_op
    type: Literal["mcp"] = field(default="mcp", init=False)

    def to_dict(self) -> dict[str, Any]:
        """Serialise with camelCase keys (no callback)."""
        return {
            "type": self.type,
            "title": self.title,
            "serverName": self.server_name,
            "toolName": self.tool_name,
            "toolDisplayName": self.tool_display_name,
        }


@dataclass(slots=True, kw_only=True)
class InfoConfirmationDetails:
    """A generic confirmation: a prompt, optionally naming the URLs involved."""

    title: str
    prompt: str
    urls: tuple[str, ...] = ()
    permission_rules: tuple[str, ...] = ()  # what "Always allow …" persists
    hide_always_allow: bool = False
    on_confirm: OnConfirm = _no_op
    type: Literal["info"] = field(default="info", init=False)

    def to_dict(self) -> dict[str, Any]:
        """Serialise with camelCase keys (no callback)."""
        return {
            "type": self.type,
            "title": self.title,
            "prompt": self.prompt,
            "urls": list(self.urls),
        }


@dataclass(slots=True, kw_only=True)
class PlanConfirmationDetails:
    """Approve a plan presented by ``exit_plan_mode``."""

    title: str
    plan: str
    on_confirm: OnConfirm = _no_op
    type: Literal["plan"] = field(default="plan", init=False)

    def to_dict(self) -> dict[str, Any]:
        """Serialise with camelCase keys (no callback)."""
        return {"type": self.type, "title": self.title, "plan": self.plan}


ToolCallConfirmationDetails: TypeAlias = (
    EditConfirmationDetails
    | ExecConfirmationDetails
    | McpConfirmationDetails
    | InfoConfirmationDetails
    | PlanConfirmationDetails
)
"""Any confirmation request."""
