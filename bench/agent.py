"""The agent loop's own cost per tool call, at 20 and at 200 turns of history.

A local fake OpenAI-compatible server answers instantly (non-streaming, pre-encoded replies;
it reads each request body but does not parse it): a call of a no-op tool returning 2 KB of
text on every turn, so the history grows by about 2.3 KB per turn. One conversation runs
220 turns. For each turn we time the whole turn and the HTTP round trip (inside
``ChatClient.complete``); the loop's own cost is the difference: building the request body,
parsing the answer, scheduling the call, converting its result and updating the history.

The conversation runs 5 times; each turn keeps its best time (the machine may be shared).
Printed: the median per call around 20 turns of history (turns 11-30) and around 200 (turns
191-210), for the loop's own cost and for the whole turn, and the ratios 200/20 (target for
the loop's own cost: flat, ratio ≈ 1).

Run: ``.venv/bin/python bench/agent.py``.
"""

from __future__ import annotations

import asyncio
import json
import socket
import statistics
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from qwen_tools import (
    AbortSignal,
    ApprovalMode,
    BaseDeclarativeTool,
    BaseToolInvocation,
    Config,
    Kind,
    ToolInvocation,
    ToolRegistry,
    ToolResult,
    UpdateOutput,
)
from qwen_tools.agent.events import AgentEvent, ModelTurn, TurnStarted
from qwen_tools.agent.loop import AgentLoop
from qwen_tools.model.client import ChatClient
from qwen_tools.model.completion import Completion
from qwen_tools.model.model_config import ModelConfig

TURNS = 220
REPEATS = 5
WINDOWS = {"20 turns": range(11, 31), "200 turns": range(191, 211)}
OUTPUT = ("lorem ipsum dolor sit amet " * 80)[:2000]
SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}


class NoopInvocation(BaseToolInvocation[dict[str, Any]]):
    def get_description(self) -> str:
        return "noop"

    async def execute(
        self, signal: AbortSignal, update_output: UpdateOutput | None = None
    ) -> ToolResult:
        return ToolResult(llm_content=OUTPUT)


class NoopTool(BaseDeclarativeTool[dict[str, Any]]):
    def __init__(self) -> None:
        super().__init__("noop", "Noop", "Returns 2 KB of text.", Kind.READ, SCHEMA)

    def create_invocation(self, params: dict[str, Any]) -> ToolInvocation[dict[str, Any]]:
        return NoopInvocation(params)


def _reply(turn: int) -> bytes:
    message: dict[str, Any] = {"role": "assistant", "content": None}
    if turn < TURNS:
        arguments = json.dumps({"text": f"turn {turn}"})
        message["tool_calls"] = [
            {
                "id": f"c{turn}",
                "type": "function",
                "function": {"name": "noop", "arguments": arguments},
            }
        ]
    else:
        message["content"] = "finished"
    body = {
        "id": f"r{turn}",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110},
    }
    return json.dumps(body).encode()


class Server:
    """Instant answers, pre-encoded; the request body is read but not parsed."""

    def __init__(self) -> None:
        self.replies = [_reply(turn) for turn in range(TURNS + 1)]
        self.count = 0
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def setup(self) -> None:
                super().setup()
                self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers["Content-Length"]))
                data = owner.replies[min(owner.count, TURNS)]
                owner.count += 1
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.http.server_address[1]}/v1"


class TimedClient(ChatClient):
    """Records the time spent in each HTTP round trip."""

    http_s: list[float]

    async def complete(self, body: bytes, **kwargs: Any) -> Completion:
        started = time.perf_counter()
        try:
            return await super().complete(body, **kwargs)
        finally:
            self.http_s.append(time.perf_counter() - started)


async def measure(server: Server, workdir: Path) -> tuple[list[float], list[float], int]:
    config = Config(workdir, approval_mode=ApprovalMode.YOLO, home_dir=workdir / ".home")
    registry = ToolRegistry([NoopTool()])
    model = ModelConfig(model="bench-model", api_key="k", base_url=server.url)
    client = TimedClient(model)
    client.http_s = []
    starts: list[float] = []
    ends: list[float] = []

    def on_event(event: AgentEvent) -> None:
        if isinstance(event, TurnStarted):
            if starts:
                ends.append(time.perf_counter())
            starts.append(time.perf_counter())
        elif isinstance(event, ModelTurn) and not event.requests:
            ends.append(time.perf_counter())

    loop = AgentLoop(
        client=client,
        registry=registry,
        config=config,
        system_prompt="You are a benchmark.",
        stream=False,
        on_event=on_event,
    )
    loop.scheduler.telemetry = None
    await loop.send("Call noop until told otherwise.")
    size = len(loop.history.encoded())
    await client.aclose()
    walls = [end - start for start, end in zip(starts, ends, strict=True)]
    return walls, client.http_s, size


def main() -> None:
    own_runs: list[list[float]] = []
    wall_runs: list[list[float]] = []
    size = 0
    for _ in range(REPEATS):
        server = Server()
        with tempfile.TemporaryDirectory() as tmp:
            walls, http, size = asyncio.run(measure(server, Path(tmp)))
        server.http.shutdown()
        wall_runs.append(walls)
        own_runs.append([w - h for w, h in zip(walls, http, strict=True)])
    # per turn, the best of the runs (the machine is shared); then the median over a window
    own_best = [min(run[t] for run in own_runs) for t in range(TURNS)]
    wall_best = [min(run[t] for run in wall_runs) for t in range(TURNS)]
    print(f"{TURNS} turns x {REPEATS} runs, history at the end: {size / 1024:.0f} KiB")
    rows = {}
    for label, window in WINDOWS.items():
        turns = [t - 1 for t in window]
        own = statistics.median(own_best[t] for t in turns) * 1e6
        whole = statistics.median(wall_best[t] for t in turns) * 1e6
        rows[label] = (own, whole)
        print(
            f"around {label:>9} of history: loop's own cost {own:6.0f} µs/call, "
            f"whole turn {whole:6.0f} µs/call"
        )
    (own20, whole20), (own200, whole200) = rows.values()
    print(
        f"ratio 200/20: loop's own cost {own200 / own20:.2f}x (target ≈ 1), "
        f"whole turn {whole200 / whole20:.2f}x"
    )


if __name__ == "__main__":
    main()
