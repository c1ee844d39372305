"""``qwen-tools schema`` declares exactly the tools ``call`` accepts (and ``tools`` lists).

Without a terminal (pipes), a session leaves out the plan-mode tools; ``schema`` must not
declare tools that ``call`` would then say it cannot find. Real subprocesses.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from support.cli_env import isolated_env

EXE = Path(sys.executable).with_name("qwen-tools")


def run(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(EXE), *args], env=env, cwd=cwd, input="", capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize("fmt", ["openai", "mcp"])
def test_schema_without_a_terminal_declares_what_call_accepts(tmp_path: Path, fmt: str) -> None:
    env = isolated_env(tmp_path)
    listed = run(["tools", "--json"], env, tmp_path)
    assert listed.returncode == 0, listed.stderr
    accepted = {row["name"] for row in json.loads(listed.stdout)}
    done = run(["schema", "--format", fmt], env, tmp_path)
    assert done.returncode == 0, done.stderr
    declared = json.loads(done.stdout)
    names = {d["function"]["name"] if fmt == "openai" else d["name"] for d in declared}
    assert "enter_plan_mode" not in names and "exit_plan_mode" not in names
    assert names == accepted
    refused = run(["call", "enter_plan_mode", "{}"], env, tmp_path)
    assert "not found in registry" in refused.stderr + refused.stdout
