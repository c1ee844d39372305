"""What a tool shows the user (``return_display``): Markdown text or one of these objects."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias


@dataclass(frozen=True, slots=True)
class DiffStat:
    """Line and character counts of an edit, split between the model's and the user's changes."""

    model_added_lines: int = 0
    model_removed_lines: int = 0
    model_added_chars: int = 0
    model_removed_chars: int = 0
    user_added_lines: int = 0
    user_removed_lines: int = 0
    user_added_chars: int = 0
    user_removed_chars: int = 0

    def to_dict(self) -> dict[str, int]:
        """Serialise with the reference's snake_case keys."""
        return {name: getattr(self, name) for name in self.__slots__}


@dataclass(frozen=True, slots=True)
class FileDiff:
    """A proposed or applied file change: a unified diff plus both versions of the content."""

    file_diff: str
    file_name: str
    original_content: str | None
    new_content: str
    file_path: str | None = None
    diff_stat: DiffStat | None = None

    def to_dict(self) -> dict[str, Any]:
        """Serialise with the reference's camelCase keys."""
        data: dict[str, Any] = {
            "fileDiff": self.file_diff,
            "fileName": self.file_name,
            "originalContent": self.original_content,
            "newContent": self.new_content,
        }
        if self.file_path is not None:
            data["filePath"] = self.file_path
        if self.diff_stat is not None:
            data["diffStat"] = self.diff_stat.to_dict()
        return data


TodoStatus: TypeAlias = Literal["pending", "in_progress", "completed"]


@dataclass(frozen=True, slots=True)
class TodoItem:
    """One entry of a todo list (``blocked_by``: ids of the entries it waits for, if given)."""

    id: str
    content: str
    status: TodoStatus
    blocked_by: tuple[str, ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        """Serialise as ``{"id", "content", "status"}`` plus ``blockedBy`` when set."""
        data: dict[str, Any] = {"id": self.id, "content": self.content, "status": self.status}
        if self.blocked_by is not None:
            data["blockedBy"] = list(self.blocked_by)
        return data


@dataclass(frozen=True, slots=True)
class TodoListDisplay:
    """The structured todo list shown by ``todo_write``.

    ``plan_id`` names the plan the list belongs to; ``created``/``completed`` are the entries
    this write added or finished; ``unchanged`` marks a write that changed nothing.
    """

    todos: tuple[TodoItem, ...] = ()
    plan_id: str | None = None
    created: tuple[TodoItem, ...] = ()
    completed: tuple[TodoItem, ...] = ()
    unchanged: bool = False

    def to_dict(self) -> dict[str, Any]:
        """Serialise as ``{"type": "todo_list", "planId"?, "todos", "changes", "unchanged"?}``."""
        data: dict[str, Any] = {"type": "todo_list"}
        if self.plan_id:
            data["planId"] = self.plan_id
        data["todos"] = [t.to_dict() for t in self.todos]
        data["changes"] = {
            "created": [t.to_dict() for t in self.created],
            "completed": [t.to_dict() for t in self.completed],
        }
        if self.unchanged:
            data["unchanged"] = True
        return data


@dataclass(frozen=True, slots=True)
class PlanSummaryDisplay:
    """A plan presented by ``exit_plan_mode``."""

    message: str
    plan: str
    rejected: bool = False

    def to_dict(self) -> dict[str, Any]:
        """Serialise as ``{"type": "plan_summary", ...}``."""
        data: dict[str, Any] = {"type": "plan_summary", "message": self.message, "plan": self.plan}
        if self.rejected:
            data["rejected"] = True
        return data


@dataclass(frozen=True, slots=True)
class McpToolProgressDisplay:
    """Progress reported by an MCP server through ``notifications/progress``."""

    progress: float
    total: float | None = None
    message: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Serialise as ``{"type": "mcp_tool_progress", ...}``."""
        data: dict[str, Any] = {"type": "mcp_tool_progress", "progress": self.progress}
        if self.total is not None:
            data["total"] = self.total
        if self.message is not None:
            data["message"] = self.message
        return data


@dataclass(frozen=True, slots=True)
class TaskExecutionDisplay:
    """Live and final state of a subagent run (the ``task`` tool)."""

    subagent_name: str
    task_description: str
    task_prompt: str
    status: Literal["running", "completed", "failed", "cancelled"]
    result: str | None = None
    terminate_reason: str | None = None
    tool_calls: tuple[dict[str, Any], ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        """Serialise as ``{"type": "task_execution", ...}`` with camelCase keys."""
        data: dict[str, Any] = {
            "type": "task_execution",
            "subagentName": self.subagent_name,
            "taskDescription": self.task_description,
            "taskPrompt": self.task_prompt,
            "status": self.status,
        }
        if self.result is not None:
            data["result"] = self.result
        if self.terminate_reason is not None:
            data["terminateReason"] = self.terminate_reason
        if self.tool_calls:
            data["toolCalls"] = list(self.tool_calls)
        return data


ToolResultDisplay: TypeAlias = (
    str
    | FileDiff
    | TodoListDisplay
    | PlanSummaryDisplay
    | McpToolProgressDisplay
    | TaskExecutionDisplay
)
"""Anything a tool may return for display."""


def display_to_json(display: ToolResultDisplay | None) -> str | dict[str, Any] | None:
    """Serialise a display value: strings stay strings, objects become dicts."""
    if display is None or isinstance(display, str):
        return display
    return display.to_dict()
