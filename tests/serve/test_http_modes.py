"""``serve --transport http --stateless`` and ``--json-response``: the SDK's modes for a load balancer.

Real servers, real SDK clients (handshake protocol) and raw HTTP requests:

* stateless: no ``Mcp-Session-Id`` is handed out, a request that carries none after the
  handshake is still answered (any process behind a balancer could take it), and every request
  gets a fresh session: what one call read does not let the next one edit; a client's roots
  cannot be asked for, so its sessions have the server's workspace (as the README says);
* JSON response: a call is answered with one ``application/json`` body, not an SSE stream, and
  per-client sessions still hold (a read lets the same client edit, not another);
* the session-less protocol (2026-07-28 envelopes, no handshake): every request's session is
  fresh and its own (files read, todo list), and sees the ignore files as they are now.
"""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp import Client

from .conftest import HttpServer, start_http

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}
NOT_READ = "has not been read in this session."


def text_of(result: types.CallToolResult) -> str:
    (block,) = result.content
    assert isinstance(block, types.TextContent)
    return block.text


def post(server: HttpServer, body: dict[str, Any], headers: dict[str, str] | None = None) -> Any:
    """POST one JSON-RPC message; the response (status, headers, body text)."""
    request = urllib.request.Request(
        server.url,
        data=json.dumps(body).encode(),
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2025-06-18",
            **(headers or {}),
        },
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status, dict(response.headers), response.read().decode()


def call_body(notes: str) -> dict[str, Any]:
    params = {"name": "read_file", "arguments": {"file_path": notes}}
    return {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params}


async def test_stateless_hands_out_no_session_and_answers_every_request(
    ws: Path, env: dict[str, str], tmp_path: Path
) -> None:
    server = start_http(ws, env, tmp_path / "server.log", "--stateless")
    try:
        status, headers, _ = post(server, INITIALIZE)
        assert status == 200
        assert "mcp-session-id" not in {name.lower() for name in headers}
        # a call without any session id, as a balancer may send to another process
        status, headers, text = post(server, call_body(str(ws / "notes.txt")))
        assert status == 200
        assert "line 2" in text
    finally:
        assert server.stop() == 0, server.stderr()


async def test_stateless_gives_every_request_a_fresh_session(
    ws: Path, env: dict[str, str], tmp_path: Path
) -> None:
    server = start_http(ws, env, tmp_path / "server.log", "--stateless", "--approval-mode", "yolo")
    notes = str(ws / "notes.txt")
    edit = {"file_path": notes, "old_string": "line 2", "new_string": "line two"}
    try:
        with anyio.fail_after(60):
            async with Client(server.url, mode="legacy") as client:
                assert not (await client.call_tool("read_file", {"file_path": notes})).is_error
                refused = await client.call_tool("edit", edit)
        assert refused.is_error
        assert f"File {notes} {NOT_READ}" in text_of(refused)
        assert (ws / "notes.txt").read_text() == "line 1\nline 2\nline 3\n"
    finally:
        assert server.stop() == 0, server.stderr()


async def test_json_response_answers_one_json_body(
    ws: Path, env: dict[str, str], tmp_path: Path
) -> None:
    server = start_http(ws, env, tmp_path / "server.log", "--json-response")
    try:
        status, headers, _ = post(server, INITIALIZE)
        assert status == 200
        lowered = {name.lower(): value for name, value in headers.items()}
        session = {"Mcp-Session-Id": lowered["mcp-session-id"]}
        post(server, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
        status, headers, text = post(server, call_body(str(ws / "notes.txt")), session)
        assert status == 200
        assert {n.lower(): v for n, v in headers.items()}["content-type"].startswith(
            "application/json"
        )
        answer = json.loads(text)
        assert answer["id"] == 2
        assert "line 2" in answer["result"]["content"][0]["text"]
    finally:
        assert server.stop() == 0, server.stderr()


async def test_json_response_keeps_per_client_sessions(
    ws: Path, env: dict[str, str], tmp_path: Path
) -> None:
    server = start_http(
        ws, env, tmp_path / "server.log", "--json-response", "--approval-mode", "yolo"
    )
    notes = str(ws / "notes.txt")
    edit = {"file_path": notes, "old_string": "line 2", "new_string": "line two"}
    try:
        with anyio.fail_after(60):
            async with (
                Client(server.url, mode="legacy") as a,
                Client(server.url, mode="legacy") as b,
            ):
                assert not (await a.call_tool("read_file", {"file_path": notes})).is_error
                refused = await b.call_tool("edit", edit)
                assert refused.is_error
                assert NOT_READ in text_of(refused)
                done = await a.call_tool("edit", edit)
                assert not done.is_error, text_of(done)
        assert (ws / "notes.txt").read_text() == "line 1\nline two\nline 3\n"
    finally:
        assert server.stop() == 0, server.stderr()


async def test_stateless_sessions_use_the_servers_workspace_for_a_client_with_roots(
    ws: Path, env: dict[str, str], tmp_path: Path
) -> None:
    """Stateless: a request cannot be followed by the server's ``roots/list`` to its client."""
    a, b = ws / "a", ws / "b"
    a.mkdir()
    b.mkdir()
    (b / "y.txt").write_text("in b\n")

    async def roots(context: Any) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri=a.as_uri(), name="a")])  # type: ignore[arg-type]

    server = start_http(ws, env, tmp_path / "server.log", "--stateless")
    try:
        with anyio.fail_after(60):
            async with Client(server.url, mode="legacy", list_roots_callback=roots) as client:
                done = await client.call_tool("read_file", {"file_path": str(b / "y.txt")})
        assert not done.is_error, text_of(done)
        assert "in b" in text_of(done)
    finally:
        assert server.stop() == 0, server.stderr()


async def test_session_less_requests_share_nothing_a_session_owns(
    ws: Path, env: dict[str, str], tmp_path: Path
) -> None:
    """Each request opens a session from the server's template: only the settings are shared."""
    server = start_http(ws, env, tmp_path / "server.log", "--approval-mode", "yolo")
    notes = str(ws / "notes.txt")
    edit = {"file_path": notes, "old_string": "line 2", "new_string": "line two"}
    mine = [{"id": "1", "content": "mine", "status": "pending"}]
    theirs = [{"id": "1", "content": "theirs", "status": "pending"}]
    try:
        with anyio.fail_after(60):
            async with Client(server.url, mode="auto") as client:
                assert not (await client.call_tool("read_file", {"file_path": notes})).is_error
                refused = await client.call_tool("edit", edit)
                assert not (await client.call_tool("todo_write", {"todos": mine})).is_error
                assert not (await client.call_tool("todo_write", {"todos": theirs})).is_error
                (ws / ".qwenignore").write_text("notes.txt\n")
                ignored = await client.call_tool("read_file", {"file_path": notes})
        assert refused.is_error and NOT_READ in text_of(refused)
        assert (ws / "notes.txt").read_text() == "line 1\nline 2\nline 3\n"
        todos = sorted((Path(env["QWEN_HOME"]) / "todos").glob("*.json"))
        assert {json.loads(f.read_text())["todos"][0]["content"] for f in todos} == {
            "mine",
            "theirs",
        }
        assert ignored.is_error, text_of(ignored)
    finally:
        assert server.stop() == 0, server.stderr()
