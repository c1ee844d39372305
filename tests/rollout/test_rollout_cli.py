"""``qwen-tools rollout`` without Ray, as a subprocess against the fake model server: records,
failed tasks recorded while the run goes on, turn and time limits, resuming, and the progress
bar on a terminal only."""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path
from typing import Any

from support.fake_openai import FakeOpenAI, Reply
from support.pty_terminal import PtyTerminal
from support.rollout_cli import EXE, records, rollout, rollout_env, write_tasks
from support.rollout_model import TEMPLATE_FILES, expected_diff_line, scripted_model

HOLD = threading.Event()


def model(body: dict[str, Any]) -> Reply:
    """The scripted model, plus ``KIND=hang``: a stream that stops half-way (until the end)."""
    if "KIND=hang" in json.dumps(body["messages"]):
        return Reply(content="thinking about it for a long time", hold=HOLD)
    return scripted_model(body)


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


def test_progress_bar_on_a_terminal_only(tmp_path: Path) -> None:
    write_tasks(tmp_path, [{"id": n, "prompt": f"KIND=read TAG=r{n}"} for n in range(3)])
    with FakeOpenAI(scripted_model) as server:
        argv = [str(EXE), "rollout", "tasks.jsonl", "-o", "out.jsonl"]
        terminal = PtyTerminal(argv, rollout_env(tmp_path, server.url, TERM="xterm"), tmp_path)
        try:
            code = terminal.finish(timeout=120)
            screen = terminal.text
        finally:
            terminal.close()
        piped = rollout(tmp_path, server.url, output="piped.jsonl")
    assert code == 0, screen
    bar = r"rollout .*3/3 +\d+\.\d tasks/min · 0 failed .*ETA"
    assert re.search(bar, screen) and "rollout: 3 written (3 ok)" in screen, screen
    assert piped.returncode == 0 and len(records(tmp_path, "piped.jsonl")) == 3, piped.stderr
    assert "tasks/min ·" not in piped.stderr and "\x1b" not in piped.stderr, piped.stderr
