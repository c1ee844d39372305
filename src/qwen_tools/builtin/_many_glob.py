"""File search for read_many_files: several glob patterns, exclusion patterns, every workspace dir.

Patterns follow node-glob with ``{nodir, dot, nocase}`` as the glob tool does (the segment
matching of :mod:`.glob` is reused): ``**`` for any depth, ``{a,b}`` braces, extglobs, hidden
files included, case-insensitive; a pattern naming an existing path literally is escaped
first. Each pattern is searched from every workspace directory, after ``\\`` is turned into
``/`` (as the reference does).

Exclusion patterns are matched like node-glob's ``ignore`` option: against the path relative
to the directory searched (absolute patterns against the absolute path), hidden files
included, case-insensitive. A pattern ending in ``/**`` also prunes the directories it names,
so ``**/node_modules/**`` never walks a ``node_modules`` tree.

Symbolic links are followed as the glob tool follows them, but a link to a directory is never
returned as a file. A pattern whose literal start lies outside the workspace is not searched;
a literal path outside it is reported so the tool can say why it was skipped.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass, field

from wcmatch import glob as wcglob

from qwen_tools._contract.abort import AbortSignal

from ._glob_patterns import Globstar, Segment, compile_glob, escape_glob, globstar_closure
from ._paths import js_join, js_resolve

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
) -> FileSearch:
    """Search ``patterns`` from each of ``directories`` (realpath-resolved workspace dirs).

    ``inside`` answers whether a path lies in the workspace. Raises :class:`SearchAborted`.
    """
    result = FileSearch()
    rules = _Excludes(excludes)
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
                _walk(base, directory, compiled, rules, clean, inside, signal, result.files)
    return result


def _walk(
    base: str,
    cwd: str,
    patterns: list[tuple[Segment, ...]],
    rules: _Excludes,
    clean_base: bool,
    inside: Callable[[str], bool],
    signal: AbortSignal,
    found: dict[str, tuple[bool, bool]],
) -> None:
    """Walk from ``base``, one state ``(pattern, segment index)`` per live match."""
    prefix = cwd.rstrip("/") + "/"

    def relative(path: str) -> str:
        return path[len(prefix) :] if path.startswith(prefix) else os.path.relpath(path, cwd)

    def ends(states: set[tuple[int, int]]) -> bool:
        return any(position == len(patterns[index]) for index, position in states)

    def live(states: set[tuple[int, int]]) -> set[tuple[int, int]]:
        return {(i, p) for i, p in states if p < len(patterns[i])}

    start = {(i, 0) for i in range(len(patterns))}
    globstar_closure(start, patterns)
    start = live(start)  # a pattern already complete at the base names the base directory
    stack: list[tuple[str, set[tuple[int, int]], bool]] = [(base, start, clean_base)]
    while stack:
        if signal.aborted:
            raise SearchAborted
        directory, states, clean = stack.pop()
        try:
            with os.scandir(directory) as listing:
                entries = list(listing)
        except OSError:
            continue
        for entry in entries:
            landed: set[tuple[int, int]] = set()  # a name segment matched the entry
            consumed: set[tuple[int, int]] = set()  # a ``**`` swallowed the entry
            beyond: set[tuple[int, int]] = set()  # past a ``**`` that may enter a link
            for index, position in states:
                segment = patterns[index][position]
                if isinstance(segment, Globstar):
                    consumed.add((index, position))
                    if segment.follows_link:
                        beyond.add((index, position + 1))
                elif segment.match(entry.name):
                    landed.add((index, position + 1))
            if not landed and not consumed:
                continue
            exact = ends(landed)
            globstar_closure(landed, patterns)
            globstar_closure(consumed, patterns)
            try:
                is_link = entry.is_symlink()
                is_dir = entry.is_dir(follow_symlinks=False)
                regular = entry.is_file(follow_symlinks=False)
            except OSError:
                continue
            rel = relative(entry.path)
            if is_dir:
                if (following := live(landed | consumed)) and not rules.prunes(rel, entry.path):
                    stack.append((entry.path, following, clean))
                continue
            if is_link:
                try:
                    link_to_dir = stat.S_ISDIR(os.stat(entry.path).st_mode)
                except OSError:
                    link_to_dir = False
                if link_to_dir:  # entered like the glob tool enters it, never returned
                    globstar_closure(beyond, patterns)
                    following = live(landed | beyond)
                    enter = following and inside(entry.path) and not rules.prunes(rel, entry.path)
                    if enter:
                        stack.append((entry.path, following, False))
                    continue
            if (exact or ends(consumed)) and not rules.drops(rel, entry.path):
                found.setdefault(entry.path, (clean and not is_link, regular))
