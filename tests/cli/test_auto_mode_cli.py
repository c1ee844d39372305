"""``--approval-mode auto`` through the real CLI (subprocesses, the fake model server).

``run`` lends the session's model to the classifier: a blocked command never runs and the model
gets 0.24.4's text. ``call`` has no model: it says so once and asks as ``default`` would (no
terminal: refused).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from support.cli_env import isolated_env
from support.fake_openai import FakeOpenAI, Reply, call

EXE = Path(sys.executable).with_name("qwen-tools")
NO_MODEL = "Auto mode has no model to classify tool calls here"


def qwen(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(EXE), *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=120
    )


def test_run_auto_blocks_with_the_session_model(tmp_path: Path) -> None:
    ws = Path(os.path.realpath(tmp_path)) / "ws"
    ws.mkdir()
    marker = ws / "pwned"
    shell = {"command": f"touch {marker}", "description": "x"}
    reason = {"thinking": "t", "shouldBlock": True, "reason": "Not what the user asked."}
    script = [
        Reply(tool_calls=[call("run_shell_command", shell, "c1")]),
        Reply(content='{"shouldBlock": true}'),
        Reply(content=json.dumps(reason)),
        Reply(content="Stopped."),
    ]
    with FakeOpenAI(script) as server:
        env = isolated_env(
            tmp_path,
            OPENAI_API_KEY="sk-test",
            OPENAI_BASE_URL=server.url,
            OPENAI_MODEL="fake-model",
            NO_PROXY="127.0.0.1",
        )
        done = qwen(["run", "--approval-mode", "auto", "list the files"], env, ws)
        requests = server.requests
    assert (done.returncode, done.stdout) == (0, "Stopped.\n"), done.stderr
    assert not marker.exists()
    tool = next(m for m in requests[3]["messages"] if m["role"] == "tool")
    text = tool["content"] if isinstance(tool["content"], str) else tool["content"][0]["text"]
    assert text.startswith("Blocked by auto mode policy: Not what the user asked.\nDo not try")
    assert "list the files" in requests[1]["messages"][1]["content"][0]["text"]


def test_call_auto_without_a_model_asks_like_default(tmp_path: Path) -> None:
    ws = Path(os.path.realpath(tmp_path)) / "ws"
    ws.mkdir()
    batch = tmp_path / "batch.jsonl"
    line = {"name": "run_shell_command", "args": {"command": "touch made"}}
    batch.write_text(json.dumps(line) + "\n" + json.dumps(line) + "\n")
    args = ["call", "--approval-mode", "auto", "--batch", str(batch)]
    done = qwen(args, isolated_env(tmp_path), ws)
    assert done.returncode != 0 and not (ws / "made").exists()
    assert done.stderr.count(NO_MODEL) == 1, done.stderr
    assert "non-interactive mode cannot prompt for confirmation" in done.stdout + done.stderr
