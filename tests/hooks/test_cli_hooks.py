"""Hooks through the real CLI: ``qwen-tools call`` (single and ``--batch``) and ``qwen-tools run``
against the fake model server, each a subprocess with an isolated HOME."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.cli_env import isolated_env
from support.fake_openai import FakeOpenAI, Reply, call

from .conftest import command_hook, hook_script, records, write_hooks

EXE = Path(sys.executable).with_name("qwen-tools")


def _run(
    args: list[str], env: dict[str, str], cwd: Path, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(EXE), *args],
        env=env,
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


def test_call_blocked_by_an_exit_2_hook(ws: Path, tmp_path: Path) -> None:
    hook = hook_script(
        tmp_path, "guard", "record()\nsys.stderr.write('blocked: no writes\\n')\nsys.exit(2)"
    )
    write_hooks(ws, {"PreToolUse": [command_hook(hook, "write_file")]})
    args = json.dumps({"file_path": str(ws / "a.txt"), "content": "x"})
    done = _run(
        ["call", "write_file", args, "--approval-mode", "yolo", "--json"],
        isolated_env(tmp_path),
        ws,
    )
    result = json.loads(done.stdout)
    assert result["error"] == {"message": "blocked: no writes", "type": "execution_denied"}
    assert result["responseText"] == "blocked: no writes"
    assert not (ws / "a.txt").exists()
    (seen,) = records(tmp_path, "guard")
    assert seen["tool_name"] == "write_file" and seen["cwd"] == str(ws)


def test_call_batch_with_post_tool_use_context_and_session_hooks(ws: Path, tmp_path: Path) -> None:
    post = hook_script(
        tmp_path,
        "post",
        "record()\nprint(json.dumps({'hookSpecificOutput': {'additionalContext': 'seen by audit'}}))",
    )
    start = hook_script(tmp_path, "start", "record()")
    end = hook_script(tmp_path, "end", "record()")
    write_hooks(
        ws,
        {
            "PostToolUse": [command_hook(post, "Read")],
            "SessionStart": [command_hook(start)],
            "SessionEnd": [command_hook(end)],
        },
    )
    lines = "\n".join(
        json.dumps({"name": name, "args": args, "id": f"c{i}"})
        for i, (name, args) in enumerate(
            [("read_file", {"file_path": str(ws / "notes.txt")}), ("glob", {"pattern": "*.txt"})]
        )
    )
    done = _run(["call", "--batch", "-", "--json"], isolated_env(tmp_path), ws, stdin=lines)
    assert done.returncode == 0, done.stderr
    results = [json.loads(line) for line in done.stdout.splitlines()]
    assert results[0]["responseText"] == "alpha\n\n\nseen by audit"
    assert "seen by audit" not in results[1]["responseText"]
    assert [r["tool_name"] for r in records(tmp_path, "post")] == ["read_file"]
    assert len(records(tmp_path, "start")) == 1 and len(records(tmp_path, "end")) == 1


def test_run_with_a_stop_hook_and_a_tool_hook(ws: Path, tmp_path: Path, server: FakeOpenAI) -> None:
    stop = hook_script(
        tmp_path,
        "stop",
        "record()\n"
        "if not data['stop_hook_active']:\n"
        "    print(json.dumps({'decision': 'block', 'reason': 'Say goodbye.'}))",
    )
    deny = hook_script(
        tmp_path,
        "deny",
        "print(json.dumps({'hookSpecificOutput': {'permissionDecision': 'deny', "
        "'permissionDecisionReason': 'not today'}}))",
    )
    write_hooks(ws, {"Stop": [command_hook(stop)], "PreToolUse": [command_hook(deny, "Bash")]})
    server.script = [
        Reply(tool_calls=[call("run_shell_command", {"command": "echo hi"}, "c1")]),
        Reply(content="Could not run it."),
        Reply(content="Goodbye."),
    ]
    env = isolated_env(
        tmp_path,
        OPENAI_API_KEY="sk-test",
        OPENAI_BASE_URL=server.url,
        OPENAI_MODEL="fake-model",
        NO_PROXY="127.0.0.1",
    )
    done = _run(["run", "--approval-mode", "yolo", "say hi"], env, ws)
    assert (done.returncode, done.stdout) == (0, "Goodbye.\n"), done.stderr
    tool_message = server.requests[1]["messages"][-1]
    assert tool_message["role"] == "tool" and "not today" in json.dumps(tool_message["content"])
    last_user = server.requests[2]["messages"][-1]
    assert last_user["role"] == "user" and "Say goodbye." in json.dumps(last_user["content"])
    assert [r["stop_hook_active"] for r in records(tmp_path, "stop")] == [False, True]


async def test_serve_over_stdio_runs_the_hooks(ws: Path, tmp_path: Path) -> None:
    import anyio
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    guard = hook_script(
        tmp_path,
        "guard",
        "record()\nprint(json.dumps({'hookSpecificOutput': {'permissionDecision': 'deny', "
        "'permissionDecisionReason': 'served, but denied'}}))",
    )
    write_hooks(ws, {"PreToolUse": [command_hook(guard, "^glob$")]})
    params = StdioServerParameters(
        command=str(EXE), args=["serve", "--cwd", str(ws)], env=isolated_env(tmp_path), cwd=str(ws)
    )
    with anyio.fail_after(60):
        async with Client(params) as mcp:
            result = await mcp.call_tool("glob", {"pattern": "*.txt"})
    (block,) = result.content
    assert result.is_error and getattr(block, "text", None) == "served, but denied"
    (seen,) = records(tmp_path, "guard")
    assert seen["tool_name"] == "glob"
