"""``GlobParams``: the params of ``glob``, typed as its schema declares them."""

from __future__ import annotations

from typing import Required, TypedDict

__all__ = ["GlobParams"]


class GlobParams(TypedDict, total=False):
    """``glob``'s params: the pattern, and the directory to search (the workspace if left out)."""

    pattern: Required[str]
    path: str
