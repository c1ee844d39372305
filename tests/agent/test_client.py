"""``ChatClient`` against the fake server: streaming, plain JSON, retries, errors, cancellation."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest

from qwen_tools import AbortController, AbortError
from qwen_tools.model.errors import (
    ModelConnectionError,
    ModelError,
    ModelHTTPError,
    format_api_error,
)
from qwen_tools.model.retry import RetryInfo
from support.fake_openai import FakeOpenAI, Reply, call

from .conftest import client_for


def body(stream: bool, **extra: object) -> bytes:
    request = {
        "model": "fake-model",
        "messages": [{"role": "user", "content": "hi"}],
        "stream": stream,
        **extra,
    }
    if stream:
        request["stream_options"] = {"include_usage": True}
    return json.dumps(request).encode()


@pytest.mark.parametrize("stream", [True, False])
async def test_text_and_tool_calls_are_assembled(server: FakeOpenAI, stream: bool) -> None:
    server.script = [
        Reply(
            content="Looking at the files.",
            reasoning="think first",
            tool_calls=[
                call("read_file", {"file_path": "/a/b.txt"}, "c1"),
                call("glob", {"pattern": "**/*.py"}, "c2"),
            ],
            split=4,
        )
    ]
    deltas: list[tuple[str, str]] = []
    async with client_for(server) as client:
        done = await client.complete(
            body(stream), stream=stream, on_delta=lambda t, r: deltas.append((t, r))
        )
    assert done.text == "Looking at the files."
    assert done.reasoning == "think first"
    assert [(c.id, c.name, c.args) for c in done.tool_calls] == [
        ("c1", "read_file", {"file_path": "/a/b.txt"}),
        ("c2", "glob", {"pattern": "**/*.py"}),
    ]
    assert done.finish_reason == "tool_calls"
    assert done.usage is not None and done.usage.total_tokens == 110
    if stream:
        assert "".join(t for t, _ in deltas) == "Looking at the files."
        assert len(deltas) > 2
        assert done.ttft_ms is not None
    else:
        assert deltas == []


async def test_request_carries_auth_and_user_agent(server: FakeOpenAI) -> None:
    async with client_for(server) as client:
        await client.complete(body(False), stream=False)
    headers = {k.lower(): v for k, v in server.headers[0].items()}
    assert headers["authorization"] == "Bearer sk-test"
    assert headers["user-agent"].startswith("qwen-tools/")
    assert server.raw_requests[0] == body(False)


async def test_interleaved_tool_call_deltas_go_to_their_index() -> None:
    chunks = [
        {"index": 0, "id": "a", "function": {"name": "read_file", "arguments": '{"file_'}},
        {"index": 1, "id": "b", "function": {"name": "glob", "arguments": '{"pat'}},
        {"index": 0, "function": {"arguments": 'path": "/x"}'}},
        {"index": 1, "function": {"arguments": 'tern": "*"}'}},
    ]
    from qwen_tools.model.completion import CompletionBuilder

    builder = CompletionBuilder()
    for delta in chunks:
        builder.add_chunk({"choices": [{"index": 0, "delta": {"tool_calls": [delta]}}]})
    done = builder.finish()
    assert [(c.id, c.args) for c in done.tool_calls] == [
        ("a", {"file_path": "/x"}),
        ("b", {"pattern": "*"}),
    ]


async def test_429_then_success_honours_retry_after_ms(server: FakeOpenAI) -> None:
    server.script = [
        Reply(status=429, headers={"retry-after-ms": "7"}),
        Reply(content="ok"),
    ]
    retries: list[RetryInfo] = []
    async with client_for(server, transport_retries=0) as client:
        done = await client.complete(body(True), stream=True, on_retry=retries.append)
    assert done.text == "ok"
    assert len(server.requests) == 2
    assert [(r.layer, r.delay_s) for r in retries] == [("attempt", 0.007)]


async def test_retry_after_seconds_is_used_by_the_transport_layer(server: FakeOpenAI) -> None:
    server.script = [Reply(status=503, headers={"Retry-After": "0.01"}), Reply(content="ok")]
    retries: list[RetryInfo] = []
    async with client_for(server, transport_retries=2) as client:
        done = await client.complete(body(False), stream=False, on_retry=retries.append)
    assert done.text == "ok"
    assert [(r.layer, r.delay_s) for r in retries] == [("transport", 0.01)]


async def test_5xx_exhaustion_reports_the_reference_message(server: FakeOpenAI) -> None:
    server.script = lambda _body: Reply(status=500, error={"error": {"message": "boom"}})
    async with client_for(server, transport_retries=1) as client:
        with pytest.raises(ModelHTTPError) as caught:
            await client.complete(body(True), stream=True)
    # 3 attempts (the FAST policy) x (1 + 1 transport retry)
    assert len(server.requests) == 6
    assert format_api_error(caught.value) == "[API Error: 500 boom]"


async def test_429_exhaustion_adds_the_rate_limit_hint(server: FakeOpenAI) -> None:
    server.script = lambda _body: Reply(status=429, error={"error": {"message": "slow down"}})
    async with client_for(server, transport_retries=0) as client:
        with pytest.raises(ModelHTTPError) as caught:
            await client.complete(body(False), stream=False)
    assert format_api_error(caught.value) == (
        "[API Error: 429 slow down]\nPossible quota limitations in place or slow response "
        "times detected. Please wait and try again later."
    )


@pytest.mark.parametrize(
    ("status", "error", "raw", "message"),
    [
        (400, {"error": {"message": "bad tools"}}, None, "400 bad tools"),
        (401, {"error": {"code": "invalid_api_key"}}, None, '401 {"code":"invalid_api_key"}'),
        (404, None, b"no such route", "404 no such route"),
        (403, None, b"", "403 status code (no body)"),
    ],
)
async def test_client_errors_fail_at_once(
    server: FakeOpenAI, status: int, error: object, raw: bytes | None, message: str
) -> None:
    server.script = lambda _body: Reply(status=status, error=error, raw=raw)
    async with client_for(server) as client:
        with pytest.raises(ModelHTTPError) as caught:
            await client.complete(body(False), stream=False)
    assert str(caught.value) == message
    assert len(server.requests) == 1


async def test_dropped_connections_are_retried_then_reported(server: FakeOpenAI) -> None:
    server.script = [Reply(drop=True), Reply(content="back")]
    async with client_for(server, transport_retries=0) as client:
        done = await client.complete(body(True), stream=True)
        assert done.text == "back"
        server.script = lambda _body: Reply(drop=True)
        with pytest.raises(ModelConnectionError) as caught:
            await client.complete(body(True), stream=True)
    assert format_api_error(caught.value) == "[API Error: Connection error.]"


async def test_error_inside_a_stream_is_an_api_error(server: FakeOpenAI) -> None:
    payload = (
        b'data: {"error": {"message": "content filtered", "code": "data_inspection_failed"}}\n\n'
    )
    server.script = lambda _body: Reply(raw=payload)
    async with client_for(server) as client:
        with pytest.raises(ModelHTTPError) as caught:
            await client.complete(body(True), stream=True)
    assert format_api_error(caught.value) == "[API Error: content filtered]"
    assert len(server.requests) == 1


async def test_cancellation_mid_stream_stops_the_request(server: FakeOpenAI) -> None:
    release = threading.Event()
    server.script = [Reply(content="first part, then more", hold=release, split=3)]
    controller = AbortController()
    seen: list[str] = []

    def on_delta(text: str, _reasoning: str) -> None:
        seen.append(text)
        controller.abort("user pressed Ctrl-C")

    async with client_for(server) as client:
        with pytest.raises(AbortError):
            await client.complete(
                body(True), stream=True, signal=controller.signal, on_delta=on_delta
            )
    release.set()
    assert seen == ["first p"]
    assert len(server.requests) == 1


async def test_cancellation_during_backoff(server: FakeOpenAI) -> None:
    server.script = lambda _body: Reply(status=503, headers={"retry-after": "30"})
    controller = AbortController()
    async with client_for(server, transport_retries=0) as client:
        task = asyncio.ensure_future(
            client.complete(body(False), stream=False, signal=controller.signal)
        )
        while not server.requests:
            await asyncio.sleep(0.01)
        controller.abort()
        with pytest.raises(AbortError):
            await task
    assert len(server.requests) == 1


async def test_generate_text(server: FakeOpenAI) -> None:
    server.script = [Reply(content="A summary.")]
    async with client_for(server) as client:
        text = await client.generate_text(
            "Summarise this", signal=AbortController().signal, system="Be brief"
        )
    assert text == "A summary."
    request = server.requests[0]
    assert request["stream"] is False
    assert request["messages"] == [
        {"role": "system", "content": "Be brief"},
        {"role": "user", "content": [{"type": "text", "text": "Summarise this"}]},
    ]


async def test_a_base_url_without_scheme_fails_at_once() -> None:
    from qwen_tools.model.client import ChatClient
    from qwen_tools.model.model_config import ModelConfig

    from .conftest import FAST

    config = ModelConfig(model="m", api_key="k", base_url="localhost:9/v1")
    async with ChatClient(config, policy=FAST) as client:
        with pytest.raises(ModelError) as caught:
            await client.complete(body(False), stream=False)
    assert format_api_error(caught.value).startswith(
        "[API Error: Invalid model endpoint 'localhost:9/v1/chat/completions'"
    )
