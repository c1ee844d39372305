"""Google Programmable Search (the Custom Search JSON API, ``GET /customsearch/v1``).

Query parameters as Qwen Code sends them: ``key``, ``cx`` (the engine id), ``q``, ``num``
(``maxResults``, default 10), ``safe``, and ``lr=lang_<language>`` / ``cr=country<country>``
when set. The API accepts at most 10 results per request and ``safe`` values ``active`` and
``off``: larger counts are capped at 10 and the older ``medium``/``high`` (Qwen Code's default
is ``medium``) are sent as ``active``.
"""

from __future__ import annotations

from typing import Any

from qwen_tools.contract.abort import AbortSignal
from qwen_tools.tools.web_search.base import SearchOutcome, SearchProvider, item, request_json

__all__ = ["GoogleProvider"]


class GoogleProvider(SearchProvider):
    """Search with a Programmable Search Engine; needs ``apiKey`` and ``searchEngineId``."""

    name = "Google"
    default_base_url = "https://www.googleapis.com"

    def is_available(self) -> bool:
        """Both the key and the engine id are configured."""
        return bool(self.config.api_key and self.config.search_engine_id)

    async def perform_search(self, query: str, signal: AbortSignal) -> SearchOutcome:
        """GET the results page and map its items (no answer: Google writes none)."""
        params = {
            "key": self.config.api_key or "",
            "cx": self.config.search_engine_id or "",
            "q": query,
            "num": str(min(self.config.max_results or 10, 10)),
            "safe": "off" if (self.config.safe_search or "").lower() == "off" else "active",
        }
        if self.config.language:
            params["lr"] = f"lang_{self.config.language}"
        if self.config.country:
            params["cr"] = f"country{self.config.country}"
        data: Any = await request_json(
            "GET", f"{self.base_url}/customsearch/v1", signal, params=params
        )
        raw = data.get("items") if isinstance(data, dict) else None
        results = [
            item(i.get("title"), i.get("link"), i.get("snippet"))
            for i in (raw if isinstance(raw, list) else [])
            if isinstance(i, dict)
        ]
        return SearchOutcome(query, None, results)
