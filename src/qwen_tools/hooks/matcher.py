"""Which hook definitions an event selects: Qwen Code 0.24.4's ``matchesHookPattern``.

A matcher that is empty, ``*`` or ``.*`` matches everything; one equal to the subject (or, for
tool events, to one of the tool's aliases: display names, legacy names and the permission-rule
names such as ``Bash``, ``Read``, ``Write``) matches. A ``|`` list that does not start with
``^`` or ``(`` matches when an entry (trimmed) is ``*``, ``.*`` or exactly the subject or an
alias; otherwise its trimmed, non-empty entries are joined into an unanchored regular
expression (a list of only ``|`` matches nothing). Anything else is an unanchored regular
expression. A pattern JavaScript would reject matches nothing.

The expressions are JavaScript's; Python's ``re`` runs them, after V8's syntax check
(:func:`~qwen_tools.jscompat.v8_regex.js_regex_error`). For the ASCII names and reasons matched
here the two engines agree.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from qwen_tools.contract.tool_names import LEGACY_TOOL_NAMES, ToolDisplayNames, ToolNames
from qwen_tools.jscompat.v8_regex import js_regex_error

__all__ = ["matches_hook_pattern", "tool_aliases"]

_RULE_NAMES: dict[str, tuple[str, ...]] = {
    ToolNames.SHELL: ("Bash", ToolDisplayNames.SHELL, "ShellTool"),
    ToolNames.EDIT: (ToolDisplayNames.EDIT, "EditTool"),
    ToolNames.WRITE_FILE: ("Write", ToolDisplayNames.WRITE_FILE, "WriteFileTool"),
    ToolNames.READ_FILE: ("Read", ToolDisplayNames.READ_FILE, "ReadFileTool"),
    ToolNames.GREP: (ToolDisplayNames.GREP, "GrepTool", "SearchFiles"),
    ToolNames.GLOB: (ToolDisplayNames.GLOB, "GlobTool", "FindFiles"),
    ToolNames.LIST_DIRECTORY: (ToolDisplayNames.LIST_DIRECTORY, "ListFilesTool", "LS"),
    ToolNames.WEB_FETCH: (ToolDisplayNames.WEB_FETCH, "WebFetchTool"),
    ToolNames.WEB_SEARCH: (ToolDisplayNames.WEB_SEARCH, "WebSearchTool"),
    ToolNames.TASK: (ToolDisplayNames.TASK, "Agent", "AgentTool"),
}


def tool_aliases(tool_name: str) -> tuple[str, ...]:
    """Names a tool matcher may give for ``tool_name`` besides the name itself."""
    aliases: set[str] = set(_RULE_NAMES.get(tool_name, ()))
    for key, value in vars(ToolNames).items():
        if value == tool_name and not key.startswith("_"):
            display = getattr(ToolDisplayNames, key, None)
            if isinstance(display, str):
                aliases.update((display, f"{display}Tool"))
    aliases.update(old for old, new in LEGACY_TOOL_NAMES.items() if new == tool_name)
    aliases.discard(tool_name)
    return tuple(sorted(aliases))


def _split_entries(pattern: str) -> list[str]:
    entries: list[str] = []
    current: list[str] = []
    escaped = in_class = False
    depth = 0
    for char in pattern:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth = max(0, depth - 1)
        elif char == "|" and depth == 0:
            entries.append("".join(current))
            current = []
            continue
        current.append(char)
    entries.append("".join(current))
    return entries


def _trim_end(text: str, start: int = 0) -> str:
    """``text[start:]`` without trailing white space, except a backslash-escaped space."""
    end = len(text)
    while end > start and text[end - 1].isspace():
        backslashes = 0
        while end - 2 - backslashes >= 0 and text[end - 2 - backslashes] == "\\":
            backslashes += 1
        if backslashes % 2 == 1:
            break
        end -= 1
    return text[start:end]


def _trim_entry(entry: str) -> str:
    return _trim_end(entry, len(entry) - len(entry.lstrip()))


def _search(expression: str, subject: str) -> bool:
    if js_regex_error(expression) is not None:
        return False
    try:
        return re.search(expression, subject) is not None
    except re.error:
        return False


def matches_hook_pattern(matcher: str, subject: str, aliases: Iterable[str] = ()) -> bool:
    """Whether ``matcher`` selects ``subject`` (see the module docstring)."""
    pattern = _trim_end(matcher).lstrip()
    if pattern in ("", "*", ".*"):
        return True
    exact = {subject, *aliases}
    if pattern in exact:
        return True
    expression = pattern
    if "|" in pattern and not pattern.startswith(("^", "(")):
        entries = [e for e in (_trim_entry(x) for x in _split_entries(pattern)) if e]
        if any(e in ("*", ".*") or e in exact for e in entries):
            return True
        if not entries:
            return False
        expression = "|".join(entries)
    return _search(expression, subject)
