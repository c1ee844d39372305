"""Unified diffs and diff statistics, as edit and write_file show them to the user.

The text is the one Qwen Code 0.24.4 produces with the ``diff`` package (jsdiff):
``Index:`` and ``===`` lines, ``---``/``+++`` lines with a tab and a header, hunks with three
lines of context, and ``\\ No newline at end of file`` after a last line without newline.

Lines are compared as jsdiff compares them: a line keeps its ``\\n`` (and any ``\\r`` before
it), so a change of line ending or of the final newline is a change. The alignment is a
Myers O(ND) shortest edit script with jsdiff's preferences, so ambiguous diffs (repeated
lines) pick the same pairing; when the edit script would be very long (thousands of changed
lines) the alignment falls back to :mod:`difflib`, which is faster there but may pair lines
differently. Context lines show the *new* text's version, which only matters when
whitespace is ignored.

* :func:`create_patch` — jsdiff's ``createPatch`` with ``{context: 3}``, whitespace significant.
* :func:`create_patch_smart` — the reference's ``createPatchSmart``: whitespace-insensitive
  first (``trim()``-equal lines are context), exact when that finds no change. This is what
  edit and write_file display.
* :func:`compute_diff_stat` — the reference's ``getDiffStat``.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass

from qwen_tools.contract.display import DiffStat
from qwen_tools.jscompat.jstext import js_trim

__all__ = [
    "Hunk",
    "compute_diff_stat",
    "create_patch",
    "create_patch_smart",
    "format_patch",
    "structured_patch",
]

_CONTEXT = 3
_SEPARATOR = "=" * 67
_NO_NEWLINE = "\\ No newline at end of file"
_MYERS_BUDGET = 1_500_000
"""Diagonal steps (about a second) after which the Myers search gives way to difflib."""
_MYERS_MAX_EDITS = 1_700
"""Edit scripts surely longer than this exceed the budget (steps grow as edits² / 2)."""


@dataclass(frozen=True)
class Hunk:
    """One hunk: 1-based starts, line counts, and its lines (``" "``/``"-"``/``"+"`` prefixed)."""

    old_start: int
    old_lines: int
    new_start: int
    new_lines: int
    lines: tuple[str, ...]


@dataclass(frozen=True)
class _Component:
    count: int
    added: bool
    removed: bool


def _tokens(text: str) -> list[str]:
    """Lines with their line terminator (jsdiff's line tokens; no empty tokens)."""
    if not text:
        return []
    parts = text.split("\n")
    tokens = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        tokens.append(parts[-1])
    return tokens


def _intern(old: list[str], new: list[str], ignore_whitespace: bool) -> tuple[list[int], list[int]]:
    ids: dict[str, int] = {}

    def key(token: str) -> int:
        text = js_trim(token) if ignore_whitespace else token
        return ids.setdefault(text, len(ids))

    return [key(t) for t in old], [key(t) for t in new]


# A component chain is a linked list, newest first: (count, added, removed, previous).
_Chain = tuple[int, bool, bool, "_Chain"] | None


def _push(chain: _Chain, added: bool, removed: bool) -> _Chain:
    if chain is not None and chain[1] == added and chain[2] == removed:
        return (chain[0] + 1, added, removed, chain[3])
    return (1, added, removed, chain)


def _unwind(chain: _Chain) -> list[_Component]:
    out: list[_Component] = []
    while chain is not None:
        out.append(_Component(chain[0], chain[1], chain[2]))
        chain = chain[3]
    out.reverse()
    return out


def _myers(old: Sequence[int], new: Sequence[int]) -> list[_Component] | None:
    """The edit script jsdiff finds, or ``None`` past the step budget."""
    old_len, new_len = len(old), len(new)

    def snake(old_pos: int, diagonal: int, chain: _Chain) -> tuple[int, _Chain]:
        new_pos = old_pos - diagonal
        start = old_pos
        while (
            new_pos + 1 < new_len and old_pos + 1 < old_len and old[old_pos + 1] == new[new_pos + 1]
        ):
            old_pos += 1
            new_pos += 1
        if old_pos > start:
            chain = (old_pos - start, False, False, chain)
        return old_pos, chain

    old_pos, chain = snake(-1, 0, None)
    if old_pos + 1 >= old_len and old_pos + 1 >= new_len:
        return _unwind(chain)
    best: dict[int, tuple[int, _Chain] | None] = {0: (old_pos, chain)}
    min_diagonal, max_diagonal = -(old_len + new_len + 1), old_len + new_len + 1
    steps = 0
    for edit_length in range(1, old_len + new_len + 1):
        diagonal = max(min_diagonal, -edit_length)
        while diagonal <= min(max_diagonal, edit_length):
            steps += 1
            remove_path = best.get(diagonal - 1)
            add_path = best.get(diagonal + 1)
            if remove_path is not None:
                best[diagonal - 1] = None
            can_add = add_path is not None and 0 <= add_path[0] - diagonal < new_len
            can_remove = remove_path is not None and remove_path[0] + 1 < old_len
            if not can_add and not can_remove:
                best[diagonal] = None
                diagonal += 2
                continue
            if add_path is not None and (
                not can_remove
                or (can_add and remove_path is not None and remove_path[0] < add_path[0])
            ):
                base = add_path[0], _push(add_path[1], True, False)
            else:
                assert remove_path is not None
                base = remove_path[0] + 1, _push(remove_path[1], False, True)
            old_pos, chain = snake(base[0], diagonal, base[1])
            new_pos = old_pos - diagonal
            if old_pos + 1 >= old_len and new_pos + 1 >= new_len:
                return _unwind(chain)
            best[diagonal] = (old_pos, chain)
            if old_pos + 1 >= old_len:
                max_diagonal = min(max_diagonal, diagonal - 1)
            if new_pos + 1 >= new_len:
                min_diagonal = max(min_diagonal, diagonal + 1)
            diagonal += 2
        if steps > _MYERS_BUDGET:
            return None
    return None  # unreachable: an edit script of length old_len + new_len always exists


def _min_edits(old: Sequence[int], new: Sequence[int]) -> int:
    """A lower bound of the edit script's length: lines one side has more copies of."""
    balance: dict[int, int] = {}
    for key in old:
        balance[key] = balance.get(key, 0) + 1
    for key in new:
        balance[key] = balance.get(key, 0) - 1
    return sum(abs(count) for count in balance.values())


def _difflib(old: Sequence[int], new: Sequence[int]) -> list[_Component]:
    out: list[_Component] = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            out.append(_Component(i2 - i1, False, False))
            continue
        if i2 > i1:
            out.append(_Component(i2 - i1, False, True))
        if j2 > j1:
            out.append(_Component(j2 - j1, True, False))
    return out


def structured_patch(
    old: str, new: str, *, context: int = _CONTEXT, ignore_whitespace: bool = False
) -> list[Hunk]:
    """The hunks jsdiff's ``structuredPatch`` computes between two texts."""
    old_tokens, new_tokens = _tokens(old), _tokens(new)
    old_ids, new_ids = _intern(old_tokens, new_tokens, ignore_whitespace)
    components = (
        None if _min_edits(old_ids, new_ids) > _MYERS_MAX_EDITS else _myers(old_ids, new_ids)
    )
    if components is None:
        components = _difflib(old_ids, new_ids)
    blocks: list[tuple[_Component, list[str]]] = []
    old_i = new_i = 0
    for comp in components:
        if comp.removed:
            blocks.append((comp, old_tokens[old_i : old_i + comp.count]))
            old_i += comp.count
            continue
        # Added lines, and common lines as the new text has them.
        blocks.append((comp, new_tokens[new_i : new_i + comp.count]))
        new_i += comp.count
        if not comp.added:
            old_i += comp.count
    blocks.append((_Component(0, False, False), []))
    return [_finish(h) for h in _group(blocks, context)]


def _group(blocks: list[tuple[_Component, list[str]]], context: int) -> list[Hunk]:
    hunks: list[Hunk] = []
    old_start = new_start = 0
    current: list[str] = []
    old_line = new_line = 1
    for index, (comp, lines) in enumerate(blocks):
        if comp.added or comp.removed:
            if not old_start:
                old_start, new_start = old_line, new_line
                if index > 0:
                    previous = blocks[index - 1][1]
                    current = [" " + line for line in previous[-context:]] if context > 0 else []
                    old_start -= len(current)
                    new_start -= len(current)
            current.extend(("+" if comp.added else "-") + line for line in lines)
            if comp.added:
                new_line += len(lines)
            else:
                old_line += len(lines)
            continue
        if old_start:
            if len(lines) <= context * 2 and index < len(blocks) - 2:
                current.extend(" " + line for line in lines)
            else:
                size = min(len(lines), context)
                current.extend(" " + line for line in lines[:size])
                hunks.append(
                    Hunk(
                        old_start,
                        old_line - old_start + size,
                        new_start,
                        new_line - new_start + size,
                        tuple(current),
                    )
                )
                old_start = new_start = 0
                current = []
        old_line += len(lines)
        new_line += len(lines)
    return hunks


def _finish(hunk: Hunk) -> Hunk:
    """Drop the line terminators; flag a last line that had none."""
    lines: list[str] = []
    for line in hunk.lines:
        if line.endswith("\n"):
            lines.append(line[:-1])
        else:
            lines.extend((line, _NO_NEWLINE))
    return Hunk(hunk.old_start, hunk.old_lines, hunk.new_start, hunk.new_lines, tuple(lines))


def format_patch(
    old_name: str, new_name: str, hunks: Sequence[Hunk], old_header: str, new_header: str
) -> str:
    """jsdiff's ``formatPatch`` text for hunks."""
    out = [f"Index: {old_name}"] if old_name == new_name else []
    out += [_SEPARATOR, f"--- {old_name}\t{old_header}", f"+++ {new_name}\t{new_header}"]
    for hunk in hunks:
        old_start = hunk.old_start - 1 if hunk.old_lines == 0 else hunk.old_start
        new_start = hunk.new_start - 1 if hunk.new_lines == 0 else hunk.new_start
        out.append(f"@@ -{old_start},{hunk.old_lines} +{new_start},{hunk.new_lines} @@")
        out.extend(hunk.lines)
    return "\n".join(out) + "\n"


def create_patch(
    file_name: str, old: str, new: str, old_header: str = "Current", new_header: str = "Proposed"
) -> str:
    """jsdiff's ``createPatch(file_name, old, new, old_header, new_header, {context: 3})``."""
    hunks = structured_patch(old, new)
    return format_patch(file_name, file_name, hunks, old_header, new_header)


def _smart_hunks(old: str, new: str) -> list[Hunk]:
    hunks = structured_patch(old, new, ignore_whitespace=True)
    return hunks or structured_patch(old, new)


def create_patch_smart(
    file_name: str, old: str, new: str, old_header: str = "Current", new_header: str = "Proposed"
) -> str:
    """The reference's ``createPatchSmart``: whitespace-insensitive unless that shows nothing."""
    return format_patch(file_name, file_name, _smart_hunks(old, new), old_header, new_header)


def _utf16_len(text: str) -> int:
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def _count(hunks: list[Hunk]) -> tuple[int, int, int, int]:
    added_lines = removed_lines = added_chars = removed_chars = 0
    for hunk in hunks:
        for line in hunk.lines:
            if line.startswith("+"):
                added_lines += 1
                added_chars += _utf16_len(line) - 1
            elif line.startswith("-"):
                removed_lines += 1
                removed_chars += _utf16_len(line) - 1
    return added_lines, removed_lines, added_chars, removed_chars


def compute_diff_stat(old: str, ai_proposed: str, user_final: str | None = None) -> DiffStat:
    """The reference's ``getDiffStat``: ``model_*`` from ``old`` → ``ai_proposed``, ``user_*``
    from ``ai_proposed`` → ``user_final`` (zero when the user changed nothing).

    Lines are counted in whitespace-insensitive hunks (exact ones when those are empty);
    characters are UTF-16 code units, without the ``+``/``-`` marker or the newline.
    """
    model = _count(_smart_hunks(old, ai_proposed))
    same = user_final is None or user_final == ai_proposed
    user = (0, 0, 0, 0) if same else _count(_smart_hunks(ai_proposed, user_final or ""))
    return DiffStat(*model, *user)
