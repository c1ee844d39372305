"""Git's ignore-pattern language, translated to regular expressions, and ignore-file matchers.

Patterns follow git's wildmatch rules (``*``, ``?``, ``[...]`` with POSIX classes, ``**``, ``!``
negation, trailing-``/`` directory-only patterns, backslash escapes). The translation is checked
against ``git check-ignore`` in the tests: ``pathspec`` 1.1 disagrees with git on patterns such
as ``!*/`` and ``a/**/``, which is why this module exists.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from typing import NamedTuple

_log = logging.getLogger("qwen_tools.config.file_service")

_DIR_CACHE_MAX = 200_000
IgnoreChain = Callable[[str], Sequence["IgnoreSource"]]
EntryCheck = Callable[[str, bool], "bool | None"]
"""Verdict for a name in one directory: ignored, re-included or ``None`` (no rule matched)."""
EntryFilter = Callable[[str, bool], bool]
"""Whether a name (``is_dir`` given) in one directory is ignored."""


class _Rule(NamedTuple):
    """One translated ignore-file line."""

    regex: str  # full-matched against the path relative to the ignore file's directory
    negated: bool
    dir_only: bool
    name: str | None  # when set, the rule matches exactly the paths whose last part matches it
    literal: str  # every path the rule matches starts with this


def never_ignored(_name: str, _is_dir: bool) -> bool:
    """An :data:`EntryFilter` that ignores nothing."""
    return False


def always_ignored(_name: str, _is_dir: bool) -> bool:
    """An :data:`EntryFilter` that ignores everything."""
    return True


# POSIX bracket classes, as regex class bodies.
# fmt: off
_CLASSES = {
    "alnum": "a-zA-Z0-9", "alpha": "a-zA-Z", "digit": "0-9", "lower": "a-z", "upper": "A-Z",
    "xdigit": "0-9a-fA-F", "space": r"\s", "blank": r"\t\x20", "punct": r"!-/:-@\[-`{-~",
    "print": r"\x20-~", "graph": "!-~", "cntrl": r"\x00-\x1f",
}
# fmt: on


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


def _literal(segments: list[str]) -> str:
    """The literal text every path matched by an anchored pattern of ``segments`` starts with."""
    out: list[str] = []
    for index, seg in enumerate(segments):
        if index:
            out.append("/")
        i = 0
        while i < len(seg):
            if seg[i] in "*?[":
                return "".join(out)
            if seg[i] == "\\" and i + 1 < len(seg):
                i += 1
            out.append(seg[i])
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
    name = None  # ``x`` and ``**/x`` match any path whose last part matches ``x``
    if len(segments) == 1 and "/" not in pat and segments[0] != "**":
        name = _segment(segments[0])
    elif len(segments) == 2 and segments[0] == "**" and segments[1] != "**":
        name = _segment(segments[1])
    literal = "" if name is not None or "/" not in pat else _literal(segments)
    return _Rule("".join(parts), negated, dir_only, name, literal)


class IgnoreSource:
    """One parsed ignore file whose patterns apply below ``base`` (``""`` or ``"a/b/"``).

    The rules are combined into one regex for directories and one for files (which skip
    directory-only rules), alternatives in reverse order, so the alternative that matches is
    the last matching line: git's "last match wins".
    """

    __slots__ = (
        "_by_name",
        "_literals",
        "_name_filter",
        "base",
        "for_dirs",
        "for_files",
        "name",
        "negated",
    )

    def __init__(self, base: str, name: str, rules: list[_Rule]) -> None:
        self.base = base
        self.name = name
        self.negated = [rule.negated for rule in rules]
        self.for_dirs, self.for_files = _combine(
            [(i, r.regex, r.dir_only) for i, r in enumerate(rules)]
        )
        # The rules that only look at the last part of a path, matched against names alone,
        # and the literal starts of the others (which decide where they may match).
        named = [(i, r.name, r.dir_only) for i, r in enumerate(rules) if r.name is not None]
        self._literals = tuple({r.literal for r in rules if r.name is None})
        self._by_name: EntryCheck | None = None
        self._name_filter: EntryFilter | None = None
        if named:
            self._by_name, self._name_filter = self._name_tests(*_combine(named))

    def check(self, rel: str, is_dir: bool) -> bool | None:
        """True (ignored), False (re-included by ``!``) or None (no pattern matched)."""
        if self.base:
            if not rel.startswith(self.base):
                return None
            rel = rel[len(self.base) :]
        return self._verdict(rel, self.for_dirs if is_dir else self.for_files)

    def entry_check(self, directory: str) -> EntryCheck | None:
        """``check(directory + name, is_dir)`` for names of ``directory`` (``""`` or ``"a/"``).

        ``None`` when no rule can match an entry of the directory.
        """
        if self.base:
            if not directory.startswith(self.base):
                return None
            directory = directory[len(self.base) :]
        if any(_may_start(literal, directory) for literal in self._literals):

            def full(name: str, is_dir: bool) -> bool | None:
                rel = directory + name
                return self._verdict(rel, self.for_dirs if is_dir else self.for_files)

            return full
        return self._by_name

    def entry_filter(self, directory: str) -> EntryFilter | None:
        """Whether ``check(directory + name, is_dir)`` is True; ``None``: never."""
        check = self.entry_check(directory)
        if check is None or check is self._by_name:
            return self._name_filter
        return lambda name, is_dir: check(name, is_dir) is True

    def _name_tests(
        self, for_dirs: re.Pattern[str], for_files: re.Pattern[str] | None
    ) -> tuple[EntryCheck, EntryFilter]:
        """The check and the filter of the rules that only look at names, on names."""
        negated = self.negated

        def by_name(name: str, is_dir: bool) -> bool | None:
            return self._verdict(name, for_dirs if is_dir else for_files)

        def name_filter(name: str, is_dir: bool) -> bool:
            regex = for_dirs if is_dir else for_files
            match = regex.fullmatch(name) if regex is not None else None
            if match is None or match.lastgroup is None:
                return False
            return not negated[int(match.lastgroup[1:])]

        return by_name, name_filter

    def _verdict(self, rel: str, regex: re.Pattern[str] | None) -> bool | None:
        match = regex.fullmatch(rel) if regex is not None else None
        if match is None or match.lastgroup is None:
            return None
        return not self.negated[int(match.lastgroup[1:])]


def _combine(rules: list[tuple[int, str, bool]]) -> tuple[re.Pattern[str], re.Pattern[str] | None]:
    """One regex for directories and one for files (no directory-only rules; ``None`` if none).

    Alternatives run from the last rule to the first, each a group named after its rule's
    index, so the group that matches is the last matching line: git's "last match wins".
    """
    alternatives = [(f"(?P<r{i}>{rx})", dir_only) for i, rx, dir_only in reversed(rules)]
    files = [alt for alt, dir_only in alternatives if not dir_only]
    for_dirs = re.compile("|".join(alt for alt, _ in alternatives), re.S)
    return for_dirs, (re.compile("|".join(files), re.S) if files else None)


def _may_start(literal: str, directory: str) -> bool:
    """Whether ``directory + name`` may start with ``literal`` for some name without ``/``."""
    if len(literal) <= len(directory):
        return directory.startswith(literal)
    return literal.startswith(directory) and "/" not in literal[len(directory) :]


def load_ignore_file(path: str, base: str, name: str) -> IgnoreSource | None:
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
            re.compile(rule.regex)
        except re.error:
            _log.warning("Ignoring invalid pattern %r in %s", line, path)
        else:
            rules.append(rule)
    return IgnoreSource(base, name, rules) if rules else None


class IgnoreMatcher:
    """Applies a chain of sources with git's "an ignored directory hides its contents" rule.

    ``prefix`` maps project-relative paths to the matcher's own root (the git top level);
    ``chain(dir)`` gives the sources for entries of matcher-relative ``dir``, shallowest first.
    """

    def __init__(self, prefix: str, chain: IgnoreChain) -> None:
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

    def entry_filter(self, directory: str) -> EntryFilter:
        """``ignores(f"{directory}/{name}", is_dir)`` for the names in ``directory``.

        ``directory`` is project-relative (``""`` for the root); names contain no ``/``.
        """
        if directory and self._dir_ignored(directory):
            return always_ignored
        full = (self._prefix + directory) if directory else self._prefix.removesuffix("/")
        within = full + "/" if full else ""
        sources = self._chain(full)
        if len(sources) == 1:
            return sources[0].entry_filter(within) or never_ignored
        checks = [
            check
            for source in reversed(sources)
            if (check := source.entry_check(within)) is not None
        ]
        if not checks:
            return never_ignored
        if len(checks) == 1:
            only = checks[0]
            return lambda name, is_dir: only(name, is_dir) is True

        def test(name: str, is_dir: bool) -> bool:
            for check in checks:
                verdict = check(name, is_dir)
                if verdict is not None:
                    return verdict
            return False

        return test
