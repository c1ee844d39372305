"""The directory walk of ``glob``: matches below a search directory, depth first.

Per directory: one listing, entry kinds from ``d_type``, names tested against the step of
:class:`~qwen_tools.tools.common.glob_patterns.GlobAutomaton` cached for its set of states; only matched files are
stat-ed (for their mtime) and only entries that would be returned or entered are tested against
the ignore rules (directories as directories, so ``build/`` prunes a whole tree).

The boundary holds on what is opened: every directory is listed from a descriptor checked to
lie inside the workspace (:class:`qwen_tools.fs.confined.ConfinedOpener`, one ``readlink``
per directory), and entries are stat-ed relative to that descriptor. A directory swapped for an
outside symlink at any moment is therefore never listed, and a symlinked directory is entered
only when it really leads inside. Symbolic links are reported like files; a symlinked
directory is entered only through a name segment, or once by a ``**`` that does not start the
pattern (as node-glob with ``follow: false`` does).
"""

from __future__ import annotations

import operator
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass

from qwen_tools.config.config import Config
from qwen_tools.config.ignore_rules import EntryFilter, never_ignored
from qwen_tools.contract.abort import AbortSignal
from qwen_tools.fs.confined import ConfinedOpener, OutsideRootsError
from qwen_tools.tools.common.glob_patterns import (
    GlobAutomaton,
    GlobStep,
    Segment,
    State,
    compile_glob,
    escape_glob,
    globstar_closure,
)
from qwen_tools.tools.common.paths import js_join

__all__ = ["GlobAborted", "GlobMatch", "GlobWalker"]

_NAME = operator.attrgetter("name")
_IS_DIR = os.DirEntry.is_dir
_IS_SYMLINK = os.DirEntry.is_symlink


@dataclass(slots=True)
class GlobMatch:
    """A matching file and its modification time (of the link itself for symlinks)."""

    path: str
    mtime_ms: float


class GlobAborted(Exception):
    """The abort signal fired during the walk."""


class GlobWalker:
    """Walks the directories of one ``glob`` call for one session's :class:`Config`."""

    def __init__(self, config: Config) -> None:
        self.config = config

    def matches(self, search_dir: str, pattern: str, signal: AbortSignal) -> Iterator[GlobMatch]:
        """Matches below ``search_dir``, depth first, names in sorted order.

        Raises :class:`OutsideRootsError` when ``search_dir`` itself, opened, lies outside.
        """
        if os.path.exists(js_join(search_dir, pattern)):
            pattern = escape_glob(pattern)
        inside = self.config.workspace.is_path_within_workspace
        groups: dict[str, list[tuple[Segment, ...]]] = {}
        for base, segments in compile_glob(pattern, search_dir, inside):
            groups.setdefault(base, []).append(segments)
        for base, patterns in groups.items():
            if inside(base):
                strict = base == search_dir
                yield from self._walk(base, GlobAutomaton(patterns), signal, strict=strict)

    def _entry_filter(self, directory: str) -> EntryFilter:
        """Which entries of ``directory`` the ignore files hide (none outside the project)."""
        root = str(self.config.target_dir)
        if directory == root:
            relative = ""
        elif directory.startswith(prefix := root if root.endswith("/") else root + "/"):
            relative = directory[len(prefix) :]
        else:
            return never_ignored
        return self.config.file_service.entry_filter(relative, self.config.file_filtering)

    def _walk(
        self, base: str, automaton: GlobAutomaton, signal: AbortSignal, *, strict: bool
    ) -> Iterator[GlobMatch]:
        """Walk from ``base`` with one state ``(pattern, segment index)`` per live match.

        Every directory is listed from a descriptor checked to lie inside the workspace (one
        readlink per directory), so a directory swapped for an outside symlink at any moment
        is not listed, and a symlinked directory is entered only when it really leads inside.
        A refused ``base`` raises :class:`OutsideRootsError` when ``strict``; any other
        directory that cannot be opened is skipped.
        """
        opener = ConfinedOpener(self.config.workspace.roots(), directory=True)
        stack: list[tuple[str, frozenset[State]]] = [(base, automaton.start())]
        while stack:
            if signal.aborted:
                raise GlobAborted
            directory, states = stack.pop()
            try:
                fd = opener.open(directory)
            except OutsideRootsError:
                if strict and directory == base:
                    raise
                continue
            except OSError:
                continue
            try:
                yield from self._walk_directory(fd, directory, states, automaton, stack)
            finally:
                os.close(fd)

    def _walk_directory(
        self,
        fd: int,
        directory: str,
        states: frozenset[State],
        automaton: GlobAutomaton,
        stack: list[tuple[str, frozenset[State]]],
    ) -> Iterator[GlobMatch]:
        """One directory of :meth:`_walk`, listed from its checked descriptor ``fd``.

        One listing, entry kinds from ``d_type``, names tested against the step cached for
        its set of states; only matched files are stat-ed (for their mtime, relative to
        ``fd``) and only entries that would be returned or entered are tested against the
        ignore rules. A directory holding a symlinked directory (or whose entry kinds cannot
        be read) goes entry by entry instead, applying the symlink rules.
        """
        try:
            with os.scandir(fd) as listing:
                entries = list(listing)
        except OSError:
            return
        step = automaton.step(states)
        prefix = directory if directory.endswith("/") else directory + "/"
        try:  # is_dir() follows symlinks: only a symlinked directory needs more care
            subdirectories = list(filter(_IS_DIR, entries))
            plain = not any(map(_IS_SYMLINK, subdirectories))
        except OSError:
            plain = False
        if not plain:
            yield from self._walk_entries(fd, directory, entries, automaton, step, stack)
            return
        # Any other entry (a symlink too) is matched like a file.
        dirs = sorted(map(_NAME, subdirectories))
        names: list[str]
        if step.consumed_ends:
            names = list(map(_NAME, entries))
        elif step.final is not None:
            names = list(filter(step.final, map(_NAME, entries)))
        else:
            names = []
        if names and dirs:
            skip = set(dirs)
            names = [name for name in names if name not in skip]
        ignored = None
        children: list[tuple[str, frozenset[State]]] = []
        for name in dirs:
            if following := step.descend(name):
                if ignored is None:
                    ignored = self._entry_filter(directory)
                if not ignored(name, True):
                    children.append((prefix + name, following))
        names.sort()
        for name in names:
            if ignored is None:
                ignored = self._entry_filter(directory)
            if ignored(name, False):
                continue
            try:
                info = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except OSError:
                continue
            yield GlobMatch(prefix + name, info.st_mtime_ns / 1_000_000)
        stack.extend(reversed(children))

    def _walk_entries(
        self,
        fd: int,
        directory: str,
        entries: list[os.DirEntry[str]],
        automaton: GlobAutomaton,
        step: GlobStep,
        stack: list[tuple[str, frozenset[State]]],
    ) -> Iterator[GlobMatch]:
        """One directory holding a symlinked directory, entry by entry."""
        ignored = self._entry_filter(directory)
        prefix = directory if directory.endswith("/") else directory + "/"
        patterns = automaton.patterns
        children: list[tuple[str, frozenset[State]]] = []
        for entry in sorted(entries, key=_NAME):
            landed = step.landed(entry.name)  # a name segment matched the entry
            if not landed and not step.consumed:  # nor did a ``**`` swallow it
                continue
            exact = automaton.ends(landed)
            globstar_closure(landed, patterns)
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            is_dir = stat.S_ISDIR(info.st_mode)
            if ignored(entry.name, is_dir):
                continue
            path = prefix + entry.name
            if is_dir:
                if following := automaton.live(landed | step.consumed):
                    children.append((path, following))
                continue
            # A trailing ``**`` matching nothing needs something to descend into: only
            # a symlink to a directory qualifies (it is reported, being no directory).
            link_to_dir = stat.S_ISLNK(info.st_mode) and _is_directory_at(fd, entry.name)
            if exact or step.consumed_ends or (link_to_dir and automaton.ends(landed)):
                yield GlobMatch(path, info.st_mtime_ns / 1_000_000)
            # A symlinked directory is entered through a name segment, or by a ``**``
            # that does not start the pattern (which then stops there, as in node-glob),
            # and only when it leads inside the workspace: the walk's checked open decides.
            following = automaton.live(landed | step.beyond)
            if following and link_to_dir:
                children.append((path, following))
        stack.extend(reversed(children))


def _is_directory_at(fd: int, name: str) -> bool:
    """Whether ``name`` in the directory ``fd`` leads to a directory (following symlinks)."""
    try:
        return stat.S_ISDIR(os.stat(name, dir_fd=fd).st_mode)
    except OSError:
        return False
