"""Locale-aware string ordering, as JavaScript's ``a.localeCompare(b)`` gives it.

Qwen Code sorts directory listings and old glob matches with ``String.prototype.localeCompare``,
which Node answers with ICU's root collation (tertiary strength, punctuation not ignored). The
Unicode Collation Algorithm from :mod:`pyuca` orders file names the same way, e.g.
``_x < -x < .gitignore < a < A < a_b < a-b < a.b < a10 < a9`` and ``x_test.py < x.py``:
punctuation sorts before digits and letters, case only breaks ties, and digits are compared
one character at a time.
"""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Any

__all__ = ["collation_key", "locale_compare"]


@cache
def _collator() -> Any:
    """The shared collator (loading the collation table takes a moment, so do it once)."""
    from pyuca import Collator  # type: ignore[import-untyped]

    return Collator()


@lru_cache(maxsize=65536)
def collation_key(text: str) -> tuple[int, ...]:
    """A sort key that orders strings as ``localeCompare`` does."""
    key: tuple[int, ...] = tuple(_collator().sort_key(text))
    return key


def locale_compare(a: str, b: str) -> int:
    """``-1``, ``0`` or ``1``, like ``a.localeCompare(b)`` (equal only when the keys are)."""
    ka, kb = collation_key(a), collation_key(b)
    return (ka > kb) - (ka < kb)
