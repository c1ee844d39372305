"""Whether a ``sed`` or ``awk`` invocation only reads: ``read-only``, ``write`` or ``unknown``.

Same decisions as Qwen Code 0.24.4's ``shell-safety-rules``: sed scripts are split into commands
and each command (address, letter, ``s`` flags) is checked; ``-i`` or a ``w`` command with a file
writes; ``e``/``r``/``R`` and anything unusual are unknown. awk programs that print into a
quoted file write; ``system()``, ``close()``, ``getline`` and other redirections are unknown.
"""

from __future__ import annotations

import re
from typing import Literal

__all__ = [
    "Safety",
    "classify_awk",
    "classify_sed",
    "has_brace_expansion",
    "has_pattern_expansion",
    "merge_safety",
]

Safety = Literal["read-only", "write", "unknown"]

_ADDRESS = re.compile(r"\s*(?:(?:\d+|\$)(?:\s*,\s*(?:\d+|\$))?|/(?:\\[\s\S]|[^/\\])*/)?\s*")
_SAFE_COMMAND = re.compile(r"[dDgGhHlnNpPqQxz=]")
_SAFE_S_FLAGS = re.compile(r"[0-9gIpM]*")
_SAFE_OPTION = re.compile(r"-[nElrsuz]|--(?:quiet|silent|line-length(?:=.*)?)")
_VALUE_OPTIONS = ("-f", "--file", "-e", "--expression", "-l", "--line-length")
_COMPAT_UNKNOWN = re.compile(r"(?:^|[^\\])[ewr]\s")
_AWK_STATIC_WRITE = re.compile(
    r'\s*(?:print|printf)\b(?!\s*\()(?:(?:"(?:\\[\s\S]|[^"\\])*")|[^">|])*>>?\s*"[^"]*"\s*'
)
_AWK_UNKNOWN = re.compile(r"(?:system|close)\s*\(|getline\b")
_AWK_PRINT = re.compile(r"\b(?:print|printf)\b")


def merge_safety(*results: Safety) -> Safety:
    """The strictest verdict: any write wins, then any unknown."""
    if "write" in results:
        return "write"
    return "unknown" if "unknown" in results else "read-only"


def _scan_delimited(script: str, start: int, delimiter: str) -> int:
    """Index just after the next unescaped ``delimiter`` from ``start``; -1 if none."""
    escaped = False
    for i in range(start, len(script)):
        ch = script[i]
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == delimiter:
            return i + 1
    return -1


def _s_command_bounds(script: str, offset: int) -> int | None:
    """Start of the flags of the ``s`` command at ``offset``; None when malformed."""
    delimiter = script[offset + 1 : offset + 2]
    if not delimiter or delimiter == "\\" or delimiter.isspace():
        return None
    replacement = _scan_delimited(script, offset + 2, delimiter)
    if replacement < 0:
        return None
    flags = _scan_delimited(script, replacement, delimiter)
    return None if flags < 0 else flags


def _classify_single(script: str) -> Safety:
    compat_unknown = bool(_COMPAT_UNKNOWN.search(script))
    match = _ADDRESS.match(script)
    offset = match.end() if match else 0
    if offset == len(script):
        return "read-only"
    command = script[offset]
    if command in "wW":
        return "write" if script[offset + 1 :].strip() else "unknown"
    if command in "eErR":
        return "unknown"
    if command == "s":
        flags_start = _s_command_bounds(script, offset)
        if flags_start is None:
            return "unknown"
        flags = script[flags_start:].strip()
        if re.search(r"[;\n{}]", flags):
            return "unknown"
        if "w" in flags:
            return "write" if flags[flags.index("w") + 1 :].strip() else "unknown"
        if re.search(r"[eErRwW]", flags) or not _SAFE_S_FLAGS.fullmatch(flags):
            return "unknown"
        return "unknown" if compat_unknown else "read-only"
    if re.search(r"[;\n{}]", script[offset + 1 :]) or not _SAFE_COMMAND.fullmatch(command):
        return "unknown"
    return "unknown" if compat_unknown else "read-only"


def _next_separator(script: str, start: int) -> int:
    for i in range(start, len(script)):
        if script[i] in ";\n":
            return i
    return len(script)


def _classify_script(script: str) -> Safety:
    result: Safety = "read-only"
    start = 0
    while start < len(script):
        match = _ADDRESS.match(script, start)
        offset = match.end() if match else start
        if offset == len(script):
            return result
        command = script[offset]
        if command in "wW":
            return "write" if _classify_single(script[start:]) == "write" else "unknown"
        if command in "eErR" or (command != "s" and not _SAFE_COMMAND.fullmatch(command)):
            return "unknown"
        if command == "s":
            flags_start = _s_command_bounds(script, offset)
            if flags_start is None:
                return "unknown"
            separator = _next_separator(script, flags_start)
        else:
            separator = _next_separator(script, offset + 1)
        current = _classify_single(script[start:separator])
        if current == "write":
            return "write"
        if current == "unknown":
            result = "unknown"
        if separator == len(script):
            return result
        start = separator + 1
    return result


def classify_sed(args: list[str]) -> Safety:
    """Classify ``sed ARGS`` (the arguments after ``sed``)."""
    terminator = args.index("--") if "--" in args else len(args)
    options = args[:terminator]
    for index, arg in enumerate(options):
        if re.fullmatch(r"--help|--version", arg, re.IGNORECASE) and (
            index == 0 or options[index - 1] not in _VALUE_OPTIONS
        ):
            return "unknown"
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            break
        if arg in _VALUE_OPTIONS:
            i += 1
        elif re.match(r"-[nErsuz]*e.", arg):
            pass
        elif re.match(r"-[nErsuz]*[iI]|--in-place(?:=|$)", arg):
            return "write"
        i += 1
    scripts: list[str] = []
    script_indexes: set[int] = set()
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            if not scripts:
                if i + 1 >= len(args) or args[i + 1].startswith("-"):
                    return "unknown"
                scripts.append(args[i + 1])
                script_indexes.add(i + 1)
            break
        if arg in ("-l", "--line-length"):
            i += 1
            if i >= len(args) or not args[i]:
                return "unknown"
        elif re.match(r"-f|--file(?:=|$)", arg):
            return "unknown"
        elif arg in ("-e", "--expression"):
            i += 1
            if i >= len(args) or not args[i] or args[i].startswith("-"):
                return "unknown"
            scripts.append(args[i])
            script_indexes.add(i)
        elif re.match(r"-e.|--expression=", arg):
            script = arg[2:] if arg.startswith("-e") else arg[13:]
            if script.startswith("-"):
                return "unknown"
            scripts.append(script)
            script_indexes.add(i)
        elif re.match(r"--(?!line-length(?:=|$))", arg) or (
            arg.startswith("-") and not _SAFE_OPTION.fullmatch(arg)
        ):
            return "unknown"
        elif not arg.startswith("-") and not scripts:
            scripts.append(arg)
            script_indexes.add(i)
        i += 1
    result: Safety = "read-only"
    for script in scripts:
        current = _classify_script(script)
        if current == "write":
            return "write"
        if current == "unknown":
            result = "unknown"
    rest = " ".join(a for index, a in enumerate(args) if index not in script_indexes)
    return "unknown" if _COMPAT_UNKNOWN.search(rest) else result


def _split_awk(script: str) -> tuple[list[str], bool, bool]:
    """Statements of an awk program, plus (saw an ambiguous ``/``, saw ``@``)."""
    statements: list[str] = []
    ambiguous_slash = saw_at = False
    start = 0
    escaped = in_string = in_regex = False
    previous = ""
    i = 0
    while i < len(script):
        ch = script[i]
        if escaped:
            escaped = False
        elif (in_string or in_regex) and ch == "\\":
            escaped = True
        elif in_string:
            in_string = ch != '"'
        elif in_regex:
            in_regex = ch != "/"
        elif ch == '"':
            in_string = True
        elif ch == "/" and (not previous or previous in "({[=,:;!~?&|"):
            in_regex = True
        else:
            if ch == "/":
                ambiguous_slash = True
            if ch == "@":
                saw_at = True
            if ch == "#":
                statements.append(script[start:i])
                newline = script.find("\n", i + 1)
                if newline < 0:
                    return statements, ambiguous_slash, saw_at
                start = i = newline + 1
                previous = "\n"
                continue
            if ch in ";{}\n":
                statements.append(script[start:i])
                start = i + 1
                previous = ch
            elif not ch.isspace():
                previous = ch
        i += 1
    statements.append(script[start:])
    return statements, ambiguous_slash, saw_at


def _classify_awk_script(script: str) -> Safety:
    statements, ambiguous_slash, saw_at = _split_awk(script)
    if not ambiguous_slash and any(_AWK_STATIC_WRITE.fullmatch(s) for s in statements):
        return "write"
    if saw_at or _AWK_UNKNOWN.search(script):
        return "unknown"
    if _AWK_PRINT.search(script) and re.search(r"[>|]", script):
        return "unknown"
    return "read-only"


def classify_awk(args: list[str]) -> Safety:
    """Classify ``awk ARGS`` (the arguments after ``awk``)."""
    program_index = -1
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            program_index = i + 1
            break
        if arg in ("-F", "-v"):
            i += 1
            if i >= len(args) or not args[i]:
                return "unknown"
        elif re.match(r"-[Fv].", arg):
            pass
        elif arg.startswith("-"):
            return "unknown"
        else:
            program_index = i
            break
        i += 1
    if program_index < 0:
        return "read-only"
    if program_index >= len(args):
        return "unknown"
    result = _classify_awk_script(args[program_index])
    if result != "read-only":
        return result
    return "read-only" if _classify_awk_script(" ".join(args)) == "read-only" else "unknown"


def has_brace_expansion(text: str) -> bool:
    """True when ``text`` has a ``{a,b}`` or ``{1..3}`` that bash would expand."""
    depth = 0
    previous_dot = False
    for ch in text:
        if ch == "{":
            depth += 1
            previous_dot = False
        elif ch == "}":
            depth = max(0, depth - 1)
            previous_dot = False
        elif depth > 0:
            if ch == "," or (ch == "." and previous_dot):
                return True
            previous_dot = ch == "."
    return False


def has_pattern_expansion(text: str) -> bool:
    """Glob characters or brace expansion."""
    return bool(re.search(r"[\[*?]", text)) or has_brace_expansion(text)
