"""web_fetch against a real HTTP server on 127.0.0.1: conversion, model processing, failures."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from qwen_tools import ApprovalMode, Config, ToolCallRequest, ToolRegistry, run_tool_call
from qwen_tools.config.tool_settings import ToolSettings
from qwen_tools.config.web_settings import WebFetchSettings, WebSettings
from qwen_tools.contract.abort import AbortController, AbortSignal
from qwen_tools.contract.confirmation import InfoConfirmationDetails
from qwen_tools.contract.errors import ToolErrorType
from qwen_tools.contract.results import ToolResult
from qwen_tools.tools.web_fetch.tool import WebFetchTool
from support.web_server import LocalServer, Recorded, Reply, local_server

PAGE = (
    "<html><head><title>Doc</title><style>body{color:red}</style>"
    "<script>var secret = 1;</script></head><body><h1>Release notes</h1>"
    "<noscript>enable js</noscript><p>Version <b>2.0</b> is out, see "
    '<a href="https://example.org/changes">the changes</a>.</p>'
    '<img src="logo.png" alt="logo"><ul><li>faster</li><li>smaller</li></ul></body></html>'
)


class RecordingModel:
    """A stand-in for the session's model: records what it is asked, answers as told."""

    def __init__(self, answer: str = "The answer.", error: Exception | None = None) -> None:
        self.answer, self.error = answer, error
        self.calls: list[dict[str, Any]] = []

    async def generate_text(
        self, prompt: str, *, signal: AbortSignal, system: str | None = None
    ) -> str:
        self.calls.append({"prompt": prompt, "system": system, "signal": signal})
        if self.error is not None:
            raise self.error
        return self.answer


def make_config(ws: Path, **fetch: Any) -> Config:
    fetch.setdefault("allowed_networks", ("127.0.0.1/32",))
    settings = ToolSettings(web=WebSettings(fetch=WebFetchSettings(**fetch)))
    return Config(ws, settings=settings)


@pytest.fixture
def server() -> Iterator[LocalServer]:
    with local_server() as running:
        yield running


async def fetch(config: Config, url: str, prompt: str = "Summarise", **extra: Any) -> ToolResult:
    tool = WebFetchTool(config)
    return await tool.build({"url": url, "prompt": prompt, **extra}).execute(AbortSignal.never())


def header(url: str, content_type: str, size: int, final: str | None = None) -> str:
    line = f"URL: {url}" + (f" (final: {final})" if final else "")
    return f"{line}\nStatus: 200 OK | Content-Type: {content_type} | Size: {size:,} bytes"


NO_MODEL = (
    "[No model is configured to process this content, so it follows unprocessed: apply the "
    "prompt to it yourself.]"
)


async def test_html_page_is_converted_to_markdown_without_a_model(
    ws: Path, server: LocalServer
) -> None:
    server.routes["/page"] = Reply(200, PAGE, {"Content-Type": "text/html; charset=utf-8"})
    url = server.url("/page")
    result = await fetch(make_config(ws), url)
    assert result.error is None
    text = result.llm_content
    assert isinstance(text, str)
    expected_head = header(url, "text/html; charset=utf-8", len(PAGE.encode())) + "\n\n"
    assert text.startswith(expected_head + NO_MODEL + "\n\n")
    body = text[len(expected_head + NO_MODEL) + 2 :]
    assert "# Release notes" in body
    assert "Version **2.0** is out, see [the changes](https://example.org/changes)." in body
    assert "* faster\n* smaller" in body
    for dropped in ("secret", "color:red", "enable js", "logo"):
        assert dropped not in body
    assert isinstance(result.return_display, str)
    assert result.return_display.startswith(
        f"Received {len(PAGE)} bytes (200 OK) from 127.0.0.1 in "
    )
    assert result.return_display.endswith("no model configured, content returned unprocessed")
    request = server.requests[0]
    assert (
        request.headers["accept"] == "text/markdown, text/html;q=0.9, text/plain;q=0.8, */*;q=0.1"
    )
    assert request.headers["user-agent"].startswith("qwen-tools/")


async def test_plain_text_is_passed_as_is(ws: Path, server: LocalServer) -> None:
    body = "line one\n  <b>not html</b>\nline three\n"
    server.routes["/notes.txt"] = Reply(200, body, {"Content-Type": "text/plain"})
    url = server.url("/notes.txt")
    result = await fetch(make_config(ws), url, format="text")
    assert result.llm_content == f"{header(url, 'text/plain', len(body))}\n\n{NO_MODEL}\n\n{body}"
    assert server.requests[0].headers["accept"] == "text/plain, */*;q=0.1"


async def test_charset_of_the_content_type_is_used(ws: Path, server: LocalServer) -> None:
    server.routes["/latin"] = Reply(
        200,
        "caf\xe9 cr\xe8me".encode("latin-1"),
        {"Content-Type": "text/plain; charset=ISO-8859-1"},
    )
    result = await fetch(make_config(ws), server.url("/latin"))
    assert isinstance(result.llm_content, str)
    assert result.llm_content.endswith("\n\ncafé crème")


async def test_the_model_gets_the_prompt_and_the_content(ws: Path, server: LocalServer) -> None:
    server.routes["/page"] = Reply(200, PAGE, {"Content-Type": "text/html"})
    config = make_config(ws)
    model = RecordingModel("  Version 2.0 is faster and smaller.  ")
    config.services.model.lend(content_generator=model)
    url = server.url("/page")
    result = await fetch(config, url, prompt="What changed in 2.0?")
    head = header(url, "text/html", len(PAGE))
    assert result.llm_content == f"{head}\n\nVersion 2.0 is faster and smaller."
    assert result.error is None
    (call,) = model.calls
    prompt = call["prompt"]
    assert '"What changed in 2.0?"' in prompt
    assert url in prompt
    assert head in prompt
    content = prompt.split("\n---\n", 1)[1]
    assert content.startswith("Doc\n\n# Release notes")
    assert content.endswith("\n---")
    assert call["system"]
    assert isinstance(call["signal"], AbortSignal)


async def test_a_failing_model_falls_back_to_the_raw_content(ws: Path, server: LocalServer) -> None:
    server.routes["/t"] = Reply(200, "raw words", {"Content-Type": "text/plain"})
    config = make_config(ws)
    config.services.model.lend(
        content_generator=RecordingModel(error=RuntimeError("model unavailable"))
    )
    url = server.url("/t")
    result = await fetch(config, url)
    assert result.error is None
    assert result.llm_content == (
        f"{header(url, 'text/plain', 9)}\n\n[Content processing failed (model unavailable). "
        "The raw fetched content follows.]\n\nraw words"
    )
    assert isinstance(result.return_display, str)
    assert result.return_display.endswith("processing failed, raw content returned")


async def test_an_empty_answer_is_reported(ws: Path, server: LocalServer) -> None:
    server.routes["/t"] = Reply(200, "words", {"Content-Type": "text/plain"})
    config = make_config(ws)
    config.services.model.lend(content_generator=RecordingModel("   "))
    url = server.url("/t")
    result = await fetch(config, url)
    assert result.llm_content == (
        f"{header(url, 'text/plain', 5)}\n\n[The processing model returned no content. "
        "The fetch itself succeeded \u2014 see the metadata above.]"
    )


async def test_a_404_is_a_typed_error(ws: Path, server: LocalServer) -> None:
    url = server.url("/missing")
    result = await fetch(make_config(ws), url)
    message = f"Error during fetch for {url}: Request failed with status code 404 Not Found"
    assert result.error is not None
    assert result.error.message == message
    assert result.error.type == ToolErrorType.WEB_FETCH_FALLBACK_FAILED
    assert result.llm_content == f"Error: {message}"


async def test_a_429_is_retried_once_then_reported(ws: Path, server: LocalServer) -> None:
    server.routes["/busy"] = Reply(429, "slow down")
    url = server.url("/busy")
    result = await fetch(make_config(ws), url)
    assert result.error is not None
    assert result.error.message.endswith("Request failed with status code 429 Too Many Requests")
    assert [r.path for r in server.requests] == ["/busy", "/busy"]


async def test_a_body_over_the_cap_is_cut_at_the_cap(ws: Path, server: LocalServer) -> None:
    cap = 10 * 1024 * 1024
    server.routes["/big"] = Reply(200, b"a" * (cap + 5000), {"Content-Type": "text/plain"})
    url = server.url("/big")
    result = await fetch(make_config(ws), url)
    text = result.llm_content
    assert isinstance(text, str)
    assert text.startswith(
        f"{header(url, 'text/plain', cap)}\n[Only the first 10,485,760 bytes of the response "
        "were read (size limit).]\n\n"
    )
    assert text.endswith("of 10,485,760 characters]")
    assert len(text) < 25_000  # within the output budget of the no-model fallback


async def test_a_slow_server_times_out(ws: Path, server: LocalServer) -> None:
    server.routes["/slow"] = server.hang
    url = server.url("/slow")
    result = await fetch(make_config(ws, timeout_ms=300), url)
    assert result.error is not None
    assert result.error.message == f"Error during fetch for {url}: Request timed out after 300ms"


async def test_cancelling_stops_the_fetch(ws: Path, server: LocalServer) -> None:
    arrived = threading.Event()

    def slow(request: Recorded) -> Reply:
        arrived.set()
        return server.hang(request)

    server.routes["/slow"] = slow
    controller = AbortController()
    invocation = WebFetchTool(make_config(ws)).build({"url": server.url("/slow"), "prompt": "x"})
    results: list[ToolResult] = []

    async def run() -> None:
        results.append(await invocation.execute(controller.signal))

    async with anyio.create_task_group() as group:
        group.start_soon(run)
        assert await anyio.to_thread.run_sync(arrived.wait, 10)
        controller.abort()
    (result,) = results
    assert result.error is not None
    assert result.error.type == ToolErrorType.EXECUTION_CANCELLED
    assert result.error.message.endswith(": Request aborted")


async def test_a_second_fetch_comes_from_the_cache(ws: Path, server: LocalServer) -> None:
    server.routes["/t"] = Reply(200, "cached words", {"Content-Type": "text/plain"})
    config = make_config(ws)
    first = await fetch(config, server.url("/t"))
    second = await fetch(config, server.url("/t"), prompt="Something else")
    assert first.llm_content == second.llm_content
    assert len(server.requests) == 1


async def test_binary_content_is_saved_for_read_file(ws: Path, server: LocalServer) -> None:
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(200))
    server.routes["/logo"] = Reply(200, png, {"Content-Type": "image/png"})
    url = server.url("/logo")
    result = await fetch(make_config(ws), url)
    (saved,) = result.result_file_paths
    assert Path(saved).read_bytes() == png
    assert Path(saved).parent.name == "tool-results"
    assert result.llm_content == (
        f"{header(url, 'image/png', len(png))}\n\n[No text could be extracted from this binary "
        f"content.]\n\n[Binary content (image/png, {len(png)} bytes) saved to {saved}. Use "
        "read_file to view it.]"
    )


async def test_confirmation_is_an_info_request(ws: Path) -> None:
    invocation = WebFetchTool(make_config(ws)).build(
        {"url": "https://github.com/o/r/blob/main/README.md", "prompt": "Read it"}
    )
    details = await invocation.should_confirm_execute(AbortSignal.never())
    assert isinstance(details, InfoConfirmationDetails)
    url = "https://raw.githubusercontent.com/o/r/main/README.md"
    assert details.title == "Confirm Web Fetch"
    assert details.prompt == f"Fetch content from {url} and process with: Read it"
    assert details.urls == (url,)


async def test_the_full_call_flow_in_yolo_mode(ws: Path, server: LocalServer) -> None:
    server.routes["/t"] = Reply(200, "flow", {"Content-Type": "text/plain"})
    config = make_config(ws)
    config.approval_mode = ApprovalMode.YOLO
    config.services.model.lend(content_generator=RecordingModel("Flow answer."))
    url = server.url("/t")
    request = ToolCallRequest("web_fetch", {"url": url, "prompt": "what?"})
    done = await run_tool_call(ToolRegistry([WebFetchTool(config)]), config, request)
    assert done.status == "success"
    assert done.response_text == f"{header(url, 'text/plain', 4)}\n\nFlow answer."


async def test_large_inline_scripts_do_not_use_up_the_conversion(
    ws: Path, server: LocalServer
) -> None:
    script = "<script>" + "x = 1;\n" * 400_000 + "</script>"
    page = f"<html><head>{script}</head><body><p>The real text.</p></body></html>"
    server.routes["/app"] = Reply(200, page, {"Content-Type": "text/html"})
    result = await fetch(make_config(ws), server.url("/app"))
    assert isinstance(result.llm_content, str)
    assert result.llm_content.endswith(f"{NO_MODEL}\n\nThe real text.")
