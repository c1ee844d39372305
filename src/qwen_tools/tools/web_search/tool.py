"""``web_search``: search the web through a configured provider (Tavily, Google, DashScope).

This is Qwen Code's provider design (``tools/web-search/``, before 0.24.4 replaced it with a
single DashScope search agent); the settings are described in
:mod:`qwen_tools.config.web_settings`. The tool is registered only when
:func:`web_search_enabled` is true, that is when the settings list providers or the
environment holds a provider key, as Qwen Code registers it only when its web search config
exists.

What the model receives::

    Web search results for "<query>" (via Tavily):

    <answer>

    Sources:
    [1] <title> (<url>)

Without an answer (Google, DashScope), the top five results are listed instead. The provider
is the one asked for (``provider``), else the configured default when it is usable, else the
first usable one. Error types: ``web_search_backend_failed`` when no provider can serve the
call, ``web_search_rate_limited`` on HTTP 429, ``web_search_failed`` for other provider
failures (the reference reports all of these as ``execution_failed``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Literal

from qwen_tools.config.config import Config
from qwen_tools.config.web_settings import WebSearchConfig, resolve_web_search
from qwen_tools.contract.abort import AbortSignal
from qwen_tools.contract.confirmation import InfoConfirmationDetails
from qwen_tools.contract.declarative import BaseDeclarativeTool
from qwen_tools.contract.errors import ToolErrorType
from qwen_tools.contract.invocation import BaseToolInvocation, ToolInvocation, UpdateOutput
from qwen_tools.contract.kinds import Kind
from qwen_tools.contract.results import ToolResult
from qwen_tools.contract.tool_names import ToolDisplayNames, ToolNames
from qwen_tools.tools.web_search.base import SearchFailure, SearchProvider, format_results
from qwen_tools.tools.web_search.dashscope import DashScopeProvider
from qwen_tools.tools.web_search.google import GoogleProvider
from qwen_tools.tools.web_search.params import WebSearchParams
from qwen_tools.tools.web_search.tavily import TavilyProvider

__all__ = ["WebSearchParams", "WebSearchTool", "web_search_enabled"]

_PROVIDERS: dict[str, type[SearchProvider]] = {
    "tavily": TavilyProvider,
    "google": GoogleProvider,
    "dashscope": DashScopeProvider,
}

_DESCRIPTION = (
    "Searches the web and returns a short answer with numbered source links (or the top "
    "results with snippets). Use it for current events, recent releases and anything that may "
    "have changed since your training data; follow up with web_fetch to read a source in full."
)

_SCHEMA: dict[str, Any] = {
    "properties": {
        "query": {"description": "What to search the web for.", "type": "string"},
        "provider": {
            "description": 'Search provider to use ("tavily", "google" or "dashscope"). Leave '
            "it out unless the user named one: the configured default, or the first "
            "available provider, is chosen automatically.",
            "type": "string",
        },
    },
    "required": ["query"],
    "type": "object",
}


def web_search_enabled(config: Config, env: Mapping[str, str] | None = None) -> bool:
    """Whether ``web_search`` should be registered: some provider is configured."""
    return resolve_web_search(config.settings.web.search, env) is not None


def _error(message: str, error_type: ToolErrorType, llm: str | None = None) -> ToolResult:
    return ToolResult.failure(
        message, error_type, llm_content=llm or message, display="Error performing web search."
    )


class WebSearchInvocation(BaseToolInvocation[WebSearchParams]):
    """One validated ``web_search`` call."""

    def __init__(
        self, config: Config, params: WebSearchParams, env: Mapping[str, str] | None
    ) -> None:
        super().__init__(params)
        self.config = config
        self.env = env

    @property
    def query(self) -> str:
        """The search query."""
        return str(self.params["query"])

    def _search_config(self) -> WebSearchConfig | None:
        return resolve_web_search(self.config.settings.web.search, self.env)

    def get_description(self) -> str:
        """The query and the provider that should serve it."""
        search = self._search_config()
        if search is None:
            return f'"{self.query}" (web search is disabled: configure a provider in settings.json)'
        return f'"{self.query}" (searching the web via {self.params.get("provider") or search.default})'

    async def should_confirm_execute(
        self, signal: AbortSignal
    ) -> InfoConfirmationDetails | Literal[False]:
        """Always ask (the query leaves the machine); the approval mode may approve it."""
        return InfoConfirmationDetails(
            title="Confirm Web Search", prompt=f'Search the web for: "{self.query}"'
        )

    def _select(self, search: WebSearchConfig) -> SearchProvider:
        usable: dict[str, SearchProvider] = {}
        for entry in search.providers:
            provider = _PROVIDERS[entry.type](entry)
            if provider.is_available():
                usable[entry.type] = provider
        requested = self.params.get("provider")
        if requested:
            chosen = usable.get(requested)
            if chosen is None:
                available = ", ".join(usable)
                raise SearchFailure(
                    f'The specified provider "{requested}" is not available. Available: {available}',
                    ToolErrorType.WEB_SEARCH_BACKEND_FAILED,
                )
            return chosen
        if search.default in usable:
            return usable[search.default]
        if not usable:
            raise SearchFailure(
                "No web search providers are available.", ToolErrorType.WEB_SEARCH_BACKEND_FAILED
            )
        return next(iter(usable.values()))

    async def execute(
        self, signal: AbortSignal, update_output: UpdateOutput | None = None
    ) -> ToolResult:
        """Pick the provider, search, and format the answer with its sources."""
        search = self._search_config()
        if search is None:
            return _error(
                "Web search is disabled",
                ToolErrorType.EXECUTION_FAILED,
                "Web search is disabled. Please configure a web search provider in your settings.",
            )
        query = self.query
        try:
            provider = self._select(search)
            outcome = await provider.search(query, signal)
        except SearchFailure as exc:
            message = f"Error during web search: {exc.message}"
            return _error(message, exc.error_type)
        content, _sources = format_results(outcome)
        if not content.strip():
            return ToolResult(
                llm_content=f'No search results found for query: "{query}" (via {provider.name})',
                return_display=f'No information found for "{query}".',
            )
        return ToolResult(
            llm_content=f'Web search results for "{query}" (via {provider.name}):\n\n{content}',
            return_display=f'Search results for "{query}".',
        )


class WebSearchTool(BaseDeclarativeTool[WebSearchParams]):
    """The ``web_search`` tool (display name ``WebSearch``, kind ``search``).

    ``env`` (default: ``os.environ`` at call time) supplies the provider keys when the settings
    list no providers.
    """

    Name: ClassVar[str] = ToolNames.WEB_SEARCH

    def __init__(self, config: Config, *, env: Mapping[str, str] | None = None) -> None:
        super().__init__(self.Name, ToolDisplayNames.WEB_SEARCH, _DESCRIPTION, Kind.SEARCH, _SCHEMA)
        self.config = config
        self.env = env

    def validate_tool_param_values(self, params: WebSearchParams) -> str | None:
        """A non-blank query; ``provider``, when given, non-blank too."""
        if not params["query"].strip():
            return "The 'query' parameter cannot be empty."
        provider = params.get("provider")
        if provider is not None and not provider.strip():
            return "The 'provider' parameter cannot be empty if specified."
        return None

    def create_invocation(self, params: WebSearchParams) -> ToolInvocation[WebSearchParams]:
        """Build the invocation for validated params."""
        return WebSearchInvocation(self.config, params, self.env)
