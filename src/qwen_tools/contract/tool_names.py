"""The names of the built-in tools, in one place: each tool's model-facing name, its display
name, and the older names a model, a subagent definition or a settings file may still use.

Every tool class, the registry, the scheduler's rules, the CLI and the subagents take the
names from here (it lives in ``contract`` so that the lower layers, such as the read cache's
texts and the shell's virtual operations, can name tools too). Qwen Code 0.24.4's table is
``packages/core/src/tools/tool-names.ts``; where we differ (``task`` is the subagent tool, as
before 0.24.4, and ``agent`` its legacy name) the reference's name still reaches our tool.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "LEGACY_DISPLAY_NAMES",
    "LEGACY_TOOL_NAMES",
    "ToolDisplayNames",
    "ToolNames",
    "canonical_tool_name",
    "tool_name_for",
]


class ToolNames:
    """Model-facing names of the built-in tools, in the order they are registered."""

    READ_FILE: Final = "read_file"
    LIST_DIRECTORY: Final = "list_directory"
    GLOB: Final = "glob"
    GREP: Final = "grep_search"
    WRITE_FILE: Final = "write_file"
    EDIT: Final = "edit"
    READ_MANY_FILES: Final = "read_many_files"
    SHELL: Final = "run_shell_command"
    TASK_STOP: Final = "task_stop"
    TODO_WRITE: Final = "todo_write"
    MEMORY: Final = "save_memory"
    TASK: Final = "task"
    WEB_FETCH: Final = "web_fetch"
    ENTER_PLAN_MODE: Final = "enter_plan_mode"
    EXIT_PLAN_MODE: Final = "exit_plan_mode"
    WEB_SEARCH: Final = "web_search"
    LSP: Final = "lsp"


class ToolDisplayNames:
    """User-facing display names of the built-in tools (as the reference shows them)."""

    READ_FILE: Final = "ReadFile"
    LIST_DIRECTORY: Final = "ListFiles"
    GLOB: Final = "Glob"
    GREP: Final = "Grep"
    WRITE_FILE: Final = "WriteFile"
    EDIT: Final = "Edit"
    READ_MANY_FILES: Final = "ReadManyFiles"
    SHELL: Final = "Shell"
    TASK_STOP: Final = "TaskStop"
    TODO_WRITE: Final = "TodoList"
    MEMORY: Final = "SaveMemory"
    TASK: Final = "Task"
    WEB_FETCH: Final = "WebFetch"
    ENTER_PLAN_MODE: Final = "EnterPlanMode"
    EXIT_PLAN_MODE: Final = "ExitPlanMode"
    WEB_SEARCH: Final = "WebSearch"
    LSP: Final = "Lsp"


LEGACY_TOOL_NAMES: Final[dict[str, str]] = {
    "search_file_content": ToolNames.GREP,
    "replace": ToolNames.EDIT,
    "agent": ToolNames.TASK,  # Qwen Code 0.24.4's name for the task tool
}
"""Older names a model may still call; they reach the current tool."""

LEGACY_DISPLAY_NAMES: Final[dict[str, str]] = {
    "SearchFiles": ToolNames.GREP,
    "SearchText": ToolNames.GREP,
    "FindFiles": ToolNames.GLOB,
    "ReadFolder": ToolNames.LIST_DIRECTORY,
    "TodoWrite": ToolNames.TODO_WRITE,
    "Agent": ToolNames.TASK,  # Qwen Code 0.24.4's display name for the task tool
}
"""Display names of other Qwen Code versions, with the tool they stand for."""

_BY_DISPLAY_NAME: Final[dict[str, str]] = {
    **{
        getattr(ToolDisplayNames, key): value
        for key, value in vars(ToolNames).items()
        if key.isupper()
    },
    **LEGACY_DISPLAY_NAMES,
}


def canonical_tool_name(name: str) -> str:
    """Map a legacy name to its current one (other names are returned unchanged)."""
    return LEGACY_TOOL_NAMES.get(name, name)


def tool_name_for(name: str) -> str:
    """The tool name for a tool name, display name or legacy (display) name; other names are
    returned unchanged."""
    return _BY_DISPLAY_NAME.get(name) or canonical_tool_name(name)
