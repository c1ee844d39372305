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

_log = logging.getLogger("qwen_tools._config.file_service")

_DIR_CACHE_MAX = 200_000
_Rule = tuple[str, bool, bool]  # (regex, negated, directory-only)
IgnoreChain = Callable[[str], Sequence["IgnoreSource"]]

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


class IgnoreSource:
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
            re.compile(rule[0])
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
