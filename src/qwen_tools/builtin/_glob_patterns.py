"""Glob patterns as node-glob reads them: brace expansion, segments, ``**`` closure.

Shared by ``glob`` and ``read_many_files`` so both tools match paths the same way: a pattern
becomes, per brace alternative, a start directory and a tuple of segments (case-insensitive
name matchers that match dotfiles, or ``**``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeAlias

import bracex
from wcmatch import fnmatch
from wcmatch import glob as wcglob

from ._paths import js_join, js_resolve

__all__ = [
    "GLOB_FLAGS",
    "Globstar",
    "Segment",
    "compile_glob",
    "escape_glob",
    "globstar_closure",
]

GLOB_FLAGS = fnmatch.DOTMATCH | fnmatch.IGNORECASE | fnmatch.EXTMATCH | fnmatch.FORCEUNIX
"""Flags of every segment matcher: dotfiles, case-insensitive, extglob, POSIX paths."""
_MAGIC = wcglob.EXTGLOB | wcglob.BRACE
_ESCAPABLE = re.compile(r"[?*()\[\]\\]")


@dataclass(frozen=True, slots=True)
class Globstar:
    """A ``**`` segment; unless it starts the pattern it may enter one symlinked directory."""

    follows_link: bool


Segment: TypeAlias = "fnmatch.WcMatcher[str] | Globstar"
"""A compiled path segment: a name matcher or ``**``."""


def escape_glob(pattern: str) -> str:
    """Escape ``?*()[]\\`` as node-glob's ``escape`` does (braces still expand)."""
    return _ESCAPABLE.sub(r"\\\g<0>", pattern)


def compile_glob(
    pattern: str, search_dir: str, inside: Callable[[str], bool]
) -> list[tuple[str, tuple[Segment, ...]]]:
    """``(start directory, segments)`` for each brace alternative of ``pattern``.

    Leading ``.``/``..`` segments (and the root of an absolute pattern) move the start
    directory; literal segments are then taken into it until it lies inside the workspace.
    """
    try:
        alternatives = bracex.expand(pattern, keep_escapes=True)
    except Exception:
        alternatives = [pattern]
    compiled: list[tuple[str, tuple[Segment, ...]]] = []
    for alternative in alternatives:
        if not alternative or alternative.endswith("/"):
            continue  # a trailing slash only matches directories, which are never returned
        parts = alternative.split("/")
        total = len(parts)
        base = search_dir
        if alternative.startswith("/"):
            base, parts = "/", parts[1:]
        while parts and parts[0] in (".", ".."):
            base = js_join(base, parts.pop(0))
        while len(parts) > 1 and not wcglob.is_magic(parts[0], flags=_MAGIC) and not inside(base):
            base = js_join(base, parts.pop(0))
        segments: list[Segment] = []
        for offset, part in enumerate(parts, start=total - len(parts)):
            if part in ("", "."):
                continue
            if part == "**":
                if not segments or not isinstance(segments[-1], Globstar):
                    segments.append(Globstar(follows_link=offset > 0))
                continue
            segments.append(fnmatch.compile(part, flags=GLOB_FLAGS))
        if segments:
            compiled.append((js_resolve(base), tuple(segments)))
    return compiled


def globstar_closure(states: set[tuple[int, int]], patterns: list[tuple[Segment, ...]]) -> None:
    """Let every ``**`` also match zero segments."""
    pending = list(states)
    while pending:
        index, position = pending.pop()
        segments = patterns[index]
        if position < len(segments) and isinstance(segments[position], Globstar):
            following = (index, position + 1)
            if following not in states:
                states.add(following)
                pending.append(following)
