"""``qwen-tools serve`` over stdio, driven by the MCP SDK's own client (both protocol eras)."""

from __future__ import annotations

import base64
import json
import queue
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from qwen_tools import Config, ToolCallRequest, build_registry, run_tool_call
from qwen_tools.cli.serve_cmd import SESSION_ONLY_TOOLS
from support.leftovers import die_with_parent
from support.processes import group_members, wait_group_gone

from .conftest import EXE, PNG

MODES = ["legacy", "auto"]
NON_INTERACTIVE = (
    'Qwen Code requires permission to use "write_file", but that permission was declined '
    "(non-interactive mode cannot prompt for confirmation)."
)


def client(ws: Path, env: dict[str, str], *extra: str, mode: str = "auto") -> Client:
    params = StdioServerParameters(
        command=str(EXE), args=["serve", "--cwd", str(ws), *extra], env=env, cwd=str(ws)
    )
    return Client(params, mode=mode)


def text_of(result: types.CallToolResult) -> str:
    (block,) = result.content
    assert isinstance(block, types.TextContent)
    return block.text


async def pipeline_text(ws: Path, env: dict[str, str], name: str, args: dict[str, Any]) -> str:
    config = Config(ws, home_dir=env["QWEN_HOME"])
    done = await run_tool_call(build_registry(config), config, ToolCallRequest(name, args))
    return done.response_text


@pytest.mark.parametrize("mode", MODES)
async def test_list_tools_with_annotations(ws: Path, env: dict[str, str], mode: str) -> None:
    with anyio.fail_after(60):
        async with client(ws, env, mode=mode) as mcp:
            listed = {t.name: t for t in (await mcp.list_tools()).tools}
    assert {"read_file", "glob", "grep_search", "write_file", "run_shell_command"} <= set(listed)
    config = Config(ws, home_dir=env["QWEN_HOME"])
    registry = build_registry(config)
    assert set(listed) == set(registry.get_all_tool_names()) - set(SESSION_ONLY_TOOLS)
    assert not set(SESSION_ONLY_TOOLS) & set(listed)
    read = listed["read_file"]
    assert read.title == "ReadFile"
    assert read.annotations is not None
    assert read.annotations.read_only_hint is True
    assert read.annotations.destructive_hint is False
    write = listed["write_file"].annotations
    assert write is not None and write.destructive_hint is True and write.read_only_hint is False
    shell = listed["run_shell_command"].annotations
    assert shell is not None and shell.open_world_hint is True
    for name, tool in listed.items():
        declared = registry.get_tool(name)
        assert declared is not None
        assert tool.description == declared.description
        assert tool.input_schema == {"type": "object", **declared.parameter_schema}


@pytest.mark.parametrize("mode", MODES)
async def test_calls_return_what_the_pipeline_gives(
    ws: Path, env: dict[str, str], mode: str
) -> None:
    notes = str(ws / "notes.txt")
    expected = await pipeline_text(ws, env, "read_file", {"file_path": notes})
    assert expected == "line 1\nline 2\nline 3\n"
    with anyio.fail_after(60):
        async with client(ws, env, mode=mode) as mcp:
            first = await mcp.call_tool("read_file", {"file_path": notes})
            again = await mcp.call_tool("read_file", {"file_path": notes})
            image = await mcp.call_tool("read_file", {"file_path": str(ws / "pixel.png")})
            bad = await mcp.call_tool("read_file", {})
            unknown = await mcp.call_tool("read_fil", {"file_path": notes})
            found = await mcp.call_tool("glob", {"pattern": "*.txt"})
    assert not first.is_error and text_of(first) == expected
    # An MCP server cannot tell conversations apart: a repeated read returns the content again.
    assert text_of(again) == expected
    assert not image.is_error
    (block,) = image.content
    assert isinstance(block, types.ImageContent)
    assert block.mime_type == "image/png" and base64.b64decode(block.data) == PNG
    assert bad.is_error and text_of(bad) == "params must have required property 'file_path'"
    assert unknown.is_error and 'Tool "read_fil" not found' in text_of(unknown)
    assert not found.is_error and text_of(found).endswith(notes)


@pytest.mark.parametrize("mode", MODES)
async def test_approval_modes(ws: Path, env: dict[str, str], mode: str) -> None:
    target = ws / "out.txt"
    args = {"file_path": str(target), "content": "hello\n"}
    with anyio.fail_after(60):
        async with client(ws, env, mode=mode) as mcp:
            refused = await mcp.call_tool("write_file", args)
        assert refused.is_error and text_of(refused) == NON_INTERACTIVE
        assert not target.exists()
        async with client(ws, env, "--approval-mode", "plan", mode=mode) as mcp:
            planned = await mcp.call_tool("write_file", args)
        assert planned.is_error and "plan mode" in text_of(planned)
        async with client(ws, env, "--approval-mode", "auto-edit", mode=mode) as mcp:
            edited = await mcp.call_tool("write_file", args)
            shell = await mcp.call_tool("run_shell_command", {"command": "touch made.txt"})
        assert not edited.is_error and target.read_text() == "hello\n"
        assert shell.is_error and "run_shell_command" in text_of(shell)
        assert not (ws / "made.txt").exists()
        yolo_target = ws / "yolo.txt"
        async with client(ws, env, "--approval-mode", "yolo", mode=mode) as mcp:
            ran = await mcp.call_tool("run_shell_command", {"command": "touch made.txt"})
            wrote = await mcp.call_tool(
                "write_file", {"file_path": str(yolo_target), "content": "yolo\n"}
            )
        assert not ran.is_error and (ws / "made.txt").exists()
        assert not wrote.is_error and yolo_target.read_text() == "yolo\n"


@pytest.mark.parametrize("mode", MODES)
async def test_progress_and_cancellation(ws: Path, env: dict[str, str], mode: str) -> None:
    pid_file = ws / "pgid"
    updates: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        updates.append((progress, total, message))

    script = f"echo started; sleep 60 & sleep 60 & echo $$ > {pid_file}; wait"
    with anyio.fail_after(60):
        async with client(ws, env, "--approval-mode", "yolo", mode=mode) as mcp:
            counted = await mcp.call_tool(
                "run_shell_command",
                {"command": "for i in 1 2 3; do echo tick $i; sleep 0.3; done"},
                progress_callback=on_progress,
            )
            assert not counted.is_error
            assert updates and any("tick 1" in (m or "") for _, _, m in updates)
            progresses = [p for p, _, _ in updates]
            assert progresses == sorted(set(progresses))
            async with anyio.create_task_group() as group:
                outcome: list[types.CallToolResult] = []

                async def slow() -> None:
                    outcome.append(await mcp.call_tool("run_shell_command", {"command": script}))

                group.start_soon(slow)
                while not pid_file.exists() or not pid_file.read_text().strip():
                    await anyio.sleep(0.05)
                pgid = int(pid_file.read_text())
                assert len(group_members(pgid)) >= 3
                group.cancel_scope.cancel()
            assert outcome == []
            assert await anyio.to_thread.run_sync(wait_group_gone, pgid, 10), group_members(pgid)
            # The session goes on after a cancelled call.
            after = await mcp.call_tool("run_shell_command", {"command": "echo still here"})
            assert "still here" in text_of(after)


# Writes to the command's own stdout/stderr, then straight to the server's file descriptor 1.
LEAKY = "echo to-stdout; echo to-stderr >&2; echo leaked > /proc/$PPID/fd/1; echo done"


def test_stdout_carries_only_protocol(ws: Path, env: dict[str, str]) -> None:
    """Raw JSON-RPC over pipes: nothing but protocol reaches stdout, even from a tool's child."""
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {
                "name": "run_shell_command",
                "arguments": {"command": LEAKY},
            },
        },
    ]
    process = subprocess.Popen(
        [str(EXE), "serve", "--approval-mode", "yolo", "--cwd", str(ws)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=ws,
        text=True,
        preexec_fn=die_with_parent,
    )
    lines: queue.Queue[str] = queue.Queue()
    reader = threading.Thread(target=lambda: [lines.put(line) for line in process.stdout or ()])
    reader.start()
    try:
        assert process.stdin is not None
        process.stdin.write("".join(json.dumps(m) + "\n" for m in messages))
        process.stdin.flush()
        replies: list[dict[str, Any]] = []
        while not any(r.get("id") == 3 for r in replies):
            replies.append(json.loads(lines.get(timeout=30)))
        process.stdin.close()
        assert process.wait(30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        reader.join(10)
    while not lines.empty():
        replies.append(json.loads(lines.get()))
    assert all(r.get("jsonrpc") == "2.0" for r in replies)
    by_id = {r["id"]: r for r in replies if "id" in r}
    assert set(by_id) == {1, 2, 3}
    assert by_id[1]["result"]["serverInfo"]["name"] == "qwen-tools"
    assert any(t["name"] == "read_file" for t in by_id[2]["result"]["tools"])
    (content,) = by_id[3]["result"]["content"]
    assert by_id[3]["result"]["isError"] is False
    assert "Output: to-stdout\ndone\nto-stderr\n" in content["text"]
    assert process.stderr is not None
    errors = process.stderr.read()
    assert "leaked" in errors and "Traceback" not in errors


def test_sigterm_kills_running_commands(ws: Path, env: dict[str, str]) -> None:
    pid_file = ws / "pgid"
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {
            "name": "run_shell_command",
            "arguments": {"command": f"sleep 60 & echo $$ > {pid_file}; wait"},
        },
    }
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"},
        },
    }
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    process = subprocess.Popen(
        [str(EXE), "serve", "--approval-mode", "yolo", "--cwd", str(ws)],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=ws,
        text=True,
        preexec_fn=die_with_parent,
    )
    try:
        assert process.stdin is not None
        process.stdin.write("".join(json.dumps(m) + "\n" for m in (initialize, initialized, call)))
        process.stdin.flush()
        deadline = time.monotonic() + 30
        while not pid_file.exists() or not pid_file.read_text().strip():
            assert time.monotonic() < deadline and process.poll() is None
            time.sleep(0.05)
        pgid = int(pid_file.read_text())
        process.send_signal(signal.SIGTERM)
        assert process.wait(30) == 0
        assert wait_group_gone(pgid, timeout=10), group_members(pgid)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
