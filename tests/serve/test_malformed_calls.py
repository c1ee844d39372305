"""``qwen-tools serve`` answers every malformed ``tools/call`` and stays up (stdio and HTTP).

The messages are written raw, as a client in another language could write them: lone surrogate
escapes, nesting far past the limit, integers of 5,000 digits, ``1e400`` and ``NaN``, bytes that
are not UTF-8, arguments that are not an object. The MCP SDK's JSON parser refuses some of these
(it used to drop them without an answer over stdio, so the client waited forever); each one must
now get its own answer, the same over both transports, and a normal call afterwards still works.
The SDK's own client, and results holding lone surrogates, are checked too.
"""

from __future__ import annotations

import json
import queue
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from qwen_tools import Config, ToolRegistry
from qwen_tools.contract.abort import AbortSignal
from qwen_tools.contract.declarative import BaseDeclarativeTool
from qwen_tools.contract.invocation import BaseToolInvocation, ToolInvocation, UpdateOutput
from qwen_tools.contract.kinds import Kind
from qwen_tools.contract.results import ToolResult
from qwen_tools.serve.server import ToolServer
from support.malformed_args import Deep

from .conftest import EXE, HttpServer

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
INTEGER_OR_NULL = "params/offset must be integer,null"
UNKNOWN = 'Tool "read\ufffd_file" not found in registry.'
"""The start of the answer to a call of ``read\\udfff_file``."""


def depth_error(key: str) -> str:
    return f"params/{key} must NOT be nested more than 100 levels deep"


def call_line(call_id: int, name: bytes, arguments: bytes) -> bytes:
    return (
        b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"%s","arguments":%s}}'
        % (call_id, name, arguments)
    )


def cases(ws: Path) -> list[tuple[bytes, str | None]]:
    """Raw ``tools/call`` messages (ids 1, 2, …) and the text each answer must have.

    ``None``: the SDK refuses the message itself (a JSON-RPC error answers it); :data:`UNKNOWN`:
    the answer starts with that text.
    """
    notes = json.dumps(str(ws / "notes.txt")).encode()
    read = b'{"file_path":' + notes

    def offset(value: bytes) -> bytes:
        return read + b',"offset":' + value + b"}"

    deep = [b"[" * n + b"]" * n for n in (150, 600, 100_000)]
    raw: list[tuple[bytes, bytes, str | None]] = [
        (b"read_file", read[:-1] + b'\\ud800"}', f"File not found: {ws}/notes.txt\ufffd"),
        (b"read\\udfff_file", b"{}", UNKNOWN),
        (b"read_file", offset(deep[0]), depth_error("offset")),
        (b"read_file", offset(deep[1]), depth_error("offset")),
        (b"read_file", offset(deep[2]), depth_error("offset")),
        (b"read_file", offset(b"1" + b"0" * 5000), INTEGER_OR_NULL),
        (b"read_file", offset(b"1e400"), INTEGER_OR_NULL),
        (b"read_file", offset(b"NaN"), INTEGER_OR_NULL),
        (b"read_file", read[:-1] + b'\xff"}', f"File not found: {ws}/notes.txt\ufffd"),
        (b"read_file", read + b',"\\ud800":"\\udc00"}', "line 1\nline 2\nline 3\n"),
        (b"read_file", b"[1]", None),
        (b"read_file", read + b"}", "line 1\nline 2\nline 3\n"),
    ]
    return [(call_line(i, name, args), text) for i, (name, args, text) in enumerate(raw, 1)]


def check_answer(answer: dict[str, Any], expected: str | None, label: str) -> None:
    if expected is None:
        assert "error" in answer, (label, answer)
        return
    assert "result" in answer, (label, answer)
    (block,) = answer["result"]["content"]
    if expected == UNKNOWN:
        assert block["text"].startswith(UNKNOWN), label
    else:
        assert block["text"] == expected, label


# -- stdio, raw lines ---------------------------------------------------------------------------


class LineClient:
    """JSON-RPC lines to a ``qwen-tools serve`` process; answers read on a thread."""

    def __init__(self, ws: Path, env: dict[str, str], log: Path) -> None:
        self.log = log.open("wb")
        self.process = subprocess.Popen(
            [str(EXE), "serve", "--cwd", str(ws)],
            env=env,
            cwd=ws,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
        )
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)

    def send(self, raw: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(raw + b"\n")
        self.process.stdin.flush()

    def answer(self, call_id: int, wait: float = 120.0) -> dict[str, Any]:
        """The response to ``call_id``; fails only if none comes at all."""
        deadline = time.monotonic() + wait
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                pytest.fail(f"no answer to request {call_id}")
            message = json.loads(line)
            if message.get("id") == call_id:
                return dict(message)

    def close(self) -> int:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            return self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)
            pytest.fail("serve did not exit after stdin closed")
        finally:
            self.log.close()


@pytest.fixture
def line_client(ws: Path, env: dict[str, str], tmp_path: Path) -> Iterator[LineClient]:
    client = LineClient(ws, env, tmp_path / "serve.log")
    try:
        yield client
    finally:
        if client.process.poll() is None:
            client.close()


def test_stdio_answers_every_malformed_call(line_client: LineClient, ws: Path) -> None:
    line_client.send(json.dumps(INITIALIZE).encode())
    assert "result" in line_client.answer(0)
    line_client.send(json.dumps(INITIALIZED).encode())
    for call_id, (raw, expected) in enumerate(cases(ws), 1):
        line_client.send(raw)
        check_answer(line_client.answer(call_id), expected, raw[:120].decode(errors="replace"))
    assert line_client.process.poll() is None
    assert line_client.close() == 0


# -- HTTP, raw posts ----------------------------------------------------------------------------


def _post(client: httpx.Client, url: str, body: bytes, session: str | None) -> httpx.Response:
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
    }
    if session is not None:
        headers["Mcp-Session-Id"] = session
        headers["MCP-Protocol-Version"] = "2025-06-18"
    return client.post(url, content=body, headers=headers)


def _messages(response: httpx.Response) -> list[dict[str, Any]]:
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        data = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")]
        return [json.loads(item) for item in data if item]
    return [response.json()] if response.content else []


def test_http_answers_every_malformed_call(http_server: HttpServer, ws: Path) -> None:
    with httpx.Client(timeout=120) as client:
        started = _post(client, http_server.url, json.dumps(INITIALIZE).encode(), None)
        assert started.status_code == 200, started.text
        session = started.headers["mcp-session-id"]
        _post(client, http_server.url, json.dumps(INITIALIZED).encode(), session)
        for call_id, (raw, expected) in enumerate(cases(ws), 1):
            response = _post(client, http_server.url, raw, session)
            answers = [m for m in _messages(response) if m.get("id") in (call_id, None)]
            assert answers, (call_id, response.status_code, response.text[:300])
            check_answer(answers[-1], expected, raw[:120].decode(errors="replace"))
    assert http_server.process.poll() is None


# -- the SDK's client, stdio -------------------------------------------------------------------


async def test_sdk_client_gets_errors_and_the_server_stays_up(
    ws: Path, env: dict[str, str]
) -> None:
    params = StdioServerParameters(
        command=str(EXE), args=["serve", "--cwd", str(ws)], env=env, cwd=str(ws)
    )
    notes = str(ws / "notes.txt")
    with anyio.fail_after(120):
        async with Client(params) as mcp:
            deep = await mcp.call_tool(
                "read_file", {"file_path": notes, "offset": Deep(150).value()}
            )
            big = await mcp.call_tool("read_file", {"file_path": notes, "offset": 10**400})
            fine = await mcp.call_tool("read_file", {"file_path": notes})
    assert deep.is_error and deep.content[0].model_dump()["text"] == depth_error("offset")
    assert big.is_error and big.content[0].model_dump()["text"] == INTEGER_OR_NULL
    assert not fine.is_error and fine.content[0].model_dump()["text"].startswith("line 1")


# -- results that hold lone surrogates ----------------------------------------------------------


class _Odd(BaseToolInvocation[dict[str, Any]]):
    def get_description(self) -> str:
        return "odd"

    async def execute(
        self, signal: AbortSignal, update_output: UpdateOutput | None = None
    ) -> ToolResult:
        if update_output is not None:
            update_output("progress \udce9")
        return ToolResult("caf\udce9 \ud83d", "shown \udfff")


class OddTool(BaseDeclarativeTool[dict[str, Any]]):
    """Returns text no UTF-8 encoder accepts (as a file name that is not UTF-8 would give)."""

    def __init__(self) -> None:
        schema = {"type": "object", "properties": {}}
        super().__init__("odd", "Odd", "Odd text.", Kind.THINK, schema, can_update_output=True)

    def create_invocation(self, params: dict[str, Any]) -> ToolInvocation[dict[str, Any]]:
        return _Odd(params)


async def test_results_with_lone_surrogates_are_sent(tmp_path: Path) -> None:
    app = ToolServer(ToolRegistry([OddTool()]), Config(tmp_path, home_dir=tmp_path / "home"))
    updates: list[str | None] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        updates.append(message)

    with anyio.fail_after(30):
        async with Client(app.server, mode="legacy") as mcp:
            result = await mcp.call_tool("odd", {}, progress_callback=on_progress)
    assert isinstance(result.content[0], types.TextContent)
    assert result.content[0].text == "caf\ufffd \ufffd"
    result.model_dump_json()  # what a transport writes
    assert all(message is None or "\udce9" not in message for message in updates)
