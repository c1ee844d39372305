"""``call``'s "Always allow … in this project / for this user": the rule saved, then honoured.

The first ``call`` asks on a real pty and is answered; a second ``call`` without a terminal
(where nothing can be asked) then runs only if the saved rule covers it.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.chat_terminal import EXE, base_env
from support.processes import process_guard
from support.pty_terminal import PtyTerminal

EXE_ARGS = [str(EXE), "call", "run_shell_command"]


@pytest.fixture(autouse=True)
def _no_leftovers(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    yield from process_guard(monkeypatch, timeout=5.0)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


def shell(command: str) -> str:
    return json.dumps({"command": command})


def ask_and_answer(env: dict[str, str], ws: Path, command: str, answer: str) -> tuple[int, str]:
    terminal = PtyTerminal([*EXE_ARGS, shell(command)], env, ws)
    try:
        terminal.expect(r"Allow execution\? ")
        terminal.send(answer + "\n")
        code = terminal.finish()
        return code, terminal.text
    finally:
        terminal.close()


def headless(env: dict[str, str], ws: Path, command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*EXE_ARGS, shell(command)],
        env=env,
        cwd=ws,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_in_this_project_saves_the_narrow_rule_and_the_next_call_runs(
    tmp_path: Path, ws: Path
) -> None:
    env = base_env(tmp_path)
    settings = ws / ".qwen" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{\n  // kept\n  "model": {"name": "m"}\n}\n')
    code, text = ask_and_answer(env, ws, "touch a.txt", "2")
    assert code == 0, text
    assert "1) Yes, allow once" in text
    assert "2) Always allow run 'touch *' commands in this project" in text
    assert "3) Always allow run 'touch *' commands for this user" in text
    assert (ws / "a.txt").exists()
    saved = settings.read_text()
    assert "// kept" in saved and '"model": {"name": "m"}' in saved
    assert json.loads(saved.replace("// kept", ""))["permissions"]["allow"] == ["Bash(touch *)"]
    user_file = tmp_path / "home" / ".qwen" / "settings.json"
    assert not user_file.exists()

    again = headless(env, ws, "touch b.txt")
    assert again.returncode == 0, again.stderr + again.stdout
    assert (ws / "b.txt").exists()
    other = headless(env, ws, "rm a.txt")  # not covered: refused, nobody to ask
    assert other.returncode != 0 and (ws / "a.txt").exists()
    compound = headless(env, ws, "touch c.txt && rm a.txt")
    assert compound.returncode != 0 and not (ws / "c.txt").exists()


def test_for_this_user_saves_to_the_user_file(tmp_path: Path, ws: Path) -> None:
    env = base_env(tmp_path)
    code, text = ask_and_answer(env, ws, "git init -q", "3")
    assert code == 0, text
    user_file = tmp_path / "home" / ".qwen" / "settings.json"
    assert json.loads(user_file.read_text()) == {"permissions": {"allow": ["Bash(git init *)"]}}
    assert not (ws / ".qwen").exists()
    other_ws = tmp_path / "other"
    other_ws.mkdir()
    assert headless(env, other_ws, "git init -q").returncode == 0
    assert (other_ws / ".git").is_dir()


def test_a_project_file_linked_outside_is_not_written(tmp_path: Path, ws: Path) -> None:
    env = base_env(tmp_path)
    outside = tmp_path / "outside.json"
    outside.write_text("{}\n")
    (ws / ".qwen").mkdir()
    (ws / ".qwen" / "settings.json").symlink_to(outside)
    code, text = ask_and_answer(env, ws, "touch a.txt", "2")
    assert code == 0, text  # the call itself was allowed once
    assert (ws / "a.txt").exists()
    assert "Could not save the permission rule to" in text
    assert "Nothing was written." in text
    assert outside.read_text() == "{}\n"
    assert headless(env, ws, "touch b.txt").returncode != 0  # nothing was remembered
