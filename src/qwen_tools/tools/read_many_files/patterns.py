"""File search for read_many_files: several glob patterns, exclusion patterns, every workspace dir.

Patterns follow node-glob with ``{nodir, dot, nocase}`` as the glob tool does (the segment
matching of :mod:`~qwen_tools.tools.glob.tool` is reused): ``**`` for any depth, ``{a,b}`` braces, extglobs, hidden
files included, case-insensitive; a pattern naming an existing path literally is escaped
first. Each pattern is searched from every workspace directory, after ``\\`` is turned into
``/`` (as the reference does).

Exclusion patterns are matched like node-glob's ``ignore`` option: against the path relative
to the directory searched (absolute patterns against the absolute path), hidden files
included, case-insensitive. A pattern ending in ``/**`` also prunes the directories it names,
so ``**/node_modules/**`` never walks a ``node_modules`` tree.

Symbolic links are followed as the glob tool follows them, but a link to a directory is never
returned as a file. A pattern whose literal start lies outside the workspace is not searched;
a literal path outside it is reported so the tool can say why it was skipped. Every directory
is listed from a descriptor checked to lie inside the allowed roots
(:class:`qwen_tools.fs.confined.ConfinedOpener`), so a directory swapped for an outside
symlink mid-walk, or a symlinked directory leading outside, is never listed.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from wcmatch import glob as wcglob

from qwen_tools.contract.abort import AbortSignal
from qwen_tools.fs.confined import ConfinedOpener
from qwen_tools.tools.common.glob_patterns import (
    Globstar,
    Segment,
    compile_glob,
    escape_glob,
    globstar_closure,
)
from qwen_tools.tools.common.paths import js_join, js_resolve

__all__ = ["DEFAULT_EXCLUDES", "FileSearch", "SearchAborted", "search_files"]

# fmt: off
DEFAULT_EXCLUDES: tuple[str, ...] = (
    "**/node_modules/**", "**/.git/**", "**/bower_components/**", "**/.svn/**", "**/.hg/**",
    "**/.vscode/**", "**/.idea/**", "**/dist/**", "**/build/**", "**/coverage/**",
    "**/__pycache__/**",
    "**/*.bin", "**/*.exe", "**/*.dll", "**/*.so", "**/*.dylib", "**/*.class", "**/*.jar",
    "**/*.war", "**/*.zip", "**/*.tar", "**/*.gz", "**/*.bz2", "**/*.rar", "**/*.7z",
    "**/*.doc", "**/*.docx", "**/*.xls", "**/*.xlsx", "**/*.ppt", "**/*.pptx", "**/*.odt",
    "**/*.ods", "**/*.odp",
    "**/*.pyc", "**/*.pyo",
    "**/.DS_Store", "**/.env",
    "**/QWEN.md",
)
# fmt: on
"""Qwen Code's read_many_files default exclusions (``utils/ignorePatterns.ts``), in order."""

_FLAGS = (
    wcglob.GLOBSTAR
    | wcglob.DOTGLOB
    | wcglob.IGNORECASE
    | wcglob.BRACE
    | wcglob.EXTGLOB
    | wcglob.FORCEUNIX
)
_MAGIC = wcglob.EXTGLOB | wcglob.BRACE


class SearchAborted(Exception):
    """The abort signal fired during the search."""


@dataclass
class FileSearch:
    """What the search found: files (with whether they are known to be inside the workspace)
    and literal paths that lie outside it."""

    files: dict[str, tuple[bool, bool]] = field(default_factory=dict)
    """Absolute path → ``(clean, regular)``: *clean* when reached without symlinks from a
    workspace directory, *regular* when the entry is a regular file (not a link, FIFO …)."""
    outside: list[str] = field(default_factory=list)


_LITERAL = re.compile(r"[^*?\[\](){}!@+|\\/]+")


class _Excludes:
    """Compiled exclusion patterns: which files are dropped, which directories are pruned.

    The usual shapes are answered without regular expressions (they are slow when dozens of
    patterns are tried on thousands of paths): ``**/<name>/**`` (a directory anywhere),
    ``**/<name>`` (a file name anywhere) and ``**/*.<ext>`` (an extension anywhere). Other
    patterns go through :mod:`wcmatch`.
    """

    def __init__(self, patterns: list[str]) -> None:
        self._dirs: set[str] = set()
        self._names: set[str] = set()
        suffixes: list[str] = []
        relative: list[str] = []
        absolute: list[str] = []
        for pattern in patterns:
            body = pattern.removeprefix("**/")
            if body != pattern and body.endswith("/**") and _LITERAL.fullmatch(body[:-3]):
                self._dirs.add(body[:-3].lower())
            elif body != pattern and _LITERAL.fullmatch(body):
                self._names.add(body.lower())
            elif body.startswith("*.") and body != pattern and _LITERAL.fullmatch(body[2:]):
                suffixes.append(body[1:].lower())
            else:
                (absolute if pattern.startswith("/") else relative).append(pattern)
        self._suffixes = tuple(suffixes)

        def compile_all(items: list[str]) -> Callable[[str], bool] | None:
            return wcglob.compile(items, flags=_FLAGS).match if items else None

        self._relative = compile_all(relative)
        self._absolute = compile_all(absolute)
        self._prune_all = "**" in patterns
        self._children_relative = compile_all(
            [p[:-3] for p in relative if p.endswith("/**") and len(p) > 3]
        )
        self._children_absolute = compile_all(
            [p[:-3] for p in absolute if p.endswith("/**") and len(p) > 3]
        )

    def drops(self, rel: str, absolute: str) -> bool:
        """Whether a file is excluded."""
        lowered = rel.lower()
        parent, _, name = lowered.rpartition("/")
        if name in self._names or (self._suffixes and name.endswith(self._suffixes)):
            return True
        if parent and self._dirs and not self._dirs.isdisjoint(parent.split("/")):
            return True
        return bool(
            (self._relative is not None and self._relative(rel))
            or (self._absolute is not None and self._absolute(absolute))
        )

    def prunes(self, rel: str, absolute: str) -> bool:
        """Whether a directory's contents are excluded."""
        if self._prune_all or rel.rpartition("/")[2].lower() in self._dirs:
            return True
        return bool(
            (self._children_relative is not None and self._children_relative(rel))
            or (self._children_absolute is not None and self._children_absolute(absolute))
        )


def search_files(
    patterns: list[str],
    excludes: list[str],
    directories: list[str],
    inside: Callable[[str], bool],
    signal: AbortSignal,
    roots: Sequence[str],
) -> FileSearch:
    """Search ``patterns`` from each of ``directories`` (realpath-resolved workspace dirs).

    ``inside`` answers whether a path lies in the workspace (by its name); ``roots`` are the
    realpath-resolved directories every directory walked must really lie in, checked on the
    opened descriptor. Raises :class:`SearchAborted`.
    """
    result = FileSearch()
    rules = _Excludes(excludes)
    opener = ConfinedOpener(roots, directory=True)
    for directory in directories:
        groups: dict[str, list[tuple[Segment, ...]]] = {}
        for raw in patterns:
            pattern = raw.replace("\\", "/")
            exists = os.path.exists(js_join(directory, pattern))
            if not wcglob.is_magic(pattern, flags=_MAGIC):
                target = js_resolve(directory, pattern)
                if os.path.isfile(target) and not inside(target):
                    if target not in result.outside:
                        result.outside.append(target)
                    continue
            for base, segments in compile_glob(
                escape_glob(pattern) if exists else pattern, directory, inside
            ):
                groups.setdefault(base, []).append(segments)
        for base, compiled in groups.items():
            if inside(base):
                clean = os.path.realpath(base) == base
                _walk(base, directory, compiled, rules, clean, opener, signal, result.files)
    return result


_States = set[tuple[int, int]]
_Patterns = list[tuple[Segment, ...]]


def _ends(states: _States, patterns: _Patterns) -> bool:
    return any(position == len(patterns[index]) for index, position in states)


def _live(states: _States, patterns: _Patterns) -> _States:
    return {(i, p) for i, p in states if p < len(patterns[i])}


def _walk(
    base: str,
    cwd: str,
    patterns: _Patterns,
    rules: _Excludes,
    clean_base: bool,
    opener: ConfinedOpener,
    signal: AbortSignal,
    found: dict[str, tuple[bool, bool]],
) -> None:
    """Walk from ``base``, one state ``(pattern, segment index)`` per live match.

    Every directory is listed through a descriptor ``opener`` checked to lie inside the roots:
    one that is (or has been swapped for) a way outside is not walked, whatever its name said.
    """
    prefix = cwd.rstrip("/") + "/"

    def relative(path: str) -> str:
        return path[len(prefix) :] if path.startswith(prefix) else os.path.relpath(path, cwd)

    start = {(i, 0) for i in range(len(patterns))}
    globstar_closure(start, patterns)
    start = _live(start, patterns)  # a pattern already complete at the base names the base
    stack: list[tuple[str, _States, bool]] = [(base, start, clean_base)]
    while stack:
        if signal.aborted:
            raise SearchAborted
        directory, states, clean = stack.pop()
        try:
            fd = opener.open(directory)
        except OSError:  # vanished, unreadable, or outside (OutsideRootsError): not walked
            continue
        try:
            with os.scandir(fd) as listing:
                entries = list(listing)
            step = _Step(fd, directory, states, patterns, rules, clean, relative)
            for entry in entries:
                step.visit(entry, found, stack)
        except OSError:
            continue
        finally:
            os.close(fd)


class _Step:
    """The entries of one directory of :func:`_walk`, listed from its checked descriptor."""

    def __init__(
        self,
        fd: int,
        directory: str,
        states: _States,
        patterns: _Patterns,
        rules: _Excludes,
        clean: bool,
        relative: Callable[[str], str],
    ) -> None:
        self.fd, self.states, self.patterns = fd, states, patterns
        self.rules, self.clean, self.relative = rules, clean, relative
        self.prefix = directory if directory.endswith("/") else directory + "/"

    def visit(
        self,
        entry: os.DirEntry[str],
        found: dict[str, tuple[bool, bool]],
        stack: list[tuple[str, _States, bool]],
    ) -> None:
        patterns, rules = self.patterns, self.rules
        landed: _States = set()  # a name segment matched the entry
        consumed: _States = set()  # a ``**`` swallowed the entry
        beyond: _States = set()  # past a ``**`` that may enter a link
        for index, position in self.states:
            segment = patterns[index][position]
            if isinstance(segment, Globstar):
                consumed.add((index, position))
                if segment.follows_link:
                    beyond.add((index, position + 1))
            elif segment.match(entry.name):
                landed.add((index, position + 1))
        if not landed and not consumed:
            return
        exact = _ends(landed, patterns)
        globstar_closure(landed, patterns)
        globstar_closure(consumed, patterns)
        try:
            is_link = entry.is_symlink()
            is_dir = entry.is_dir(follow_symlinks=False)
            regular = entry.is_file(follow_symlinks=False)
        except OSError:
            return
        path = self.prefix + entry.name
        rel = self.relative(path)
        if is_dir:
            following = _live(landed | consumed, patterns)
            if following and not rules.prunes(rel, path):
                stack.append((path, following, self.clean))
            return
        if is_link:
            try:
                link_to_dir = stat.S_ISDIR(os.stat(entry.name, dir_fd=self.fd).st_mode)
            except OSError:
                link_to_dir = False
            if link_to_dir:  # entered like the glob tool enters it, never returned
                globstar_closure(beyond, patterns)
                following = _live(landed | beyond, patterns)
                # Entered only if it leads inside: the walk's checked open decides.
                if following and not rules.prunes(rel, path):
                    stack.append((path, following, False))
                return
        if (exact or _ends(consumed, patterns)) and not rules.drops(rel, path):
            found.setdefault(path, (self.clean and not is_link, regular))
