"""``WebFetchParams``: the params of ``web_fetch``, typed as its schema declares them."""

from __future__ import annotations

from typing import Literal, Required, TypedDict

__all__ = ["WebFetchParams"]


class WebFetchParams(TypedDict, total=False):
    """``web_fetch``'s params: the page, the question about it, the preferred format."""

    url: Required[str]
    prompt: Required[str]
    format: Literal["auto", "markdown", "html", "text"]
