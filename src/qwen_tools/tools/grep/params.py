"""``GrepParams``: the params of ``grep_search``, typed as its schema declares them."""

from __future__ import annotations

from typing import Required, TypedDict

__all__ = ["GrepParams"]


class GrepParams(TypedDict, total=False):
    """``grep_search``'s params: the pattern, and optionally a file glob, a path and a limit."""

    pattern: Required[str]
    glob: str
    path: str
    limit: int
