"""``SaveMemoryParams``: the params of ``save_memory``, typed as its schema declares them."""

from __future__ import annotations

from typing import Literal, Required, TypedDict

__all__ = ["SaveMemoryParams"]


class SaveMemoryParams(TypedDict, total=False):
    """``save_memory``'s params: the fact, and the memory file to write it to."""

    fact: Required[str]
    scope: Literal["global", "project"]
