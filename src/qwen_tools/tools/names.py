"""Tool names: the built-in names, legacy aliases, and "did you mean" suggestions."""

from __future__ import annotations


class ToolNames:
    """Model-facing names of the built-in tools."""

    LIST_DIRECTORY = "list_directory"
    READ_FILE = "read_file"
    WRITE_FILE = "write_file"
    EDIT = "edit"
    GLOB = "glob"
    GREP = "grep_search"
    READ_MANY_FILES = "read_many_files"
    SHELL = "run_shell_command"
    WEB_FETCH = "web_fetch"
    WEB_SEARCH = "web_search"
    MEMORY = "save_memory"
    TASK = "task"
    TODO_WRITE = "todo_write"
    EXIT_PLAN_MODE = "exit_plan_mode"


class ToolDisplayNames:
    """User-facing display names of the built-in tools (as the reference shows them)."""

    LIST_DIRECTORY = "ListFiles"
    READ_FILE = "ReadFile"
    WRITE_FILE = "WriteFile"
    EDIT = "Edit"
    GLOB = "Glob"
    GREP = "Grep"
    READ_MANY_FILES = "ReadManyFiles"
    SHELL = "Shell"
    WEB_FETCH = "WebFetch"
    WEB_SEARCH = "WebSearch"
    MEMORY = "SaveMemory"
    TASK = "Task"
    TODO_WRITE = "TodoWrite"
    EXIT_PLAN_MODE = "ExitPlanMode"


LEGACY_TOOL_NAMES: dict[str, str] = {
    "search_file_content": ToolNames.GREP,
    "replace": ToolNames.EDIT,
    "agent": ToolNames.TASK,  # Qwen Code 0.24.4's name for the task tool
}
"""Older names a model may still call; they reach the current tool."""


def canonical_tool_name(name: str) -> str:
    """Map a legacy name to its current one (other names are returned unchanged)."""
    return LEGACY_TOOL_NAMES.get(name, name)
