"""``qwen-tools call --session NAME``: a session's state kept between real CLI commands."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from support.cli_env import isolated_env

EXE = Path(sys.executable).with_name("qwen-tools")
NOT_READ = "has not been read in this session"


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return isolated_env(tmp_path)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "notes.txt").write_text("alpha\nbeta\n")
    return root


def call(
    ws: Path, env: dict[str, str], name: str, args: dict[str, Any], *extra: str
) -> tuple[int, dict[str, Any]]:
    done = subprocess.run(
        [str(EXE), "call", name, json.dumps(args), "--json", "--approval-mode", "yolo", *extra],
        env=env,
        cwd=ws,
        input="",
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1, done.stdout + done.stderr
    return done.returncode, json.loads(lines[0])


def read(ws: Path) -> dict[str, Any]:
    return {"absolute_path": str(ws / "notes.txt")}


def edit(ws: Path, old: str, new: str) -> dict[str, Any]:
    return {"file_path": str(ws / "notes.txt"), "old_string": old, "new_string": new}


def sessions_dir(env: dict[str, str]) -> Path:
    (found,) = Path(env["QWEN_HOME"], "tmp").glob("*/sessions")
    return found


def test_read_then_edit_across_two_commands(ws: Path, env: dict[str, str]) -> None:
    code, _ = call(ws, env, "read_file", read(ws), "--session", "s1")
    assert code == 0
    code, out = call(ws, env, "edit", edit(ws, "alpha", "gamma"), "--session", "s1")
    assert code == 0, out
    assert (ws / "notes.txt").read_text() == "gamma\nbeta\n"
    # the edit counts as a read of the new content: a second edit needs no read
    code, out = call(ws, env, "edit", edit(ws, "beta", "delta"), "--session", "s1")
    assert code == 0, out
    directory = sessions_dir(env)
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    assert stat.S_IMODE((directory / "s1.json").stat().st_mode) == 0o600


def test_other_name_or_none_does_not_see_the_read(ws: Path, env: dict[str, str]) -> None:
    assert call(ws, env, "read_file", read(ws), "--session", "s1")[0] == 0
    code, out = call(ws, env, "edit", edit(ws, "alpha", "x"), "--session", "s2")
    assert code == 1 and NOT_READ in out["error"]["message"]
    code, out = call(ws, env, "edit", edit(ws, "alpha", "x"))
    assert code == 1 and NOT_READ in out["error"]["message"]
    assert (ws / "notes.txt").read_text() == "alpha\nbeta\n"


def test_a_file_changed_between_commands_is_stale(ws: Path, env: dict[str, str]) -> None:
    assert call(ws, env, "read_file", read(ws), "--session", "s1")[0] == 0
    (ws / "notes.txt").write_text("alpha\nbeta\nchanged outside\n")
    code, out = call(ws, env, "edit", edit(ws, "alpha", "x"), "--session", "s1")
    assert code == 1 and "modified since you last read it" in out["error"]["message"], out
    assert "x" not in (ws / "notes.txt").read_text()


def test_concurrent_commands_on_one_name(ws: Path, env: dict[str, str]) -> None:
    for i in range(20):
        (ws / f"f{i}.txt").write_text(f"file {i}\n")

    def one(i: int) -> int:
        args = {"absolute_path": str(ws / f"f{i % 20}.txt")}
        return call(ws, env, "read_file", args, "--session", "busy")[0]

    with ThreadPoolExecutor(max_workers=4) as pool:
        codes = list(pool.map(one, range(40)))
    assert codes == [0] * 40
    state = json.loads((sessions_dir(env) / "busy.json").read_text())
    # every read of every command was kept: the commands ran one after the other
    paths = {entry["path"] for entry in state["readCache"]}
    assert paths == {str(ws / f"f{i}.txt") for i in range(20)}
    for i in range(20):
        code, out = call(
            ws,
            env,
            "edit",
            {"file_path": str(ws / f"f{i}.txt"), "old_string": "file", "new_string": "done"},
            "--session",
            "busy",
        )
        assert code == 0, out
        if i == 1:
            break


@pytest.mark.parametrize("name", ["../x", "a/b", "", "x" * 300, ".", ".."])
def test_hostile_names_are_usage_errors(ws: Path, env: dict[str, str], name: str) -> None:
    done = subprocess.run(
        [str(EXE), "call", "read_file", json.dumps(read(ws)), "--session", name],
        env=env,
        cwd=ws,
        input="",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert "invalid session name" in done.stderr
    assert not list(Path(env["QWEN_HOME"]).glob("tmp/*/sessions/*"))
    assert not (ws.parent / "x.json").exists()


def test_nul_in_a_name_is_refused() -> None:
    from qwen_tools.session.named import SessionNameError, validate_session_name

    with pytest.raises(SessionNameError):
        validate_session_name("a\x00b")
    assert validate_session_name("ok.name_1-2") == "ok.name_1-2"


def test_an_unreadable_state_file_starts_afresh(ws: Path, env: dict[str, str]) -> None:
    assert call(ws, env, "read_file", read(ws), "--session", "s1")[0] == 0
    state = sessions_dir(env) / "s1.json"
    state.write_text("{not json")
    code, out = call(ws, env, "edit", edit(ws, "alpha", "x"), "--session", "s1")
    assert code == 1 and NOT_READ in out["error"]["message"]
    assert (sessions_dir(env) / "s1.json.bad").exists()
    assert json.loads(state.read_text())["version"] == 1
    assert os.stat(state).st_mode & 0o077 == 0


def test_a_commands_approval_mode_is_not_inherited(ws: Path, env: dict[str, str]) -> None:
    assert call(ws, env, "read_file", read(ws), "--session", "s1")[0] == 0  # --approval-mode yolo
    done = subprocess.run(
        [str(EXE), "call", "edit", json.dumps(edit(ws, "alpha", "x")), "--json", "--session", "s1"],
        env=env,
        cwd=ws,
        input="",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 4, done.stdout + done.stderr  # refused: needs approval, no terminal
    assert (ws / "notes.txt").read_text() == "alpha\nbeta\n"
    state = json.loads((sessions_dir(env) / "s1.json").read_text())
    assert state["approvalMode"] is None


def test_the_session_id_is_kept(ws: Path, env: dict[str, str]) -> None:
    assert call(ws, env, "read_file", read(ws), "--session", "s1")[0] == 0
    first = json.loads((sessions_dir(env) / "s1.json").read_text())["sessionId"]
    assert call(ws, env, "read_file", read(ws), "--session", "s1")[0] == 0
    assert json.loads((sessions_dir(env) / "s1.json").read_text())["sessionId"] == first
