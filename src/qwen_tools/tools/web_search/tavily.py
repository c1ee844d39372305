"""Tavily (``POST /search`` on api.tavily.com): an answer written by Tavily plus ranked results.

Request: ``{"api_key", "query", "search_depth", "max_results", "include_answer"}`` as Qwen Code
sends it (the key also goes in an ``Authorization: Bearer`` header, which Tavily's current API
documents); defaults ``advanced``, 5 results, answer on.
"""

from __future__ import annotations

from typing import Any

from qwen_tools.contract.abort import AbortSignal
from qwen_tools.tools.web_search.base import SearchOutcome, SearchProvider, item, request_json

__all__ = ["TavilyProvider"]


class TavilyProvider(SearchProvider):
    """Search with Tavily; needs ``apiKey``."""

    name = "Tavily"
    default_base_url = "https://api.tavily.com"

    def is_available(self) -> bool:
        """A key is configured."""
        return bool(self.config.api_key)

    async def perform_search(self, query: str, signal: AbortSignal) -> SearchOutcome:
        """POST the query and map Tavily's results."""
        key = self.config.api_key or ""
        body = {
            "api_key": key,
            "query": query,
            "search_depth": self.config.search_depth or "advanced",
            "max_results": self.config.max_results or 5,
            "include_answer": self.config.include_answer is not False,
        }
        data: Any = await request_json(
            "POST",
            f"{self.base_url}/search",
            signal,
            body=body,
            headers={"Authorization": f"Bearer {key}"},
        )
        data = data if isinstance(data, dict) else {}
        raw = data.get("results")
        results = [
            item(
                r.get("title"),
                r.get("url"),
                r.get("content"),
                r.get("score"),
                r.get("published_date"),
            )
            for r in (raw if isinstance(raw, list) else [])
            if isinstance(r, dict)
        ]
        answer = data.get("answer")
        return SearchOutcome(query, answer.strip() if isinstance(answer, str) else None, results)
