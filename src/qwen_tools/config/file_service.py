"""Ignore-file handling: ``.gitignore`` (inside git repositories) and ``.qwenignore``.

:class:`FileDiscoveryService` answers "should the tools skip this path?" for one project root.

* **Git rules** apply only inside a git work tree: ``.git`` (and everything below it) is always
  ignored; ``.git/info/exclude`` and each ``.gitignore`` from the repository top level down to
  the path's directory apply relative to their own directory, deeper files overriding
  shallower ones. As in git, the contents of an ignored directory stay ignored even when a
  later pattern negates them.
* **Qwen rules** come from ``.qwenignore`` plus the custom ignore files (default
  ``.agentignore``, ``.aiignore``), each read only at the project root, with the same
  semantics. They apply whether or not the root is a git repository.

Patterns follow git's wildmatch rules (see :mod:`.ignore_rules`). Each ignore file is parsed
once; call
:meth:`FileDiscoveryService.clear_cache` after editing one mid-session.
"""

from __future__ import annotations

import copy
import logging
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from qwen_tools.config.ignore_rules import (
    EntryFilter,
    IgnoreChain,
    IgnoreMatcher,
    IgnoreSource,
    always_ignored,
    load_ignore_file,
    never_ignored,
)

__all__ = ["QWEN_IGNORE_FILE_NAME", "FileDiscoveryService", "FileFilteringOptions", "FilterReport"]

_log = logging.getLogger(__name__)

QWEN_IGNORE_FILE_NAME = ".qwenignore"
"""The Qwen ignore file that is always consulted."""


@dataclass(frozen=True)
class FileFilteringOptions:
    """Which ignore rules a file listing should honour."""

    respect_git_ignore: bool = True
    respect_qwen_ignore: bool = True


@dataclass
class FilterReport:
    """Result of :meth:`FileDiscoveryService.filter_files_with_report`."""

    filtered_paths: list[str]
    git_ignored_count: int
    qwen_ignored_count: int


def _single(source: IgnoreSource) -> IgnoreChain:
    """A chain with the same single source for every directory."""
    return lambda _directory: (source,)


def _find_git_root(start: str) -> tuple[str, str] | None:
    """``(work tree top, path of .git)`` for the nearest ancestor of ``start`` with ``.git``."""
    for directory in (start, *map(str, Path(start).parents)):
        candidate = os.path.join(directory, ".git")
        if os.path.isdir(candidate) or os.path.isfile(candidate):
            return directory, candidate
    return None


def _exclude_file(dot_git: str) -> str:
    """``info/exclude`` for a ``.git`` directory or ``gitdir:`` file (worktrees included)."""
    git_dir = dot_git
    try:
        if os.path.isfile(dot_git):
            with open(dot_git, encoding="utf-8", errors="replace") as fh:
                first = fh.readline().strip()
            git_dir = os.path.join(os.path.dirname(dot_git), first.removeprefix("gitdir:").strip())
        with open(os.path.join(git_dir, "commondir"), encoding="utf-8") as fh:
            git_dir = os.path.join(git_dir, fh.read().strip())
    except OSError:
        pass
    return os.path.join(git_dir, "info", "exclude")


def _invalid_custom_name(name: str) -> str | None:
    """Why a custom ignore-file name is rejected, or ``None`` when it is acceptable."""
    if not name:
        return "empty path"
    if os.path.isabs(name) or name.startswith("/"):
        return "absolute paths are not allowed"
    if "\0" in name:
        return "null bytes are not allowed"
    if name == QWEN_IGNORE_FILE_NAME:
        return f"{QWEN_IGNORE_FILE_NAME} is always included"
    if ".." in name.split("/"):
        return "parent directory segments are not allowed"
    return None


class FileDiscoveryService:
    """Decides which paths under one project root are git-ignored or qwen-ignored.

    Paths may be absolute or relative to the project root. The root itself, paths outside it
    and paths containing a NUL byte are never ignored. ``is_dir`` arguments: ``None`` asks the
    file system (a trailing ``/`` means a directory, a missing path is a file); ``False`` for
    an existing directory deliberately tests it *as a file*, so directory-only patterns such
    as ``build/`` do not match it (the reference's list_directory behaviour), although the
    directory's contents are still ignored.
    """

    def __init__(
        self,
        project_root: str | os.PathLike[str],
        custom_ignore_files: Sequence[str] = (".agentignore", ".aiignore"),
    ) -> None:
        """Create the service; invalid custom ignore-file names are dropped with a warning.

        A custom name is invalid when empty, absolute, containing NUL or a ``..`` segment, or
        equal to ``.qwenignore``. Duplicates are dropped silently.
        """
        given = os.path.abspath(os.fspath(project_root))
        self.project_root: Path = Path(os.path.realpath(given))
        root = str(self.project_root)
        self._roots = tuple(dict.fromkeys((root, given)))
        names: list[str] = []
        for raw in custom_ignore_files:
            candidate = raw.strip().replace("\\", "/")
            reason = _invalid_custom_name(candidate)
            if reason is not None:
                _log.warning("Skipping custom ignore file %r: %s", raw, reason)
            elif candidate not in names:
                names.append(candidate)
        self._custom_names = names
        self._git = _find_git_root(root)
        self.clear_cache()

    def fresh(self) -> FileDiscoveryService:
        """A service for the same root, custom names and git work tree, with nothing parsed yet.

        What a new session on the same project gets without resolving the root and looking for
        the git work tree again: its ignore files are read afresh, on first use.
        """
        twin = copy.copy(self)
        twin.clear_cache()
        return twin

    def clear_cache(self) -> None:
        """Forget parsed ignore files and cached decisions (re-read on next use)."""
        self._chains: dict[str, tuple[IgnoreSource, ...]] = {}
        self._git_matcher: IgnoreMatcher | None = None
        self._qwen_matchers: list[tuple[str, IgnoreMatcher]] | None = None

    def is_git_repository(self) -> bool:
        """Whether the project root is inside a git work tree (``.git`` here or above)."""
        return self._git is not None

    def _git_chain(self, directory: str) -> tuple[IgnoreSource, ...]:
        """Sources for entries of git-relative ``directory``, shallowest first (memoised)."""
        assert self._git is not None
        top, dot_git = self._git
        chains = self._chains
        pending = [directory]
        while (chain := chains.get(pending[-1])) is None and pending[-1]:
            pending.append(pending[-1].rpartition("/")[0])
        if chain is not None:
            pending.pop()
        else:  # the top level starts with info/exclude
            exclude = load_ignore_file(_exclude_file(dot_git), "", "exclude")
            chain = (exclude,) if exclude is not None else ()
        for name in reversed(pending):
            path = os.path.join(top, name, ".gitignore")
            own = load_ignore_file(path, name + "/" if name else "", ".gitignore")
            chain = (*chain, own) if own is not None else chain
            chains[name] = chain
        return chain

    def _relative(
        self, path: str | os.PathLike[str], is_dir: bool | None
    ) -> tuple[str, bool] | None:
        """``(project-relative posix path, is_dir)``, or ``None`` when never ignorable."""
        raw = os.fspath(path)
        if not raw or "\0" in raw:
            return None
        absolute = os.path.normpath(os.path.join(self._roots[0], raw))
        for root in self._roots:
            prefix = root if root.endswith(os.sep) else root + os.sep
            if absolute.startswith(prefix) and len(absolute) > len(prefix):
                if is_dir is None:
                    is_dir = raw.endswith(("/", os.sep)) or os.path.isdir(absolute)
                return absolute[len(prefix) :].replace(os.sep, "/"), is_dir
        return None

    def should_git_ignore_file(
        self, path: str | os.PathLike[str], is_dir: bool | None = None
    ) -> bool:
        """Whether git would ignore ``path`` (always False outside a git repository)."""
        if self._git is None:
            return False
        matcher = self._git_ignore_matcher()
        normalised = self._relative(path, is_dir)
        if normalised is None:
            return False
        rel, directory = normalised
        return "/.git/" in f"/{rel}/" or matcher.ignores(rel, directory)

    def _git_ignore_matcher(self) -> IgnoreMatcher:
        assert self._git is not None
        if self._git_matcher is None:
            prefix = os.path.relpath(self._roots[0], self._git[0]).replace(os.sep, "/")
            self._git_matcher = IgnoreMatcher(
                "" if prefix == "." else prefix + "/", self._git_chain
            )
        return self._git_matcher

    def qwen_ignore_file_names(self) -> list[str]:
        """``.qwenignore`` followed by the valid custom ignore-file names."""
        return [QWEN_IGNORE_FILE_NAME, *self._custom_names]

    def qwen_ignore_source(
        self, path: str | os.PathLike[str], is_dir: bool | None = None
    ) -> str | None:
        """The name of the first Qwen ignore file whose patterns ignore ``path``, if any."""
        matchers = self._qwen_ignore_matchers()
        if not matchers:
            return None
        normalised = self._relative(path, is_dir)
        if normalised is None:
            return None
        rel, directory = normalised
        return next((n for n, m in matchers if m.ignores(rel, directory)), None)

    def _qwen_ignore_matchers(self) -> list[tuple[str, IgnoreMatcher]]:
        if self._qwen_matchers is None:
            self._qwen_matchers = []
            for name in self.qwen_ignore_file_names():
                source = load_ignore_file(os.path.join(self._roots[0], name), "", name)
                if source is not None:
                    self._qwen_matchers.append((name, IgnoreMatcher("", _single(source))))
        return self._qwen_matchers

    def should_qwen_ignore_file(
        self, path: str | os.PathLike[str], is_dir: bool | None = None
    ) -> bool:
        """Whether ``.qwenignore`` or a custom ignore file ignores ``path``."""
        return self.qwen_ignore_source(path, is_dir) is not None

    def should_ignore_file(
        self,
        path: str | os.PathLike[str],
        options: FileFilteringOptions = FileFilteringOptions(),
        is_dir: bool | None = None,
    ) -> bool:
        """Whether ``path`` is ignored by the rules ``options`` enables."""
        if options.respect_git_ignore and self.should_git_ignore_file(path, is_dir):
            return True
        return options.respect_qwen_ignore and self.should_qwen_ignore_file(path, is_dir)

    def entry_filter(
        self, directory: str, options: FileFilteringOptions = FileFilteringOptions()
    ) -> EntryFilter:
        """A test ``(name, is_dir)`` for the entries of one directory, for fast walks.

        ``directory`` is project-relative in POSIX form (``""`` for the root, no leading or
        trailing ``/``, no ``.`` or ``..`` parts) and names contain no ``/`` or NUL: the test
        answers ``should_ignore_file(f"{directory}/{name}", options, is_dir)``.
        """
        tests: list[EntryFilter] = []
        if options.respect_git_ignore and self._git is not None:
            if "/.git/" in f"/{directory}/":
                return always_ignored
            git = self._git_ignore_matcher().entry_filter(directory)
            if git is never_ignored:
                tests.append(lambda name, _is_dir: name == ".git")
            else:
                tests.append(lambda name, is_dir: name == ".git" or git(name, is_dir))
        if options.respect_qwen_ignore:
            tests.extend(
                test
                for _, matcher in self._qwen_ignore_matchers()
                if (test := matcher.entry_filter(directory)) is not never_ignored
            )
        if not tests:
            return never_ignored
        if len(tests) == 1:
            return tests[0]
        return lambda name, is_dir: any(test(name, is_dir) for test in tests)

    def filter_files_with_report(
        self,
        paths: Iterable[str],
        options: FileFilteringOptions = FileFilteringOptions(),
    ) -> FilterReport:
        """Keep the paths no enabled rule ignores, counting git- and qwen-ignored ones.

        A path ignored by git is counted as git-ignored even if a Qwen file also ignores it.
        """
        report = FilterReport([], 0, 0)
        for path in paths:
            if options.respect_git_ignore and self.should_git_ignore_file(path):
                report.git_ignored_count += 1
            elif options.respect_qwen_ignore and self.should_qwen_ignore_file(path):
                report.qwen_ignored_count += 1
            else:
                report.filtered_paths.append(path)
        return report
