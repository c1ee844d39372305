"""``qwen-tools rollout`` without Ray, as a subprocess against the fake model server: records,
failed tasks recorded while the run goes on, turn and time limits, and resuming."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from support.cli_env import isolated_env
from support.fake_openai import FakeOpenAI, Reply
from support.rollout_model import TEMPLATE_FILES, expected_diff_line, scripted_model

HOLD = threading.Event()


def model(body: dict[str, Any]) -> Reply:
    """The scripted model, plus ``KIND=hang``: a stream that stops half-way (until the end)."""
    if "KIND=hang" in json.dumps(body["messages"]):
        return Reply(content="thinking about it for a long time", hold=HOLD)
    return scripted_model(body)


def rollout(tmp_path: Path, url: str, *extra: str) -> subprocess.CompletedProcess[str]:
    env = isolated_env(tmp_path, OPENAI_BASE_URL=url, OPENAI_API_KEY="k", OPENAI_MODEL="m")
    argv = [sys.executable, "-m", "qwen_tools", "rollout", "tasks.jsonl", "-o", "out.jsonl"]
    return subprocess.run(
        [*argv, *extra], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )


def write_tasks(tmp_path: Path, tasks: list[dict[str, Any]]) -> None:
    lines = [json.dumps(task) for task in tasks]
    (tmp_path / "tasks.jsonl").write_text("\n".join(lines) + "\n")


def records(tmp_path: Path) -> dict[str, dict[str, Any]]:
    found = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    return {record["id"]: record for record in found}


def test_rollout_records_limits_failures_and_resumes(tmp_path: Path) -> None:
    template = tmp_path / "repo"
    template.mkdir()
    for name, content in TEMPLATE_FILES.items():
        (template / name).write_text(content)
    tasks: list[dict[str, Any]] = [
        {"id": "edit", "prompt": "KIND=edit TAG=e1", "template": "repo"},
        {"id": "shell", "prompt": "KIND=shell TAG=s1", "template": {"dir": "repo"}},
        {"id": "files", "prompt": "KIND=write TAG=w1", "template": {"files": TEMPLATE_FILES}},
        {"id": "loop", "prompt": "KIND=loop TAG=l1", "template": "repo", "max_turns": 2},
        {"id": "api", "prompt": "KIND=error TAG=x1", "template": "repo"},
        {"id": "nodir", "prompt": "KIND=read TAG=r1", "template": "missing-dir"},
        {"id": "hang", "prompt": "KIND=hang TAG=h1", "template": "repo", "timeout_s": 1},
    ]
    write_tasks(tmp_path, tasks)
    with FakeOpenAI(model) as server:
        try:
            done = rollout(tmp_path, server.url, "--concurrency", "3")
        finally:
            HOLD.set()
        assert done.returncode == 0, done.stderr
        assert "rollout: 7 written" in done.stderr
        found = records(tmp_path)
        assert set(found) == {task["id"] for task in tasks}
        assert found["edit"]["status"] == "ok" and found["edit"]["turns"] == 3
        assert expected_diff_line("edit", "e1") in found["edit"]["diff"]
        assert [c["name"] for c in found["edit"]["tool_calls"]] == ["read_file", "edit"]
        assert found["edit"]["tool_calls"][1]["response"].startswith("The file: ")
        assert expected_diff_line("shell", "s1") in found["shell"]["diff"]
        assert "new_w1.txt" in found["files"]["diff"]
        assert (found["loop"]["status"], found["loop"]["finish_reason"]) == ("limit", "MAX_TURNS")
        assert found["loop"]["turns"] == 2
        assert found["api"]["status"] == "failed" and "401" in found["api"]["error"]
        assert found["nodir"]["status"] == "failed" and "missing-dir" in found["nodir"]["error"]
        assert (found["hang"]["status"], found["hang"]["finish_reason"]) == ("limit", "timeout")
        for record in found.values():
            assert record["timings"]["total_s"] >= 0

        # resume: a torn last line is dropped, written tasks are skipped, new ones run
        out = tmp_path / "out.jsonl"
        kept = out.read_text()
        out.write_text(kept + '{"id": "torn", "sta')
        tasks.append({"id": "read", "prompt": "KIND=read TAG=r2", "template": "repo"})
        write_tasks(tmp_path, tasks)
        again = rollout(tmp_path, server.url)
        assert again.returncode == 0, again.stderr
        assert "rollout: 1 written" in again.stderr and "7 already" in again.stderr
        assert out.read_text().startswith(kept)
        assert records(tmp_path)["read"]["status"] == "ok"
        assert len(out.read_text().splitlines()) == 8


def test_a_bad_tasks_file_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "tasks.jsonl").write_text('{"prompt": "a"}\nnot json\n')
    done = rollout(tmp_path, "http://127.0.0.1:9/v1")
    assert done.returncode == 2 and "line 2: not JSON" in done.stderr
