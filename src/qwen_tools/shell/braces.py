"""Bash's brace expansion (``{a,b}``, ``{1..3}``, ``{a..c}``, nested), for the permission checks.

A word like ``{/etc/passwd,x}`` or ``{rm,victim.txt}`` names other paths or programs than its
text shows; the checks expand it first. Quoting is not tracked (callers pass unquoted words),
and a word that would expand to more than 256 words gives ``None``: unknown.
"""

from __future__ import annotations

import re

__all__ = ["expand_braces"]

_MAX_EXPANSIONS = 256


def expand_braces(text: str, budget: int = _MAX_EXPANSIONS) -> list[str] | None:
    """Bash's brace expansion of ``text`` (``None`` when it would make too many words)."""
    depth = 0
    start = -1
    for index, ch in enumerate(text):
        if ch == "{":
            if depth == 0:
                start = index
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
            if depth:
                continue
            alternatives = _alternatives(text[start + 1 : index])
            if alternatives is None:
                continue
            if len(alternatives) > budget:
                return None
            words: list[str] = []
            for alternative in alternatives:
                expanded = expand_braces(text[:start] + alternative + text[index + 1 :], budget)
                if expanded is None or len(words) + len(expanded) > budget:
                    return None
                words.extend(expanded)
            return words
    return [text]


def _alternatives(body: str) -> list[str] | None:
    parts: list[str] = []
    depth = 0
    current: list[str] = []
    for ch in body:
        if ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        depth += ch == "{"
        depth -= ch == "}" and depth > 0
        current.append(ch)
    parts.append("".join(current))
    if len(parts) > 1:
        return parts
    sequence = re.fullmatch(r"(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.-?\d+)?", body)
    if sequence is None:
        return None
    first, last = sequence.group(1), sequence.group(2)
    if first.lstrip("-").isdigit() and last.lstrip("-").isdigit():
        low, high = sorted((int(first), int(last)))
        if high - low > _MAX_EXPANSIONS:
            return [str(low)] * (_MAX_EXPANSIONS + 1)
        return [str(n) for n in range(low, high + 1)]
    if len(first) == 1 and len(last) == 1:
        low_ch, high_ch = sorted((ord(first), ord(last)))
        return [chr(n) for n in range(low_ch, high_ch + 1)]
    return None
