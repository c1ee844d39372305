"""Detection of command substitution in raw shell text, heredocs included.

``$(…)``, backticks, ``<(…)``, ``>(…)`` and ``${name@P}`` run code while a command is expanded;
Qwen Code asks before any of them. Single quotes, comments and heredocs with a quoted
delimiter are inert; unquoted heredoc bodies are scanned line by line. This module also rewrites
quoted heredoc delimiters and arithmetic expansions for bashlex, which cannot parse them.
"""

from __future__ import annotations

import re

__all__ = ["detect_command_substitution", "prepare_for_bashlex"]

_AT_P = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*@P\}")


def _is_comment_start(text: str, index: int) -> bool:
    if text[index] != "#":
        return False
    if index == 0:
        return True
    return text[index - 1] in " \t\n\r;&|()<>"


def _heredoc_operator(text: str, start: int) -> tuple[int, str, bool, bool] | None:
    """Parse ``<<[-]DELIM`` at ``start``: (next index, delimiter, quoted, strip tabs)."""
    i = start + 2
    strip_tabs = i < len(text) and text[i] == "-"
    if strip_tabs:
        i += 1
    while i < len(text) and text[i] in " \t":
        i += 1
    delimiter: list[str] = []
    quoted = False
    quote = ""
    while i < len(text):
        ch = text[i]
        if not quote and (ch in " \t\n\r;&|<>()"):
            break
        if quote and ch == quote:
            quote = ""
        elif not quote and ch in "'\"":
            quoted, quote = True, ch
        elif ch == "\\" and quote != "'":
            quoted = True
            i += 1
            if i >= len(text):
                break
            delimiter.append(text[i])
        else:
            delimiter.append(ch)
        i += 1
    if not delimiter:
        return None
    return i, "".join(delimiter), quoted, strip_tabs


def _line_has_substitution(line: str) -> bool:
    i = 0
    while i < len(line):
        ch = line[i]
        if ch == "\\":
            i += 2
            continue
        if (ch == "$" and line[i + 1 : i + 2] == "(") or ch == "`":
            return True
        i += 1
    return False


def _heredoc_bodies_substitute(
    text: str, start: int, pending: list[tuple[str, bool, bool]]
) -> tuple[int, bool]:
    """Consume the bodies of ``pending`` heredocs from ``start``; report a live substitution."""
    i = start
    for delimiter, quoted, strip_tabs in pending:
        continuation = False
        while i <= len(text):
            line_start = i
            while i < len(text) and text[i] not in "\r\n":
                i += 1
            line_end = i
            newline = 0
            if text.startswith("\r\n", i):
                newline = 2
            elif i < len(text):
                newline = 1
            raw = text[line_start:line_end]
            line = raw.lstrip("\t") if strip_tabs else raw
            if line == delimiter:
                i = line_end + newline
                break
            if not quoted:
                if (continuation and line.startswith("(")) or _line_has_substitution(line):
                    return i, True
                continuation = False
                if newline and raw.endswith("$\\"):
                    slashes = len(raw[:-2]) - len(raw[:-2].rstrip("\\"))
                    continuation = slashes % 2 == 0
            i = line_end + newline
            if not newline:
                break
    return i, False


def detect_command_substitution(command: str) -> bool:
    """True for ``$(…)``, backticks, ``<(…)``, ``>(…)`` or ``${name@P}`` that bash would run.

    Single quotes, comments, and heredocs with a quoted delimiter are inert.
    """
    single = double = backtick = comment = False
    pending: list[tuple[str, bool, bool]] = []
    i, n = 0, len(command)
    while i < n:
        ch = command[i]
        nxt = command[i + 1] if i + 1 < n else ""
        if not single and not double and not backtick and ch in "\r\n":
            comment = False
            if pending:
                step = 2 if (ch == "\r" and nxt == "\n") else 1
                i, found = _heredoc_bodies_substitute(command, i + step, pending)
                if found:
                    return True
                pending = []
                continue
        quoted = single or double or backtick
        if not quoted and (comment or _is_comment_start(command, i)):
            comment = True
            i += 1
            continue
        if ch == "\\" and not single:
            if nxt == "\n" and i > 0 and command[i - 1] == "$":
                dollars_start = i - 1
                while dollars_start > 0 and command[dollars_start - 1] == "$":
                    dollars_start -= 1
                escapes_start = dollars_start
                while escapes_start > 0 and command[escapes_start - 1] == "\\":
                    escapes_start -= 1
                live_dollar = (i - dollars_start) % 2 == 1
                unescaped = (dollars_start - escapes_start) % 2 == 0
                if live_dollar and unescaped and command[i + 2 : i + 3] == "(":
                    return True
            i += 2
            continue
        if ch == "'" and not double and not backtick:
            single = not single
        elif ch == '"' and not single and not backtick:
            double = not double
        elif ch == "`" and not single:
            backtick = not backtick
        if not single and not double and not backtick and ch == "<" and nxt == "<":
            parsed = _heredoc_operator(command, i)
            if parsed is not None:
                i = parsed[0]
                pending.append(parsed[1:])
                continue
        if not single:
            if ch == "`" or (ch == "$" and nxt == "("):
                return True
            if ch == "$" and nxt == "{" and _AT_P.match(command, i):
                return True
            if ch in "<>" and nxt == "(" and not double and not backtick:
                return True
        i += 1
    return False


def _arithmetic_end(text: str, start: int) -> int:
    """End of the ``$((…))`` at ``start``; -1 when unbalanced or when it runs a command."""
    depth = 0
    i = start + 1
    while i < len(text):
        ch = text[i]
        if ch in "`'\"" or (ch == "$" and text[i + 1 : i + 2] == "(" and i > start + 1):
            return -1
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i + 1 if text[i - 1] == ")" else -1
        i += 1
    return -1


def _skip_heredoc_bodies(text: str, start: int, delimiters: list[tuple[str, bool]]) -> int:
    """Index after the bodies of ``delimiters`` (name, strip tabs) starting at line ``start``."""
    i = start
    for delimiter, strip_tabs in delimiters:
        while i < len(text):
            end = text.find("\n", i)
            end = len(text) if end < 0 else end
            line = text[i:end]
            i = end + 1
            if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                break
    return i


def prepare_for_bashlex(command: str) -> tuple[str, frozenset[int]]:
    """Rewrite what bashlex cannot parse, keeping every offset.

    ``<<'EOF'`` / ``<<"EOF"`` / ``<<\\EOF`` become ``<<EOF`` plus padding spaces, and an
    arithmetic expansion ``$((…))`` that runs no command becomes a ``$____`` parameter (it is an
    expansion either way). Returns the text and the offsets of the ``<<`` operators whose
    delimiter was quoted.
    """
    if "<<" not in command and "$((" not in command:
        return command, frozenset()
    chars = list(command)
    quoted_at: set[int] = set()
    pending: list[tuple[str, bool]] = []
    single = double = False
    i = 0
    while i < len(command):
        ch = command[i]
        if ch == "\\" and not single:
            i += 2
            continue
        if ch == "\n" and pending and not single and not double:
            i = _skip_heredoc_bodies(command, i + 1, pending)
            pending = []
            continue
        if ch == "'" and not double:
            single = not single
        elif ch == '"' and not single:
            double = not double
        elif not single and command.startswith("$((", i):
            end = _arithmetic_end(command, i)
            if end > 0:
                chars[i:end] = ["$"] + ["_"] * (end - i - 1)
                i = end
                continue
        elif not single and not double and command.startswith("<<", i):
            if command.startswith("<<<", i):
                i += 3
                continue
            parsed = _heredoc_operator(command, i)
            if parsed is None:
                i += 2
                continue
            end, delimiter, quoted, strip_tabs = parsed
            pending.append((delimiter, strip_tabs))
            if quoted and re.fullmatch(r"[\w.-]+", delimiter):
                start = i + 2 + (command[i + 2] == "-")
                while command[start] in " \t":
                    start += 1
                chars[start:end] = list(delimiter.ljust(end - start))
                quoted_at.add(i)
            i = end
            continue
        i += 1
    return "".join(chars), frozenset(quoted_at)
