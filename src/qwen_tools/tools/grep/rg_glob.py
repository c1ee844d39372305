"""ripgrep's ``--glob`` for the Python engine: globset syntax, gitignore-style placement.

A ``--glob`` value is read like a gitignore line (ripgrep's overrides): ``!`` excludes instead
of including, a leading ``/`` anchors it at the working directory, a trailing ``/`` restricts it
to directories, a glob without a slash matches at any depth (``**/`` is prefixed) and ``dir/**``
matches the contents of ``dir`` only. The glob itself follows the ``globset`` crate: ``*`` and
``?`` never cross ``/``, ``**`` is recursive only as a whole path component, ``[...]``/``[!...]``
classes (no escapes inside), ``{a,b}`` alternatives (not nested; empty alternatives dropped) and
``\\`` escapes. Matching is case-sensitive, on the path relative to the working directory (the
absolute path, leading slash included, outside it).

An included glob decides for every file: matching files are searched even when ignored or
hidden, others are skipped. Directories are only entered by it when they match; otherwise the
ignore rules decide for them. Invalid globs raise :class:`GlobError` with ripgrep's wording.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["GlobError", "Override", "compile_override"]

_ZERO_OR_MORE, _PREFIX, _SUFFIX, _MIDDLE = "[^/]*", "(?:/?|.*/)", "/.*", "(?:/|/.*/)"


class GlobError(Exception):
    """An invalid glob; ``str()`` is ripgrep's message (``error parsing glob '…': …``)."""


@dataclass(frozen=True, slots=True)
class Override:
    """A compiled ``--glob``."""

    regex: re.Pattern[str]
    excludes: bool
    dir_only: bool

    def decide(self, relative: str, is_dir: bool) -> bool | None:
        """True: skip the entry; False: take it regardless of ignore rules; None: no say."""
        matched = (is_dir or not self.dir_only) and self.regex.fullmatch(relative) is not None
        if self.excludes:
            return True if matched else None
        if matched:
            return False
        return None if is_dir else True


class _Parser:
    """globset's tokenizer, producing regex pieces (``tokens`` per alternative)."""

    def __init__(self, glob: str, original: str) -> None:
        self.glob = glob
        self.original = original
        self.i = 0
        self.stack: list[list[str]] = [[]]

    def error(self, message: str) -> GlobError:
        return GlobError(f"error parsing glob '{self.original}': {message}")

    def parse(self) -> str:
        prev = ""
        while self.i < len(self.glob):
            c = self.glob[self.i]
            self.i += 1
            if c == "?":
                self.stack[-1].append("[^/]")
            elif c == "*":
                self.star(prev)
            elif c == "[":
                self.char_class()
            elif c == "{":
                if len(self.stack) > 1:
                    raise self.error("nested alternate groups are not allowed")
                self.stack.append([])
            elif c == "}" and len(self.stack) > 1:
                self.close_alternates()
            elif c == "," and len(self.stack) > 1:
                self.stack.append([])
            elif c == "\\":
                if self.i >= len(self.glob):
                    raise self.error("dangling '\\'")
                self.stack[-1].append(re.escape(self.glob[self.i]))
                self.i += 1
            else:
                self.stack[-1].append(re.escape(c))
            prev = self.glob[self.i - 1]
        if len(self.stack) > 1:
            raise self.error("unclosed alternate group; missing '}' (maybe escape '{' with '[{]'?)")
        tokens = self.stack[0]
        return ".*" if tokens == [_PREFIX] else "".join(tokens)

    def close_alternates(self) -> None:
        alternatives = []
        while len(self.stack) > 1:
            alternatives.append("".join(self.stack.pop()))
        parts = [a for a in reversed(alternatives) if a]
        if parts:
            self.stack[-1].append("(?:" + "|".join(parts) + ")")

    def star(self, prev: str) -> None:
        tokens = self.stack[-1]
        if self.glob[self.i : self.i + 1] != "*":
            tokens.append(_ZERO_OR_MORE)
            return
        self.i += 1
        nxt = self.glob[self.i : self.i + 1]
        if not tokens:
            if nxt not in ("", "/"):
                tokens += [_ZERO_OR_MORE, _ZERO_OR_MORE]
            else:
                tokens.append(_PREFIX)
                self.i += len(nxt)
            return
        if prev != "/" and (len(self.stack) <= 1 or prev not in (",", "{")):
            tokens += [_ZERO_OR_MORE, _ZERO_OR_MORE]
            return
        if nxt == "" or (nxt in (",", "}") and len(self.stack) > 1):
            suffix = True
        elif nxt == "/":
            self.i += 1
            suffix = False
        else:
            tokens += [_ZERO_OR_MORE, _ZERO_OR_MORE]
            return
        last = tokens.pop()
        tokens.append(last if last in (_PREFIX, _SUFFIX) else _SUFFIX if suffix else _MIDDLE)

    def char_class(self) -> None:
        negated = self.glob[self.i : self.i + 1] in ("!", "^")
        self.i += negated
        ranges: list[list[str]] = []
        first, in_range = True, False
        while True:
            if self.i >= len(self.glob):
                raise self.error("unclosed character class; missing ']'")
            c = self.glob[self.i]
            self.i += 1
            if c == "]" and not first:
                break
            if c == "-" and not first and not in_range:
                in_range = True
            elif in_range:
                if c < ranges[-1][0]:
                    raise self.error(f"invalid range; '{ranges[-1][0]}' > '{c}'")
                ranges[-1][1] = c
                in_range = False
            else:
                ranges.append([c, c])
            first = False
        if in_range:
            ranges.append(["-", "-"])
        body = "".join(
            re.escape(a) if a == b else f"{re.escape(a)}-{re.escape(b)}" for a, b in ranges
        )
        self.stack[-1].append(f"[{'^' if negated else ''}{body}]")


def compile_override(glob: str) -> Override | None:
    """Compile a ``--glob`` value (None when, like a comment line, it adds no glob)."""
    line = glob if glob.endswith("\\ ") else glob.rstrip()
    if not line or line.startswith("#"):
        return None
    original, excludes, anchored = line, False, False
    if line.startswith(("\\!", "\\#")):
        line = line[1:]
        anchored = line.startswith("/")
    else:
        if line.startswith("!"):
            excludes, line = True, line[1:]
        if line.startswith("/"):
            anchored, line = True, line[1:]
    dir_only = line.endswith("/")
    if dir_only:
        line = line[:-1]
        if line.endswith("\\"):
            line = line[:-1]
    if not anchored and "/" not in line and not (line.startswith("**/") or line == "**"):
        line = "**/" + line
    if line.endswith("/**"):
        line += "/*"
    source = _Parser(line, original).parse()
    return Override(re.compile(source, re.DOTALL), excludes, dir_only)
