"""DashScope web search (Alibaba Cloud Model Studio, ``POST /api/v1/indices/plugin/web_search``).

Request ``{"uq": <query>, "page": 1, "rows": <maxResults, default 10>}`` with the API key as a
bearer token; a reply whose ``status`` is not 0 is an error carrying its ``message``.
"""

from __future__ import annotations

from typing import Any

from qwen_tools.contract.abort import AbortSignal
from qwen_tools.tools.web_search.base import (
    SearchFailure,
    SearchOutcome,
    SearchProvider,
    item,
    request_json,
)

__all__ = ["DashScopeProvider"]


class DashScopeProvider(SearchProvider):
    """Search with DashScope; needs ``apiKey`` (``DASHSCOPE_API_KEY``)."""

    name = "DashScope"
    default_base_url = "https://dashscope.aliyuncs.com"

    def is_available(self) -> bool:
        """A key is configured."""
        return bool(self.config.api_key)

    async def perform_search(self, query: str, signal: AbortSignal) -> SearchOutcome:
        """POST the query and map the returned documents."""
        data: Any = await request_json(
            "POST",
            f"{self.base_url}/api/v1/indices/plugin/web_search",
            signal,
            body={"uq": query, "page": 1, "rows": self.config.max_results or 10},
            headers={"Authorization": f"Bearer {self.config.api_key}"},
        )
        data = data if isinstance(data, dict) else {}
        if data.get("status") != 0:
            message = data.get("message")
            raise SearchFailure(f"API error: {message or 'Unknown error'}")
        inner = data.get("data")
        docs = inner.get("docs") if isinstance(inner, dict) else None
        results = [
            item(
                d.get("title"),
                d.get("url"),
                d.get("snippet"),
                d.get("_score"),
                d.get("timestamp_format"),
            )
            for d in (docs if isinstance(docs, list) else [])
            if isinstance(d, dict)
        ]
        return SearchOutcome(query, None, results)
