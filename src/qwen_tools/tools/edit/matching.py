"""Pure text functions behind the ``edit`` tool: tolerant matching, counting, replacing, snippets.

The matching follows Qwen Code 0.24.4: ``old_string`` is looked up in the file literally, then
with Unicode look-alikes (dashes, curly quotes, exotic spaces) mapped to ASCII on both sides, then
line by line (each line compared as is, then without trailing whitespace, then mapped and without
trailing whitespace; leading whitespace always has to agree). A hit replaces ``old_string`` by
the exact text on disk, so the replacement itself stays literal.

:func:`closest_match_hint` is our own addition: when nothing matches, it finds the lines of the
file that look most like ``old_string`` so the model can retry with the real text.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from qwen_tools.jscompat.jstext import js_trim_end

__all__ = [
    "EditSnippet",
    "MatchedSlice",
    "apply_replacement",
    "closest_match_hint",
    "count_occurrences",
    "extract_edit_snippet",
    "find_matched_slice",
    "maybe_augment_old_string_for_deletion",
    "normalize_basic_characters",
    "normalize_edit_strings",
]

_LOOKALIKES = str.maketrans(
    {
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
        **dict.fromkeys("\u2018\u2019\u201a\u201b", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f", '"'),
        **dict.fromkeys(
            "\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000", " "
        ),
    }
)

SNIPPET_CONTEXT_LINES = 4
SNIPPET_MAX_LINES = 1000


def normalize_basic_characters(text: str) -> str:
    """Map typographic dashes, quotes and spaces to their ASCII forms (one character each)."""
    return text.translate(_LOOKALIKES)


def _normalized_line(line: str) -> str:
    return js_trim_end(normalize_basic_characters(line))


_LINE_PASSES = (lambda line: line, js_trim_end, _normalized_line)


@dataclass(frozen=True, slots=True)
class MatchedSlice:
    """The text on disk that ``old_string`` stands for.

    ``dropped_final_newline`` is set when the match only worked without the pattern's last
    (empty) line, in which case ``new_string`` has to lose one trailing newline too.
    """

    text: str
    dropped_final_newline: bool = False


def _seek(lines: list[str], pattern: list[str]) -> int | None:
    """First index where ``pattern`` matches ``lines``, trying each comparison pass in turn."""
    if len(pattern) > len(lines):
        return None
    for transform in _LINE_PASSES:
        seen = [transform(line) for line in lines]
        wanted = [transform(p) for p in pattern]
        for start in range(len(lines) - len(pattern) + 1):
            if seen[start : start + len(wanted)] == wanted:
                return start
    return None


def _slice_lines(
    text: str, lines: list[str], offsets: list[int], start: int, count: int, newline: bool
) -> str:
    """The text of lines ``start`` … ``start + count - 1``, plus the newline after them if asked."""
    last = start + count - 1
    end = offsets[start + count] if newline else offsets[last] + len(lines[last])
    return text[offsets[start] : end]


def _line_offsets(lines: list[str], total: int) -> list[int]:
    offsets: list[int] = []
    cursor = 0
    for line in lines:
        offsets.append(cursor)
        cursor += len(line) + 1
    offsets.append(total)
    return offsets


def _find_by_lines(haystack: str, needle: str) -> MatchedSlice | None:
    lines = haystack.split("\n")
    offsets = _line_offsets(lines, len(haystack))
    pattern = needle.split("\n")
    start = _seek(lines, pattern)
    if start is not None:
        ends_nl = needle.endswith("\n")
        return MatchedSlice(_slice_lines(haystack, lines, offsets, start, len(pattern), ends_nl))
    if pattern[-1] == "" and len(pattern) > 1:
        trimmed = pattern[:-1]
        start = _seek(lines, trimmed)
        if start is not None:
            text = _slice_lines(haystack, lines, offsets, start, len(trimmed), False)
            return MatchedSlice(text, dropped_final_newline=True)
    return None


def find_matched_slice(haystack: str, needle: str) -> MatchedSlice | None:
    """The exact text in ``haystack`` that ``needle`` matches (literal, look-alike, line-wise)."""
    if needle == "":
        return None
    if needle in haystack:
        return MatchedSlice(needle)
    index = normalize_basic_characters(haystack).find(normalize_basic_characters(needle))
    if index != -1:
        return MatchedSlice(haystack[index : index + len(needle)])
    return _find_by_lines(haystack, needle)


def _drop_one_newline(text: str) -> str:
    if text.endswith("\r\n"):
        return text[:-2]
    return text[:-1] if text.endswith(("\n", "\r")) else text


def normalize_edit_strings(content: str | None, old: str, new: str) -> tuple[str, str]:
    """``(old, new)`` with ``old`` replaced by the on-disk text it matches, when it matches."""
    if content is None or old == "":
        return old, new
    found = find_matched_slice(content, old)
    if found is None:
        return old, new
    return found.text, _drop_one_newline(new) if found.dropped_final_newline else new


def maybe_augment_old_string_for_deletion(content: str | None, old: str, new: str) -> str:
    """For a deletion, take the line's newline along so no blank line is left behind."""
    if content is None or old == "" or new != "" or old.endswith("\n"):
        return old
    return old + "\n" if old + "\n" in content else old


def count_occurrences(source: str, sub: str) -> int:
    """Non-overlapping occurrences, scanning left to right; an empty ``sub`` occurs 0 times."""
    return source.count(sub) if sub else 0


def apply_replacement(current: str | None, old: str, new: str, is_new_file: bool) -> str:
    """The content after replacing every occurrence of ``old`` by ``new`` (literally)."""
    if is_new_file:
        return new
    if current is None:
        return new if old == "" else ""
    if old == "":
        return current
    return current.replace(old, new)


@dataclass(frozen=True, slots=True)
class EditSnippet:
    """Lines ``start_line`` … ``end_line`` (1-based) of a file of ``total_lines`` lines."""

    start_line: int
    end_line: int
    total_lines: int
    content: str


def extract_edit_snippet(old: str | None, new: str) -> EditSnippet | None:
    """The changed region of ``new`` with 4 lines of context; ``None`` when nothing to show.

    A new file (``old is None``) is shown whole; a change spanning more than 1,000 lines is not
    shown. Line counts come from ``split("\\n")``, so a final newline counts as an empty line.
    """
    new_lines = new.split("\n")
    total = len(new_lines)
    if old is None:
        return EditSnippet(1, total, total, new)
    if old == new or not new:
        return None
    old_lines = old.split("\n")
    first = 0
    shortest = min(len(old_lines), len(new_lines))
    while first < shortest and old_lines[first] == new_lines[first]:
        first += 1
    old_end, new_end = len(old_lines) - 1, len(new_lines) - 1
    while old_end >= first and new_end >= first and old_lines[old_end] == new_lines[new_end]:
        old_end -= 1
        new_end -= 1
    change_start, change_end = first + 1, new_end + 1
    if change_end - change_start > SNIPPET_MAX_LINES:
        return None
    start = max(1, change_start - SNIPPET_CONTEXT_LINES)
    end = min(total, change_end + SNIPPET_CONTEXT_LINES)
    return EditSnippet(start, end, total, "\n".join(new_lines[start - 1 : end]))


# -- our addition: the closest lines when nothing matched -----------------------------------------

_HINT_MAX_FILE_CHARS = 1_000_000
_HINT_MAX_FILE_LINES = 20_000
_HINT_MAX_PATTERN_CHARS = 20_000
_HINT_MAX_WORK = 4_000_000
_HINT_MIN_RATIO = 0.5
_HINT_MAX_LINES = 20
_HINT_MAX_CHARS = 2_000
_HINT_MAX_LINE_CHARS = 300


def _comparable(line: str) -> str:
    return " ".join(normalize_basic_characters(line).split())


def _best_window(lines: list[str], pattern: list[str]) -> tuple[int, float] | None:
    size = min(len(pattern), len(lines))
    keys = [_comparable(line) for line in lines]
    matcher = difflib.SequenceMatcher(None, autojunk=False)
    matcher.set_seq2("\n".join(_comparable(p) for p in pattern))
    best: tuple[int, float] | None = None
    for start in range(len(lines) - size + 1):
        matcher.set_seq1("\n".join(keys[start : start + size]))
        floor = best[1] if best else _HINT_MIN_RATIO - 1e-9
        if matcher.real_quick_ratio() <= floor or matcher.quick_ratio() <= floor:
            continue
        ratio = matcher.ratio()
        if ratio > floor:
            best = (start, ratio)
    return best


def closest_match_hint(content: str, old_string: str) -> str | None:
    """A note showing the lines of ``content`` most similar to ``old_string``, or ``None``.

    Windows of as many lines as ``old_string`` are scored with :mod:`difflib` (whitespace runs
    and typographic look-alikes ignored); the earliest best window wins. Nothing is offered for
    an empty or very large file, an empty pattern, or when no window is at least half similar.
    The excerpt is capped at 20 lines and 2,000 characters.
    """
    if not content.strip() or not old_string.strip():
        return None
    if len(content) > _HINT_MAX_FILE_CHARS or len(old_string) > _HINT_MAX_PATTERN_CHARS:
        return None
    lines = content.split("\n")
    if lines[-1] == "":
        lines.pop()
    pattern = old_string.split("\n")
    if pattern[-1] == "":
        pattern.pop()
    if len(lines) > _HINT_MAX_FILE_LINES or len(lines) * len(old_string) > _HINT_MAX_WORK:
        return None
    found = _best_window(lines, pattern)
    if found is None:
        return None
    start, _ratio = found
    end = start + min(len(pattern), len(lines))
    width = len(str(end))
    shown: list[str] = []
    used = 0
    for number in range(start + 1, end + 1):
        line = lines[number - 1]
        if len(line) > _HINT_MAX_LINE_CHARS:
            line = line[:_HINT_MAX_LINE_CHARS] + " ..."
        entry = f"  {number:>{width}}: {line}"
        if len(shown) >= _HINT_MAX_LINES or used + len(entry) + 1 > _HINT_MAX_CHARS:
            shown.append(f"  ... ({end - number + 1} more lines)")
            break
        shown.append(entry)
        used += len(entry) + 1
    span = f"line {start + 1}" if end == start + 1 else f"lines {start + 1}-{end}"
    return f"The closest match in the file ({span}) is:\n" + "\n".join(shown)
