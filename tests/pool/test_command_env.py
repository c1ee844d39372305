"""The environment a pool session's commands start from: the worker's secrets (model API keys,
cloud credentials) are not in it; only the plain variables a command needs, or exactly the
environment the pool was given."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from qwen_tools import Session
from qwen_tools.pool import SessionHost, Template

SECRET = "sk-worker-secret-4242"


async def _shell(host: SessionHost, sid: str, command: str) -> str:
    done = await host.call(sid, "run_shell_command", {"command": command})
    return done.response_text


async def test_a_pool_command_does_not_see_the_workers_secrets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    monkeypatch.setenv("LANG", "C.UTF-8")
    host = SessionHost(tmp_path / "pool")
    try:
        sid = await host.open(Template.from_files({"a.txt": "a\n"}), approval_mode="yolo")
        seen = await _shell(host, sid, "env; echo PATH-IS-$PATH; ls a.txt")
    finally:
        await host.aclose()
    assert SECRET not in seen
    assert "OPENAI_API_KEY" not in seen and "AWS_SECRET_ACCESS_KEY" not in seen
    assert f"PATH-IS-{os.environ['PATH']}" in seen and "a.txt" in seen  # commands still work
    assert "LANG=C.UTF-8" in seen


async def test_a_pool_given_an_environment_runs_commands_in_exactly_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    host = SessionHost(
        tmp_path / "pool", command_env={"PATH": os.environ["PATH"], "ROLLOUT_TASK": "t-7"}
    )
    try:
        sid = await host.open(Template.from_files({"a.txt": "a\n"}), approval_mode="yolo")
        seen = await _shell(host, sid, "echo task=$ROLLOUT_TASK key=[$OPENAI_API_KEY]")
    finally:
        await host.aclose()
    assert "task=t-7 key=[]" in seen


async def test_a_local_session_passes_its_command_environment(tmp_path: Path) -> None:
    env = {"PATH": os.environ["PATH"], "ONLY_THIS": "yes"}
    async with Session(tmp_path, approval_mode="yolo", command_env=env) as session:
        done = await session.call(
            "run_shell_command", {"command": "echo only=$ONLY_THIS home=[$HOME]"}
        )
    assert "only=yes home=[]" in done.response_text
