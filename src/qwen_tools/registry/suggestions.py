"""What the registry answers for a name it does not know: the reference's message with "did you mean"."""

from __future__ import annotations

from collections.abc import Iterable


def levenshtein(a: str, b: str) -> int:
    """Edit distance between two strings (insertions, deletions, substitutions).

    RapidFuzz's bit-parallel implementation: linear in the longer string when the shorter one is
    a tool name, so a hostile 100 MB "tool name" is ranked in milliseconds, not hours.
    """
    from rapidfuzz.distance import Levenshtein  # imported when a name is not found

    return int(Levenshtein.distance(a, b))


def suggestion_suffix(unknown: str, candidates: Iterable[str], top_n: int = 3) -> str:
    """`` Did you mean …?`` for the closest names (stable order on ties), or ``""``."""
    ranked = sorted(candidates, key=lambda name: levenshtein(unknown, name))[:top_n]
    if not ranked:
        return ""
    quoted = ", ".join(f'"{name}"' for name in ranked)
    if len(ranked) > 1:
        return f" Did you mean one of: {quoted}?"
    return f" Did you mean {quoted}?"


def tool_not_found_message(unknown: str, candidates: Iterable[str]) -> str:
    """The reference's message for a call to a name that is not registered."""
    return (
        f'Tool "{unknown}" not found in registry. Tools must use the exact names that are '
        f"registered.{suggestion_suffix(unknown, candidates)}"
    )
