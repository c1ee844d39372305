"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1, over real HTTP (a test peer).

Each POST to ``/v1/chat/completions`` is answered with the next :class:`Reply` of the script
(or by a callable that sees the request body); ``GET /v1/models`` lists ``models``. A reply is
a message (text, tool calls, reasoning) sent as server-sent events when the request asks for
``stream: true`` and as one ``chat.completion`` object otherwise, or an HTTP error with headers
(``Retry-After``...), or
a dropped connection. A streamed reply can stop half-way until a :class:`threading.Event` is
set (to test cancellation). Every request body is recorded in :attr:`FakeOpenAI.requests`.
Ideas taken from the qwen-diff harness's ``fake_openai_server.py``.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["FakeOpenAI", "Reply", "call"]

USAGE = {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}


def call(name: str, arguments: Any = None, call_id: str | None = None) -> dict[str, Any]:
    """A scripted tool call (``arguments``: an object, or a raw string sent verbatim)."""
    return {"name": name, "arguments": {} if arguments is None else arguments, "id": call_id}


@dataclass
class Reply:
    """One scripted answer."""

    content: str | None = None
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    reasoning: str | None = None
    status: int = 200
    error: Any = None
    """The JSON body of an error reply (default: ``{"error": {"message": "boom"}}``)."""
    raw: bytes | None = None
    """A raw body sent instead of the generated one."""
    headers: dict[str, str] = field(default_factory=dict)
    usage: dict[str, int] | None = field(default_factory=lambda: dict(USAGE))
    finish_reason: str | None = None
    hold: threading.Event | None = None
    """Streaming only: after the first content piece, wait for this event before the rest."""
    drop: bool = False
    """Close the connection without answering."""
    split: int = 2
    """Streaming: how many pieces text and each call's arguments are cut into."""


def _pieces(text: str, count: int) -> list[str]:
    if not text:
        return []
    size = max(1, -(-len(text) // max(1, count)))
    return [text[i : i + size] for i in range(0, len(text), size)]


class FakeOpenAI:
    """The server; use as a context manager (``with FakeOpenAI([...]) as server: server.url``)."""

    def __init__(
        self,
        script: list[Reply] | Callable[[dict[str, Any]], Reply] | None = None,
        *,
        model: str = "fake-model",
        default: Reply | None = None,
        models: list[str] | None = None,
    ) -> None:
        """``models``: what ``GET /v1/models`` lists (``None``: it answers 404)."""
        self.script = script if script is not None else []
        self.model = model
        self.models = models
        self.default = default or Reply(content="Done.")
        self.requests: list[dict[str, Any]] = []
        self.raw_requests: list[bytes] = []
        self.headers: list[dict[str, str]] = []
        self.disconnects = 0
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle --------------------------------------------------------------------------

    @property
    def url(self) -> str:
        """The base URL (``http://127.0.0.1:<port>/v1``)."""
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def start(self) -> FakeOpenAI:
        server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        server.daemon_threads = True
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
        self._thread.daemon = True
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- replies ----------------------------------------------------------------------------

    def _next(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            self.requests.append(body)
            if callable(self.script):
                return self.script(body)
            if self.script:
                return self.script.pop(0)
            return self.default

    def _tool_calls(self, reply: Reply, turn: int) -> list[dict[str, Any]]:
        calls = []
        for index, spec in enumerate(reply.tool_calls):
            arguments = spec.get("arguments", {})
            if not isinstance(arguments, str):
                arguments = json.dumps(arguments, ensure_ascii=False)
            calls.append(
                {
                    "id": spec.get("id") or f"call_{turn}_{index}",
                    "type": "function",
                    "function": {"name": spec["name"], "arguments": arguments},
                }
            )
        return calls

    def completion(self, reply: Reply, turn: int) -> dict[str, Any]:
        """The non-streamed body for ``reply``."""
        calls = self._tool_calls(reply, turn)
        message: dict[str, Any] = {"role": "assistant", "content": reply.content}
        if reply.reasoning:
            message["reasoning_content"] = reply.reasoning
        if calls:
            message["tool_calls"] = calls
        body: dict[str, Any] = {
            "id": f"chatcmpl-{turn}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.model,
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": reply.finish_reason or ("tool_calls" if calls else "stop"),
                }
            ],
        }
        if reply.usage is not None:
            body["usage"] = reply.usage
        return body

    def chunks(self, reply: Reply, turn: int, include_usage: bool) -> Iterator[dict[str, Any]]:
        """The stream chunks for ``reply`` (``None`` marks where ``hold`` waits)."""
        base = {"id": f"chatcmpl-{turn}", "object": "chat.completion.chunk", "model": self.model}

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

        yield chunk({"role": "assistant", "content": ""})
        for piece in _pieces(reply.reasoning or "", reply.split):
            yield chunk({"reasoning_content": piece})
        for number, piece in enumerate(_pieces(reply.content or "", reply.split)):
            yield chunk({"content": piece})
            if number == 0 and reply.hold is not None:
                yield {}
        calls = self._tool_calls(reply, turn)
        for index, tool_call in enumerate(calls):
            head = {"index": index, "id": tool_call["id"], "type": "function"}
            head["function"] = {"name": tool_call["function"]["name"], "arguments": ""}
            yield chunk({"tool_calls": [head]})
            for piece in _pieces(tool_call["function"]["arguments"], reply.split):
                yield chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
        finish = reply.finish_reason or ("tool_calls" if calls else "stop")
        yield chunk({}, finish)
        if include_usage and reply.usage is not None:
            yield {**base, "choices": [], "usage": reply.usage}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, data: bytes, headers: dict[str, str]) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models") and owner.models is not None:
                    listed = [{"id": name, "object": "model"} for name in owner.models]
                    data = json.dumps({"object": "list", "data": listed}).encode()
                    self._send(200, data, {})
                    return
                self._send(404, b'{"error": {"message": "Not Found"}}', {})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                with owner._lock:
                    owner.raw_requests.append(raw)
                    owner.headers.append(dict(self.headers.items()))
                body = json.loads(raw)
                turn = len(owner.requests)
                reply = owner._next(body)
                if reply.drop:
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                if reply.status >= 400:
                    if reply.raw is not None:
                        data = reply.raw
                    else:
                        error = (
                            reply.error
                            if reply.error is not None
                            else {"error": {"message": "boom"}}
                        )
                        data = json.dumps(error).encode()
                    self._send(reply.status, data, reply.headers)
                    return
                if not body.get("stream"):
                    data = reply.raw or json.dumps(owner.completion(reply, turn)).encode()
                    self._send(200, data, reply.headers)
                    return
                self._stream(
                    reply, turn, bool((body.get("stream_options") or {}).get("include_usage"))
                )

            def _stream(self, reply: Reply, turn: int, include_usage: bool) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                for key, value in reply.headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.close_connection = True
                if reply.raw is not None:
                    self.wfile.write(reply.raw)
                    return
                try:
                    for item in owner.chunks(reply, turn, include_usage):
                        if not item:
                            assert reply.hold is not None
                            reply.hold.wait(30)
                            continue
                        self.wfile.write(f"data: {json.dumps(item)}\n\n".encode())
                        self.wfile.flush()
                    self.wfile.write(b"data: [DONE]\n\n")
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    with owner._lock:
                        owner.disconnects += 1

        return Handler
