"""``qwen-tools serve --transport http``: the SDK's streamable HTTP client against a real server."""

from __future__ import annotations

import json
import signal
import urllib.error
import urllib.request
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp import Client

from support.processes import group_members, wait_group_gone

from .conftest import HttpServer, start_http

MODES = ["legacy", "auto"]
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


def post(server: HttpServer, headers: dict[str, str]) -> int:
    """POST an ``initialize`` with extra headers; the HTTP status."""
    request = urllib.request.Request(
        server.url,
        data=json.dumps(INITIALIZE).encode(),
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            **headers,
        },
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return exc.code


def listening_addresses(port: int) -> set[str]:
    """Local addresses (hex, as /proc/net shows them) listening on ``port``."""
    found: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as handle:
            for line in handle.readlines()[1:]:
                local, state = line.split()[1], line.split()[3]
                address, hex_port = local.split(":")
                if state == "0A" and int(hex_port, 16) == port:
                    found.add(address)
    return found


@pytest.mark.parametrize("mode", MODES)
async def test_list_and_call(http_server: HttpServer, ws: Path, mode: str) -> None:
    notes = str(ws / "notes.txt")
    with anyio.fail_after(60):
        async with Client(http_server.url, mode=mode) as mcp:
            listed = {t.name: t for t in (await mcp.list_tools()).tools}
            read = await mcp.call_tool("read_file", {"file_path": notes})
            bad = await mcp.call_tool("read_file", {"offset": 1})
            refused = await mcp.call_tool("write_file", {"file_path": notes, "content": "x"})
    assert {"read_file", "glob", "grep_search"} <= set(listed)
    annotations = listed["read_file"].annotations
    assert annotations is not None and annotations.read_only_hint is True
    assert text_of(read) == "line 1\nline 2\nline 3\n" and not read.is_error
    assert bad.is_error and text_of(bad) == "params must have required property 'file_path'"
    # the session-less revision ("auto" here) gives every request a fresh session: nothing was read
    reason = "non-interactive mode cannot prompt" if mode == "legacy" else "has not been read"
    assert refused.is_error and reason in text_of(refused)
    assert (ws / "notes.txt").read_text() == "line 1\nline 2\nline 3\n"


def test_binds_loopback_and_checks_host(http_server: HttpServer) -> None:
    assert listening_addresses(http_server.port) == {"0100007F"}  # 127.0.0.1 only
    assert post(http_server, {}) == 200
    assert post(http_server, {"Host": f"localhost:{http_server.port}"}) == 200
    assert post(http_server, {"Host": f"evil.example:{http_server.port}"}) == 421
    assert post(http_server, {"Host": "127.0.0.1:1"}) == 421
    assert post(http_server, {"Origin": "http://evil.example"}) == 403
    assert post(http_server, {"Origin": f"http://localhost:{http_server.port}"}) == 200


@pytest.mark.parametrize("mode", MODES)
async def test_cancel_kills_the_process_group(
    ws: Path, env: dict[str, str], tmp_path: Path, mode: str
) -> None:
    server = start_http(ws, env, tmp_path / "server.log", "--approval-mode", "yolo")
    pid_file = ws / "pgid"
    script = f"sleep 60 & sleep 60 & echo $$ > {pid_file}; wait"
    try:
        with anyio.fail_after(60):
            async with Client(server.url, mode=mode) as mcp:
                async with anyio.create_task_group() as group:
                    group.start_soon(mcp.call_tool, "run_shell_command", {"command": script})
                    while not pid_file.exists() or not pid_file.read_text().strip():
                        await anyio.sleep(0.05)
                    pgid = int(pid_file.read_text())
                    assert len(group_members(pgid)) >= 3
                    group.cancel_scope.cancel()
                assert await anyio.to_thread.run_sync(wait_group_gone, pgid, 10), group_members(
                    pgid
                )
                after = await mcp.call_tool("run_shell_command", {"command": "echo next"})
                assert "next" in text_of(after)
    finally:
        assert server.stop() == 0, server.stderr()


async def test_sigterm_aborts_running_calls(ws: Path, env: dict[str, str], tmp_path: Path) -> None:
    server = start_http(ws, env, tmp_path / "server.log", "--approval-mode", "yolo")
    pid_file = ws / "pgid"
    script = f"sleep 60 & echo $$ > {pid_file}; wait"
    results: list[types.CallToolResult | BaseException] = []

    async def call(mcp: Client) -> None:
        try:
            results.append(await mcp.call_tool("run_shell_command", {"command": script}))
        except Exception as exc:
            results.append(exc)

    try:
        with anyio.fail_after(60):
            async with Client(server.url, mode="legacy") as mcp, anyio.create_task_group() as tg:
                tg.start_soon(call, mcp)
                while not pid_file.exists() or not pid_file.read_text().strip():
                    await anyio.sleep(0.05)
                pgid = int(pid_file.read_text())
                assert await anyio.to_thread.run_sync(server.stop, signal.SIGTERM) == 0
        assert await anyio.to_thread.run_sync(wait_group_gone, pgid, 10), group_members(pgid)
        (outcome,) = results
        if isinstance(outcome, types.CallToolResult):
            assert outcome.is_error and "[Operation Cancelled]" in text_of(outcome)
    finally:
        server.stop(signal.SIGKILL)


def test_taken_port_is_reported(http_server: HttpServer, ws: Path, env: dict[str, str]) -> None:
    import subprocess

    from .conftest import EXE

    done = subprocess.run(
        [str(EXE), "serve", "--transport", "http", "--port", str(http_server.port)],
        env=env,
        cwd=ws,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert f"cannot listen on 127.0.0.1:{http_server.port}" in done.stderr
    assert done.stdout == ""
