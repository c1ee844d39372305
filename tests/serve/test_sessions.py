"""``serve --transport http``: each MCP client session has its own state, and its own processes.

Two real clients (the SDK's streamable HTTP client, handshake protocol) against one real server:
what one client read does not let the other edit; a client that goes away mid-call leaves no
process behind; ``--max-sessions`` refuses a session beyond the bound.
"""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import httpx
import mcp_types as types
import pytest
from mcp import Client

from support.processes import wait_group_gone

from .conftest import start_http

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


def text_of(result: types.CallToolResult) -> str:
    (block,) = result.content
    assert isinstance(block, types.TextContent)
    return block.text


async def test_a_read_does_not_let_b_edit(ws: Path, env: dict[str, str], tmp_path: Path) -> None:
    server = start_http(ws, env, tmp_path / "server.log", "--approval-mode", "yolo")
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
                assert f"File {notes} has not been read in this session." in text_of(refused)
                assert (ws / "notes.txt").read_text() == "line 1\nline 2\nline 3\n"
                done = await a.call_tool("edit", edit)
                assert not done.is_error, text_of(done)
        assert (ws / "notes.txt").read_text() == "line 1\nline two\nline 3\n"
    finally:
        assert server.stop() == 0, server.stderr()


async def test_a_client_gone_mid_call_leaves_no_process(
    ws: Path, env: dict[str, str], tmp_path: Path
) -> None:
    server = start_http(ws, env, tmp_path / "server.log", "--approval-mode", "yolo")
    pid_file = ws / "pid"
    script = f"echo $$ > {pid_file}; exec sleep 300"
    try:
        with anyio.fail_after(60):
            async with Client(server.url, mode="legacy") as b:
                async with Client(server.url, mode="legacy") as a, anyio.create_task_group() as g:
                    g.start_soon(a.call_tool, "run_shell_command", {"command": script})
                    while not pid_file.exists() or not pid_file.read_text().strip():
                        await anyio.sleep(0.05)
                    pid = int(pid_file.read_text())
                    os.kill(pid, 0)  # the sleep runs
                    g.cancel_scope.cancel()  # A leaves: its call is cut, its session closed
                assert await anyio.to_thread.run_sync(wait_group_gone, pid, 10)
                with pytest.raises(ProcessLookupError):
                    os.kill(pid, 0)
                after = await b.call_tool("run_shell_command", {"command": "echo still"})
                assert "still" in text_of(after)
    finally:
        assert server.stop() == 0, server.stderr()


async def test_max_sessions_refuses_one_more(ws: Path, env: dict[str, str], tmp_path: Path) -> None:
    server = start_http(ws, env, tmp_path / "server.log", "--max-sessions", "1")
    try:
        with anyio.fail_after(60):
            async with Client(server.url, mode="legacy") as a:
                with pytest.raises(Exception) as refused:
                    async with Client(server.url, mode="legacy") as b:
                        await b.list_tools()
                assert "Too many open sessions" in repr(refused.value) + server.stderr()
                assert (await a.list_tools()).tools
    finally:
        assert server.stop() == 0, server.stderr()


async def _start_background_sleep(client: Client, pid_file: Path) -> int:
    started = await client.call_tool(
        "run_shell_command",
        {"command": f"echo $$ > {pid_file}; exec sleep 300", "is_background": True},
    )
    assert not started.is_error, text_of(started)
    while not pid_file.exists() or not pid_file.read_text().strip():
        await anyio.sleep(0.05)
    pid = int(pid_file.read_text())
    os.kill(pid, 0)  # the sleep runs
    return pid


async def test_a_session_ended_by_the_client_stops_its_background_shells(
    ws: Path, env: dict[str, str], tmp_path: Path
) -> None:
    server = start_http(ws, env, tmp_path / "server.log", "--approval-mode", "yolo")
    try:
        with anyio.fail_after(60):
            async with Client(server.url, mode="legacy") as b:
                async with Client(server.url, mode="legacy") as a:
                    pid = await _start_background_sleep(a, ws / "pid")
                # A's client sent DELETE: its session is closed, its shells stopped; B's is open
                assert await anyio.to_thread.run_sync(wait_group_gone, pid, 10)
                after = await b.call_tool("run_shell_command", {"command": "echo still"})
                assert "still" in text_of(after)
    finally:
        assert server.stop() == 0, server.stderr()


def _raw_session_starting_a_sleep(url: str, pid_file: Path) -> None:
    """Opens a handshake session over plain HTTP (no GET stream), starts a background sleep in it
    and sends nothing more."""
    base = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    with httpx.Client(timeout=30) as http:
        opened = http.post(url, headers=base, json=INITIALIZE)
        assert opened.status_code == 200, opened.text
        headers = {
            **base,
            "Mcp-Session-Id": opened.headers["mcp-session-id"],
            "Mcp-Protocol-Version": "2025-06-18",
        }
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert http.post(url, headers=headers, json=note).status_code == 202
        command = f"echo $$ > {pid_file}; exec sleep 300"
        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {
                "name": "run_shell_command",
                "arguments": {"command": command, "is_background": True},
            },
        }
        started = http.post(url, headers=headers, json=call)
        assert started.status_code == 200 and '"isError":false' in started.text, started.text


async def test_an_idle_session_is_closed(ws: Path, env: dict[str, str], tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    server = start_http(ws, env, log, "--approval-mode", "yolo", "--session-idle-timeout", "1")
    pid_file = ws / "pid"
    try:
        await anyio.to_thread.run_sync(_raw_session_starting_a_sleep, server.url, pid_file)
        # the call answers once the background shell has started, maybe before its first line
        with anyio.fail_after(30):
            while not pid_file.exists() or not pid_file.read_text().strip():
                await anyio.sleep(0.05)
        pid = int(pid_file.read_text())
        # the client sends nothing more (and holds no stream): the server closes its session
        assert await anyio.to_thread.run_sync(wait_group_gone, pid, 30)
    finally:
        assert server.stop() == 0, server.stderr()
