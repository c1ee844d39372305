"""Tool names: the built-in names, legacy aliases, and "did you mean" suggestions."""

from __future__ import annotations

from collections.abc import Iterable


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


def levenshtein(a: str, b: str) -> int:
    """Edit distance between two strings (insertions, deletions, substitutions).

    RapidFuzz's bit-parallel implementation: linear in the longer string when the shorter one is
    a tool name, so a hostile 100 MB "tool name" is ranked in milliseconds, not hours.
    """
    from rapidfuzz.distance import Levenshtein  # imported when a name is not found

    return int(Levenshtein.distance(a, b))


def suggestion_suffix(unknown: str, candidates: Iterable[str], top_n: int = 3) -> str:
    """`` Did you mean …?`` for the closest names (stable order on ties), or ``""``."""
    ranked = sorted(candidates, key=lambda name: levenshtein(unknown, name))[:top_n]
    if not ranked:
        return ""
    quoted = ", ".join(f'"{name}"' for name in ranked)
    if len(ranked) > 1:
        return f" Did you mean one of: {quoted}?"
    return f" Did you mean {quoted}?"


def tool_not_found_message(unknown: str, candidates: Iterable[str]) -> str:
    """The reference's message for a call to a name that is not registered."""
    return (
        f'Tool "{unknown}" not found in registry. Tools must use the exact names that are '
        f"registered.{suggestion_suffix(unknown, candidates)}"
    )
