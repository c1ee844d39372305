"""web_search against local servers speaking the Tavily, Google and DashScope APIs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from qwen_tools import Config
from qwen_tools.config.tool_settings import ToolSettings
from qwen_tools.config.web_settings import SearchProviderConfig, WebSearchSettings, WebSettings
from qwen_tools.contract.abort import AbortSignal
from qwen_tools.contract.confirmation import InfoConfirmationDetails
from qwen_tools.contract.errors import ToolErrorType
from qwen_tools.contract.results import ToolResult
from qwen_tools.tools.web_search.tool import WebSearchTool, web_search_enabled
from support.web_server import LocalServer, Reply, local_server

NOTE = "*Note: For detailed content from any source above, use the web_fetch tool with the URL.*"
TAVILY_PATH = "/search"
GOOGLE_PATH = "/customsearch/v1"
DASHSCOPE_PATH = "/api/v1/indices/plugin/web_search"


@pytest.fixture
def server() -> Iterator[LocalServer]:
    with local_server() as running:
        yield running


def json_reply(data: Any, status: int = 200) -> Reply:
    return Reply(status, json.dumps(data), {"Content-Type": "application/json"})


def make_config(ws: Path, *providers: SearchProviderConfig, default: str | None = None) -> Config:
    search = WebSearchSettings(providers=providers, default=default)
    return Config(ws, settings=ToolSettings(web=WebSettings(search=search)))


async def search(config: Config, query: str, **extra: Any) -> ToolResult:
    tool = WebSearchTool(config, env={})
    return await tool.build({"query": query, **extra}).execute(AbortSignal.never())


async def test_tavily_answer_with_numbered_sources(ws: Path, server: LocalServer) -> None:
    server.routes[TAVILY_PATH] = json_reply(
        {
            "query": "python 3.13",
            "answer": " Python 3.13 was released in October 2024. ",
            "results": [
                {
                    "title": "What's New In Python 3.13",
                    "url": "https://docs.python.org/3.13",
                    "content": "...",
                },
                {"title": "", "url": "https://example.org/x", "score": 0.5},
            ],
        }
    )
    config = make_config(
        ws, SearchProviderConfig("tavily", api_key="tvly-key", base_url=server.url(""))
    )
    result = await search(config, "python 3.13")
    assert result.error is None
    assert result.llm_content == (
        'Web search results for "python 3.13" (via Tavily):\n\n'
        "Python 3.13 was released in October 2024.\n\n"
        "Sources:\n[1] What's New In Python 3.13 (https://docs.python.org/3.13)\n"
        "[2] Untitled (https://example.org/x)"
    )
    assert result.return_display == 'Search results for "python 3.13".'
    (request,) = server.requests
    assert request.method == "POST"
    assert request.headers["authorization"] == "Bearer tvly-key"
    assert request.headers["content-type"] == "application/json"
    assert json.loads(request.body) == {
        "api_key": "tvly-key",
        "query": "python 3.13",
        "search_depth": "advanced",
        "max_results": 5,
        "include_answer": True,
    }


async def test_tavily_results_without_an_answer(ws: Path, server: LocalServer) -> None:
    results = [
        {"title": f"T{n}", "url": f"https://e.org/{n}", "content": f" snippet {n} ", "score": s}
        for n, s in enumerate([0.125, 0.875, 0.994, 0.0049, 0.5, 0.1], start=1)
    ]
    results[0]["published_date"] = "2024-10-07"
    server.routes[TAVILY_PATH] = json_reply({"query": "q", "results": results})
    provider = SearchProviderConfig(
        "tavily",
        api_key="k",
        search_depth="basic",
        max_results=6,
        include_answer=False,
        base_url=server.url("/"),
    )
    result = await search(make_config(ws, provider), "q")
    blocks = [
        "1. **T1**\n   snippet 1\n   Source: https://e.org/1\n   Relevance: 13%\n   Published: 2024-10-07",
        "2. **T2**\n   snippet 2\n   Source: https://e.org/2\n   Relevance: 88%",
        "3. **T3**\n   snippet 3\n   Source: https://e.org/3\n   Relevance: 99%",
        "4. **T4**\n   snippet 4\n   Source: https://e.org/4\n   Relevance: 0%",
        "5. **T5**\n   snippet 5\n   Source: https://e.org/5\n   Relevance: 50%",
    ]
    assert result.llm_content == (
        'Web search results for "q" (via Tavily):\n\n' + "\n\n".join(blocks) + "\n\n" + NOTE
    )
    body = json.loads(server.requests[0].body)
    assert (body["search_depth"], body["max_results"], body["include_answer"]) == (
        "basic",
        6,
        False,
    )


async def test_google_request_and_listing(ws: Path, server: LocalServer) -> None:
    server.routes[GOOGLE_PATH] = json_reply(
        {
            "kind": "customsearch#search",
            "items": [
                {"title": "Result A", "link": "https://a.example/", "snippet": "About A."},
                {"title": "Result B", "link": "https://b.example/"},
            ],
        }
    )
    provider = SearchProviderConfig(
        "google",
        api_key="g-key",
        search_engine_id="engine-1",
        language="en",
        country="US",
        base_url=server.url(""),
    )
    result = await search(make_config(ws, provider), "rust async")
    assert result.llm_content == (
        'Web search results for "rust async" (via Google):\n\n'
        "1. **Result A**\n   About A.\n   Source: https://a.example/\n\n"
        "2. **Result B**\n   Source: https://b.example/\n\n" + NOTE
    )
    (request,) = server.requests
    assert request.method == "GET"
    assert request.query == {
        "key": ["g-key"],
        "cx": ["engine-1"],
        "q": ["rust async"],
        "num": ["10"],
        "safe": ["active"],
        "lr": ["lang_en"],
        "cr": ["countryUS"],
    }


async def test_dashscope_request_and_listing(ws: Path, server: LocalServer) -> None:
    server.routes[DASHSCOPE_PATH] = json_reply(
        {
            "rid": "r1",
            "status": 0,
            "message": None,
            "success": True,
            "data": {
                "total": 1,
                "docs": [
                    {
                        "_id": "1",
                        "title": "通义千问",
                        "url": "https://qwen.example/",
                        "snippet": "Qwen models",
                        "_score": 0.42,
                        "timestamp_format": "2025-01-02 03:04:05",
                        "hostname": "qwen.example",
                    }
                ],
            },
        }
    )
    provider = SearchProviderConfig(
        "dashscope", api_key="sk-ds", max_results=3, base_url=server.url("")
    )
    result = await search(make_config(ws, provider), "qwen")
    assert result.llm_content == (
        'Web search results for "qwen" (via DashScope):\n\n'
        "1. **通义千问**\n   Qwen models\n   Source: https://qwen.example/\n   Relevance: 42%\n"
        "   Published: 2025-01-02 03:04:05\n\n" + NOTE
    )
    (request,) = server.requests
    assert request.headers["authorization"] == "Bearer sk-ds"
    assert json.loads(request.body) == {"uq": "qwen", "page": 1, "rows": 3}


async def test_dashscope_error_status(ws: Path, server: LocalServer) -> None:
    server.routes[DASHSCOPE_PATH] = json_reply({"status": 1001, "message": "quota exceeded"})
    provider = SearchProviderConfig("dashscope", api_key="sk", base_url=server.url(""))
    result = await search(make_config(ws, provider), "qwen")
    assert result.error is not None
    assert result.error.message == (
        "Error during web search: [DashScope] Search failed: API error: quota exceeded"
    )
    assert result.error.type == ToolErrorType.WEB_SEARCH_FAILED
    assert result.return_display == "Error performing web search."


async def test_http_errors_carry_status_and_body(ws: Path, server: LocalServer) -> None:
    server.routes[TAVILY_PATH] = json_reply({"detail": {"error": "Unauthorized"}}, status=401)
    provider = SearchProviderConfig("tavily", api_key="bad", base_url=server.url(""))
    result = await search(make_config(ws, provider), "q")
    assert result.error is not None
    assert result.error.message == (
        "Error during web search: [Tavily] Search failed: API error: 401 Unauthorized - "
        '{"detail": {"error": "Unauthorized"}}'
    )


async def test_rate_limits_are_typed(ws: Path, server: LocalServer) -> None:
    server.routes[GOOGLE_PATH] = Reply(429, "")
    provider = SearchProviderConfig(
        "google", api_key="k", search_engine_id="e", base_url=server.url("")
    )
    result = await search(make_config(ws, provider), "q")
    assert result.error is not None
    assert result.error.message == (
        "Error during web search: [Google] Search failed: API error: 429 Too Many Requests"
    )
    assert result.error.type == ToolErrorType.WEB_SEARCH_RATE_LIMITED


async def test_no_results(ws: Path, server: LocalServer) -> None:
    server.routes[TAVILY_PATH] = json_reply({"query": "zzz", "results": []})
    provider = SearchProviderConfig("tavily", api_key="k", base_url=server.url(""))
    result = await search(make_config(ws, provider), "zzz")
    assert result.error is None
    assert result.llm_content == 'No search results found for query: "zzz" (via Tavily)'
    assert result.return_display == 'No information found for "zzz".'


async def test_missing_keys_leave_no_provider(ws: Path) -> None:
    config = make_config(
        ws, SearchProviderConfig("tavily"), SearchProviderConfig("google", api_key="only-key")
    )
    assert web_search_enabled(config, env={})  # configured, as Qwen Code registers it
    result = await search(config, "q")
    assert result.error is not None
    assert result.error.message == "Error during web search: No web search providers are available."
    assert result.error.type == ToolErrorType.WEB_SEARCH_BACKEND_FAILED


async def test_a_requested_provider_must_be_usable(ws: Path, server: LocalServer) -> None:
    config = make_config(
        ws,
        SearchProviderConfig("tavily", api_key="k", base_url=server.url("")),
        SearchProviderConfig("google", api_key="k"),
    )
    result = await search(config, "q", provider="google")
    assert result.error is not None
    assert result.error.message == (
        'Error during web search: The specified provider "google" is not available. Available: tavily'
    )
    assert server.requests == []


async def test_provider_choice(ws: Path, server: LocalServer) -> None:
    server.routes[TAVILY_PATH] = json_reply({"answer": "from tavily", "results": []})
    server.routes[DASHSCOPE_PATH] = json_reply(
        {"status": 0, "data": {"docs": [{"title": "D", "url": "https://d.example/"}]}}
    )
    tavily = SearchProviderConfig("tavily", api_key="k", base_url=server.url(""))
    dashscope = SearchProviderConfig("dashscope", api_key="k", base_url=server.url(""))
    by_default = await search(make_config(ws, tavily, dashscope, default="dashscope"), "q")
    assert "(via DashScope)" in str(by_default.llm_content)
    by_priority = await search(make_config(ws, dashscope, tavily), "q")
    assert by_priority.llm_content == 'Web search results for "q" (via Tavily):\n\nfrom tavily'
    requested = await search(make_config(ws, tavily, dashscope), "q", provider="dashscope")
    assert "(via DashScope)" in str(requested.llm_content)
    unusable_default = await search(
        make_config(ws, SearchProviderConfig("google"), dashscope, default="google"), "q"
    )
    assert "(via DashScope)" in str(unusable_default.llm_content)


async def test_disabled_search(ws: Path) -> None:
    config = Config(ws)
    assert not web_search_enabled(config, env={})
    result = await search(config, "q")
    assert result.error is not None
    assert result.error.message == "Web search is disabled"
    assert result.llm_content == (
        "Web search is disabled. Please configure a web search provider in your settings."
    )


def test_validation_and_declaration(ws: Path) -> None:
    tool = WebSearchTool(Config(ws), env={})
    assert tool.validate_tool_params({"query": "  "}) == "The 'query' parameter cannot be empty."
    assert (
        tool.validate_tool_params({"query": "x", "provider": " "})
        == "The 'provider' parameter cannot be empty if specified."
    )
    assert tool.validate_tool_params({}) == "params must have required property 'query'"
    assert (tool.name, tool.display_name, tool.kind.value) == ("web_search", "WebSearch", "search")
    assert tool.schema.parameters_json_schema["required"] == ["query"]


async def test_confirmation(ws: Path) -> None:
    invocation = WebSearchTool(Config(ws), env={}).build({"query": "weather in Paris"})
    details = await invocation.should_confirm_execute(AbortSignal.never())
    assert isinstance(details, InfoConfirmationDetails)
    assert details.title == "Confirm Web Search"
    assert details.prompt == 'Search the web for: "weather in Paris"'
