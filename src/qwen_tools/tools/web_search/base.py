"""What the ``web_search`` providers share: result types, the provider base, HTTP and formatting.

Formatting follows Qwen Code's provider-era ``web_search`` exactly: a provider's answer is
followed by a numbered ``Sources:`` list (``[1] <title> (<url>)``); without an answer, the top
five results are listed with snippet, source, relevance and date, then a note pointing at
``web_fetch``. Provider failures read ``[<Provider>] Search failed: <reason>``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, ClassVar

from qwen_tools.config.web_settings import SearchProviderConfig
from qwen_tools.contract.abort import AbortSignal
from qwen_tools.contract.errors import ToolErrorType

__all__ = [
    "SearchFailure",
    "SearchItem",
    "SearchOutcome",
    "SearchProvider",
    "format_results",
    "item",
    "request_json",
]

REQUEST_TIMEOUT_S = 60.0
_WEB_FETCH_NOTE = (
    "\n\n*Note: For detailed content from any source above, use the web_fetch tool with the URL.*"
)


@dataclass(frozen=True, slots=True)
class SearchItem:
    """One result: title, URL and what the provider says about it."""

    title: str
    url: str
    content: str | None = None
    score: float | None = None
    published_date: str | None = None


@dataclass(frozen=True, slots=True)
class SearchOutcome:
    """A provider's answer (if it writes one) and its results."""

    query: str
    answer: str | None
    results: list[SearchItem]


class SearchFailure(Exception):
    """A search that failed; the message is model-facing, ``error_type`` says why."""

    def __init__(self, message: str, error_type: ToolErrorType = ToolErrorType.WEB_SEARCH_FAILED):
        super().__init__(message)
        self.message = message
        self.error_type = error_type


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def item(
    title: Any, url: Any, content: Any = None, score: Any = None, date: Any = None
) -> SearchItem:
    """A result from loosely typed JSON fields (wrong types are dropped)."""
    return SearchItem(
        _text(title) or "", _text(url) or "", _text(content), _number(score), _text(date)
    )


async def request_json(
    method: str,
    url: str,
    signal: AbortSignal,
    *,
    params: Mapping[str, str] | None = None,
    body: Mapping[str, Any] | None = None,
    headers: Mapping[str, str] | None = None,
) -> Any:
    """Send one request and decode its JSON reply; raises :class:`SearchFailure` on failure."""
    import anyio
    import httpx

    reply: Any = None
    async with signal.cancel_scope():
        with anyio.move_on_after(REQUEST_TIMEOUT_S) as timer:
            try:
                async with httpx.AsyncClient(trust_env=False, timeout=None) as client:
                    response = await client.request(
                        method, url, params=params, json=body, headers=headers
                    )
            except httpx.HTTPError as exc:
                raise SearchFailure(f"fetch failed ({exc or type(exc).__name__})") from None
            if not response.is_success:
                text = response.text.strip()
                kind = (
                    ToolErrorType.WEB_SEARCH_RATE_LIMITED
                    if response.status_code == 429
                    else ToolErrorType.WEB_SEARCH_FAILED
                )
                raise SearchFailure(
                    f"API error: {response.status_code} {response.reason_phrase}"
                    + (f" - {text}" if text else ""),
                    kind,
                )
            try:
                reply = response.json()
            except ValueError:
                raise SearchFailure("API error: the response is not valid JSON") from None
    if signal.aborted:
        raise SearchFailure("Request aborted", ToolErrorType.EXECUTION_CANCELLED)
    if timer.cancelled_caught:
        raise SearchFailure(f"Request timed out after {round(REQUEST_TIMEOUT_S * 1000)}ms")
    return reply


class SearchProvider(ABC):
    """A search service configured by one ``tools.webSearch.provider`` entry."""

    name: ClassVar[str]
    default_base_url: ClassVar[str]

    def __init__(self, config: SearchProviderConfig) -> None:
        self.config = config

    @property
    def base_url(self) -> str:
        """``baseUrl`` from the settings, else the service's own, without a trailing slash."""
        return (self.config.base_url or self.default_base_url).rstrip("/")

    @abstractmethod
    def is_available(self) -> bool:
        """Whether the configuration has what a search needs (keys)."""

    @abstractmethod
    async def perform_search(self, query: str, signal: AbortSignal) -> SearchOutcome:
        """Run the search against the service."""

    async def search(self, query: str, signal: AbortSignal) -> SearchOutcome:
        """Run the search; failures come back prefixed with the provider's name."""
        if not self.is_available():
            raise SearchFailure(
                f"[{self.name}] Provider is not available. Please check your configuration.",
                ToolErrorType.WEB_SEARCH_BACKEND_FAILED,
            )
        try:
            return await self.perform_search(query, signal)
        except SearchFailure as exc:
            if exc.error_type == ToolErrorType.EXECUTION_CANCELLED:
                raise
            raise SearchFailure(
                f"[{self.name}] Search failed: {exc.message}", exc.error_type
            ) from None


def _percent(score: float) -> str:
    """``(score * 100).toFixed(0)`` as JavaScript rounds it (halves away from zero)."""
    value = Decimal(score * 100).quantize(Decimal(1), rounding=ROUND_HALF_UP)
    return str(value if value != 0 else Decimal(0))


def _listing(results: list[SearchItem]) -> str:
    blocks = []
    for index, result in enumerate(results[:5], start=1):
        lines = [f"{index}. **{result.title}**"]
        if result.content and result.content.strip():
            lines.append(f"   {result.content.strip()}")
        lines.append(f"   Source: {result.url}")
        if result.score is not None:
            lines.append(f"   Relevance: {_percent(result.score)}%")
        if result.published_date:
            lines.append(f"   Published: {result.published_date}")
        blocks.append("\n".join(lines))
    text = "\n\n".join(blocks)
    return text + _WEB_FETCH_NOTE if text else text


def format_results(outcome: SearchOutcome) -> tuple[str, list[dict[str, str]]]:
    """The text after the result header, and the sources (title and URL of every result)."""
    sources = [{"title": r.title, "url": r.url} for r in outcome.results]
    answer = (outcome.answer or "").strip()
    if not answer:
        return _listing(outcome.results), sources
    if not sources:
        return answer, sources
    numbered = "\n".join(
        f"[{i}] {s['title'] or 'Untitled'} ({s['url']})" for i, s in enumerate(sources, start=1)
    )
    return f"{answer}\n\nSources:\n{numbered}", sources
