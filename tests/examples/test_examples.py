"""Every program under ``examples/`` runs, as a subprocess, offline, and prints what it promises.

The model of the agent and rollout examples is the fake OpenAI-compatible server on 127.0.0.1,
given through the same environment variables a user sets for a local model. A new example file
that no test here runs fails :func:`test_every_example_is_run`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from support.cli_env import isolated_env
from support.fake_openai import FakeOpenAI, Reply, call

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
RUN = {
    "custom_tool.py",
    "local_agent.py",
    "pydantic_ai_agent.py",
    "openai_agents_sdk.py",
    "langgraph_agent.py",
    "mcp_serve/list_tools.py",
    "rollout/run_rollout.py",
}


def run(tmp_path: Path, script: str, *args: str, **env: str) -> str:
    """Run ``examples/SCRIPT`` in an isolated home; its stdout (it must exit 0)."""
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / script), *args],
        cwd=tmp_path,
        env=isolated_env(tmp_path, **env),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text("alpha\n")
    return ws


def test_every_example_is_run() -> None:
    found = {p.relative_to(EXAMPLES).as_posix() for p in EXAMPLES.rglob("*.py")}
    assert found == RUN


def test_custom_tool(tmp_path: Path) -> None:
    out = run(tmp_path, "custom_tool.py", str(workspace(tmp_path)))
    assert 'word_count: {"words": 2}' in out
    assert "project_name: ws" in out
    assert "read_file: success one two two three" in out
    assert "declared: True True" in out


def test_local_agent_on_an_openai_compatible_endpoint(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    script = [Reply(tool_calls=[call("glob", {"pattern": "*.txt"})]), Reply(content="Found a.txt.")]
    with FakeOpenAI(script) as server:
        env = {"OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "k", "OPENAI_MODEL": "local-qwen"}
        out = run(tmp_path, "local_agent.py", str(ws), "What is here?", **env)
    assert "[glob: success]" in out and "Found a.txt." in out and "GOAL after 2 turn(s)" in out
    assert server.requests[0]["model"] == "local-qwen"
    tool_reply = server.requests[1]["messages"][-1]
    assert tool_reply["role"] == "tool" and "a.txt" in json.dumps(tool_reply)


def test_local_agent_without_a_model_says_what_to_set(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "local_agent.py"), str(workspace(tmp_path))],
        env=isolated_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 3 and "OPENAI" in done.stderr


def test_pydantic_ai(tmp_path: Path) -> None:
    pytest.importorskip("pydantic_ai")
    ws = workspace(tmp_path)
    out = run(tmp_path, "pydantic_ai_agent.py", str(ws))
    assert "approve write_file (edit)? -> once" in out
    assert "Successfully created and wrote to new file" in out
    assert (ws / "hello.txt").read_text() == "hello from pydantic-ai\n"


def test_openai_agents_sdk(tmp_path: Path) -> None:
    pytest.importorskip("agents")
    ws = workspace(tmp_path)
    out = run(tmp_path, "openai_agents_sdk.py", str(ws))
    assert "'rootCommands': ['touch']" in out and "Created made.txt." in out
    assert (ws / "made.txt").exists()


def test_langgraph(tmp_path: Path) -> None:
    pytest.importorskip("langgraph")
    ws = workspace(tmp_path)
    out = run(tmp_path, "langgraph_agent.py", str(ws))
    assert "approve write_file? -> once" in out and "Wrote plan.md." in out
    assert (ws / "plan.md").read_text() == "# Plan\n"


def test_mcp_serve_lists_and_calls(tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    out = run(tmp_path, "mcp_serve/list_tools.py", str(workspace(tmp_path)))
    assert "read_file                read-only" in out
    assert "run_shell_command        may change things" in out
    assert "read_file: ok served over MCP" in out
    for name in ("claude_desktop_config.json", "qwen_code_settings.json"):
        config = json.loads((EXAMPLES / "mcp_serve" / name).read_text())
        server = config["mcpServers"]["qwen-tools"]
        assert server["command"] == "qwen-tools" and server["args"][0] == "serve"


def rollout_model(body: dict[str, Any]) -> Reply:
    """Turn 1: append to README.md with the shell; turn 2: answer."""
    if not any(m["role"] == "assistant" for m in body["messages"]):
        command = "printf 'Built by the agent.\\n' >> README.md"
        return Reply(tool_calls=[call("run_shell_command", {"command": command})])
    return Reply(content="Done.")


def test_rollout(tmp_path: Path) -> None:
    with FakeOpenAI(rollout_model) as server:
        env = {"OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "k", "OPENAI_MODEL": "m"}
        out = run(tmp_path, "rollout/run_rollout.py", str(tmp_path / "out.jsonl"), **env)
    assert "greet: ok in 2 turn(s) [run_shell_command:success]" in out
    assert "readme: ok in 2 turn(s) [run_shell_command:success]" in out
    records = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert all("+Built by the agent." in record["diff"] for record in records)
