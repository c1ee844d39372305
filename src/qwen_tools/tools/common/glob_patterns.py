"""Glob patterns as node-glob reads them: brace expansion, segments, ``**`` closure.

Shared by ``glob`` and ``read_many_files`` so both tools match paths the same way: a pattern
becomes, per brace alternative, a start directory and a tuple of segments (case-insensitive
name matchers that match dotfiles, or ``**``). A walk tracks the live ``(pattern, segment
index)`` states of each directory; :class:`GlobAutomaton` caches what a directory's entries
do to a set of states, so a walk does little work per entry.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeAlias

import bracex
from wcmatch import fnmatch, glob as wcglob

from qwen_tools.tools.common.paths import js_join, js_resolve

__all__ = [
    "GLOB_FLAGS",
    "GlobAutomaton",
    "GlobStep",
    "Globstar",
    "NameSegment",
    "Segment",
    "State",
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


class NameSegment:
    """A name segment, matched as wcmatch's ``fnmatch`` matches it with :data:`GLOB_FLAGS`."""

    __slots__ = ("exclude", "fullmatch", "include")

    def __init__(self, part: str) -> None:
        include, exclude = fnmatch.translate(part, flags=GLOB_FLAGS)
        self.include = tuple(re.compile(rx) for rx in include)
        self.exclude = tuple(re.compile(rx) for rx in exclude)
        # :meth:`match`, faster: its result is only truthy or falsy.
        self.fullmatch: Callable[[str], object] = (
            self.include[0].fullmatch if len(self.include) == 1 and not self.exclude else self.match
        )

    def match(self, name: str) -> bool:
        """Whether ``name`` (one path component) matches."""
        if not any(rx.fullmatch(name) for rx in self.include):
            return False
        return not any(rx.fullmatch(name) for rx in self.exclude)


Segment: TypeAlias = "NameSegment | Globstar"
"""A compiled path segment: a name matcher or ``**``."""
State: TypeAlias = tuple[int, int]
"""``(pattern index, segment index)``: the next segment a path must match."""


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
            segments.append(NameSegment(part))
        if segments:
            compiled.append((js_resolve(base), tuple(segments)))
    return compiled


def globstar_closure(states: set[State], patterns: list[tuple[Segment, ...]]) -> None:
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


def _any_name(segments: list[NameSegment]) -> Callable[[str], object] | None:
    """A test for "one of ``segments`` matches the name" (one regex when possible)."""
    if len(segments) <= 1:
        return segments[0].fullmatch if segments else None
    if all(len(s.include) == 1 and not s.exclude for s in segments):
        try:
            joined = "|".join(f"(?:{s.include[0].pattern})" for s in segments)
            return re.compile(joined).fullmatch
        except re.error:
            pass
    return lambda name: any(s.match(name) for s in segments)


class GlobStep:
    """What the entries of a directory reached in one set of states do.

    An entry's name may match name segments (landing on the next segment), and every ``**``
    state swallows any entry (``consumed``); ``beyond`` are the states past a ``**`` that may
    enter one symlinked directory. ``consumed`` and ``beyond`` include the ``**`` closure.
    """

    __slots__ = ("_automaton", "_descend", "beyond", "consumed", "consumed_ends", "final", "names")

    def __init__(self, automaton: GlobAutomaton, states: frozenset[State]) -> None:
        patterns = automaton.patterns
        self._automaton = automaton
        self._descend: dict[str, frozenset[State]] = {}
        names: list[tuple[State, NameSegment]] = []
        consumed: set[State] = set()
        beyond: set[State] = set()
        for index, position in sorted(states):
            segment = patterns[index][position]
            if isinstance(segment, Globstar):
                consumed.add((index, position))
                if segment.follows_link:
                    beyond.add((index, position + 1))
            else:
                names.append(((index, position + 1), segment))
        globstar_closure(consumed, patterns)
        globstar_closure(beyond, patterns)
        self.names = tuple((state, segment.fullmatch) for state, segment in names)
        self.consumed = frozenset(consumed)
        self.beyond = frozenset(beyond)
        # Every entry that is no directory completes a pattern (through a ``**``).
        self.consumed_ends = automaton.ends(consumed)
        # Whether a name completes a pattern through a name segment (``None``: never).
        ending = [segment for (i, p), segment in names if p == len(patterns[i])]
        self.final = _any_name(ending)

    def landed(self, name: str) -> set[State]:
        """The states after the name segments that ``name`` matches (no closure yet)."""
        return {state for state, fullmatch in self.names if fullmatch(name)}

    def descend(self, name: str) -> frozenset[State]:
        """The live states inside a directory called ``name`` (empty: not entered)."""
        following = self._descend.get(name)
        if following is None:
            landed = self.landed(name)
            globstar_closure(landed, self._automaton.patterns)
            following = self._automaton.live(landed | self.consumed)
            if len(self._descend) >= 10_000:
                self._descend.clear()
            self._descend[name] = following
        return following


class GlobAutomaton:
    """The patterns of one walk, with a :class:`GlobStep` cached per set of states."""

    def __init__(self, patterns: list[tuple[Segment, ...]]) -> None:
        self.patterns = patterns
        self._steps: dict[frozenset[State], GlobStep] = {}

    def ends(self, states: Iterable[State]) -> bool:
        """Whether one of ``states`` has matched its whole pattern."""
        return any(position == len(self.patterns[index]) for index, position in states)

    def live(self, states: Iterable[State]) -> frozenset[State]:
        """The states that still have segments to match."""
        return frozenset((i, p) for i, p in states if p < len(self.patterns[i]))

    def start(self) -> frozenset[State]:
        """The states at the base directory (a pattern complete there names the base: dropped)."""
        start = {(i, 0) for i in range(len(self.patterns))}
        globstar_closure(start, self.patterns)
        return self.live(start)

    def step(self, states: frozenset[State]) -> GlobStep:
        """The (cached) step for a directory reached in ``states``."""
        step = self._steps.get(states)
        if step is None:
            step = self._steps[states] = GlobStep(self, states)
        return step
