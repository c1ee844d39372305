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

Patterns follow git's wildmatch rules (``*``, ``?``, ``[...]``, ``**``, ``!`` negation,
trailing-``/`` directory-only patterns, backslash escapes); the translation is checked against
``git check-ignore`` in the tests. Each ignore file is parsed once; call
:meth:`FileDiscoveryService.clear_cache` after editing one mid-session.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["QWEN_IGNORE_FILE_NAME", "FileDiscoveryService", "FileFilteringOptions", "FilterReport"]

_log = logging.getLogger(__name__)

QWEN_IGNORE_FILE_NAME = ".qwenignore"
"""The Qwen ignore file that is always consulted."""

_DIR_CACHE_MAX = 200_000
_Rule = tuple[str, bool, bool]  # (regex, negated, directory-only)
_Chain = Callable[[str], Sequence["_Source"]]

# POSIX bracket classes, as regex class bodies.
# fmt: off
_CLASSES = {
    "alnum": "a-zA-Z0-9", "alpha": "a-zA-Z", "digit": "0-9", "lower": "a-z", "upper": "A-Z",
    "xdigit": "0-9a-fA-F", "space": r"\s", "blank": r"\t\x20", "punct": r"!-/:-@\[-`{-~",
    "print": r"\x20-~", "graph": "!-~", "cntrl": r"\x00-\x1f",
}
# fmt: on


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


def _bracket(seg: str, start: int) -> tuple[str, int] | None:
    """Translate the ``[...]`` opening at ``start``: (regex, next index), None if unterminated."""
    i = start + 1
    negate = i < len(seg) and seg[i] in "!^"
    i += negate
    body: list[str] = []
    while i < len(seg):
        ch = seg[i]
        if ch == "]" and i > start + 1 + negate:
            joined = "".join(body)
            return (f"[^/{joined}]" if negate else f"(?!/)[{joined}]"), i + 1
        if seg.startswith("[:", i) and (end := seg.find(":]", i + 2)) != -1:
            if seg[i + 2 : end] not in _CLASSES:
                return None  # git rejects unknown classes: the pattern never matches
            body.append(_CLASSES[seg[i + 2 : end]])
            i = end + 2
            continue
        if ch == "\\" and i + 1 < len(seg):
            i += 1
            ch = seg[i]
        body.append(ch if ch == "-" else re.escape(ch))
        i += 1
    return None


def _segment(seg: str) -> str | None:
    """Translate one path component of a pattern (``None``: the pattern never matches)."""
    out: list[str] = []
    i = 0
    while i < len(seg):
        ch = seg[i]
        if ch == "[":
            translated = _bracket(seg, i)
            if translated is None:
                return None
            out.append(translated[0])
            i = translated[1]
            continue
        if ch == "*":
            while seg.startswith("*", i + 1):
                i += 1
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        else:
            if ch == "\\" and i + 1 < len(seg):
                i += 1
            out.append(re.escape(seg[i]))
        i += 1
    return "".join(out)


def _translate(line: str) -> _Rule | None:
    """The rule for one gitignore line, or ``None`` when it can never match.

    The regex is full-matched against a path relative to the ignore file's directory and
    matches that path only; contents of matched directories are handled by the caller.
    """
    pat = line.rstrip(" ")
    if pat.endswith("\\") and len(pat) < len(line):
        pat += " "  # an escaped trailing space survives
    negated = pat.startswith("!")
    pat = pat[negated:]
    dir_only = pat.endswith("/")
    pat = pat.rstrip("/")
    parts: list[str] = [] if "/" in pat else ["(?:.*/)?"]  # no slash: match at any depth
    segments = pat.lstrip("/").split("/")
    if segments == [""]:
        return None
    sep = ""
    for index, seg in enumerate(segments):
        if seg == "**":  # leading/middle: zero or more directories; trailing: everything inside
            parts.append(sep + (".*" if index == len(segments) - 1 else "(?:.*/)?"))
            sep = ""
            continue
        translated = _segment(seg)
        if translated is None:
            return None
        parts.append(sep + translated)
        sep = "/"
    return "".join(parts), negated, dir_only


class _Source:
    """One parsed ignore file whose patterns apply below ``base`` (``""`` or ``"a/b/"``).

    The rules are combined into one regex for directories and one for files (which skip
    directory-only rules), alternatives in reverse order, so the alternative that matches is
    the last matching line: git's "last match wins".
    """

    __slots__ = ("base", "for_dirs", "for_files", "name", "negated")

    def __init__(self, base: str, name: str, rules: list[_Rule]) -> None:
        self.base = base
        self.name = name
        self.negated = [negated for _, negated, _ in rules]
        alternatives = [(f"(?P<r{i}>{rx})", d) for i, (rx, _, d) in enumerate(rules)][::-1]
        files = [alt for alt, dir_only in alternatives if not dir_only]
        self.for_dirs = re.compile("|".join(alt for alt, _ in alternatives), re.S)
        self.for_files = re.compile("|".join(files), re.S) if files else None

    def check(self, rel: str, is_dir: bool) -> bool | None:
        """True (ignored), False (re-included by ``!``) or None (no pattern matched)."""
        if self.base:
            if not rel.startswith(self.base):
                return None
            rel = rel[len(self.base) :]
        regex = self.for_dirs if is_dir else self.for_files
        match = regex.fullmatch(rel) if regex is not None else None
        if match is None or match.lastgroup is None:
            return None
        return not self.negated[int(match.lastgroup[1:])]


def _load(path: str, base: str, name: str) -> _Source | None:
    """Parse one ignore file (``None`` when unreadable or without usable patterns).

    Lines are split on newlines with a trailing carriage return dropped; blank and ``#``
    lines are skipped; lines that do not compile are dropped with a warning.
    """
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            content = fh.read()
    except OSError:
        return None
    rules: list[_Rule] = []
    for raw in content.split("\n"):
        line = raw.removesuffix("\r")
        if not line.strip() or line.startswith("#") or (rule := _translate(line)) is None:
            continue
        try:
            re.compile(rule[0])
        except re.error:
            _log.warning("Ignoring invalid pattern %r in %s", line, path)
        else:
            rules.append(rule)
    return _Source(base, name, rules) if rules else None


class _Matcher:
    """Applies a chain of sources with git's "an ignored directory hides its contents" rule.

    ``prefix`` maps project-relative paths to the matcher's own root (the git top level);
    ``chain(dir)`` gives the sources for entries of matcher-relative ``dir``, shallowest first.
    """

    def __init__(self, prefix: str, chain: _Chain) -> None:
        self._prefix = prefix
        self._chain = chain
        self._dir_cache: dict[str, bool] = {}

    def _decide(self, rel: str, is_dir: bool) -> bool:
        for source in reversed(self._chain(rel.rpartition("/")[0])):
            verdict = source.check(rel, is_dir)
            if verdict is not None:
                return verdict
        return False

    def _dir_ignored(self, rel: str) -> bool:
        """Whether project-relative directory ``rel`` or one of its ancestors is ignored."""
        cache = self._dir_cache
        pending = [rel]
        while (ignored := cache.get(pending[-1])) is None and "/" in pending[-1]:
            pending.append(pending[-1].rpartition("/")[0])
        if ignored is not None:
            pending.pop()
        if len(cache) > _DIR_CACHE_MAX:
            cache.clear()
        for directory in reversed(pending):
            ignored = ignored or self._decide(self._prefix + directory, True)
            cache[directory] = ignored
        return bool(ignored)

    def ignores(self, rel: str, is_dir: bool) -> bool:
        """Whether project-relative ``rel`` is ignored."""
        parent = rel.rpartition("/")[0]
        if parent and self._dir_ignored(parent):
            return True
        return self._decide(self._prefix + rel, is_dir)


def _single(source: _Source) -> _Chain:
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

    def clear_cache(self) -> None:
        """Forget parsed ignore files and cached decisions (re-read on next use)."""
        self._chains: dict[str, tuple[_Source, ...]] = {}
        self._git_matcher: _Matcher | None = None
        self._qwen_matchers: list[tuple[str, _Matcher]] | None = None

    def is_git_repository(self) -> bool:
        """Whether the project root is inside a git work tree (``.git`` here or above)."""
        return self._git is not None

    def _git_chain(self, directory: str) -> tuple[_Source, ...]:
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
            exclude = _load(_exclude_file(dot_git), "", "exclude")
            chain = (exclude,) if exclude is not None else ()
        for name in reversed(pending):
            path = os.path.join(top, name, ".gitignore")
            own = _load(path, name + "/" if name else "", ".gitignore")
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
        if self._git_matcher is None:
            prefix = os.path.relpath(self._roots[0], self._git[0]).replace(os.sep, "/")
            self._git_matcher = _Matcher("" if prefix == "." else prefix + "/", self._git_chain)
        normalised = self._relative(path, is_dir)
        if normalised is None:
            return False
        rel, directory = normalised
        return "/.git/" in f"/{rel}/" or self._git_matcher.ignores(rel, directory)

    def qwen_ignore_file_names(self) -> list[str]:
        """``.qwenignore`` followed by the valid custom ignore-file names."""
        return [QWEN_IGNORE_FILE_NAME, *self._custom_names]

    def qwen_ignore_source(
        self, path: str | os.PathLike[str], is_dir: bool | None = None
    ) -> str | None:
        """The name of the first Qwen ignore file whose patterns ignore ``path``, if any."""
        if self._qwen_matchers is None:
            self._qwen_matchers = []
            for name in self.qwen_ignore_file_names():
                source = _load(os.path.join(self._roots[0], name), "", name)
                if source is not None:
                    self._qwen_matchers.append((name, _Matcher("", _single(source))))
        if not self._qwen_matchers:
            return None
        normalised = self._relative(path, is_dir)
        if normalised is None:
            return None
        rel, directory = normalised
        return next((n for n, m in self._qwen_matchers if m.ignores(rel, directory)), None)

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
