"""``WebSearchParams``: the params of ``web_search``, typed as its schema declares them."""

from __future__ import annotations

from typing import Required, TypedDict

__all__ = ["WebSearchParams"]


class WebSearchParams(TypedDict, total=False):
    """``web_search``'s params: the query, and optionally the provider to ask."""

    query: Required[str]
    provider: str
