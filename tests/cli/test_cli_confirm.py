"""``qwen-tools call write_file`` asking for confirmation in a real pseudo-terminal."""

from __future__ import annotations

import fcntl
import json
import os
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from support.cli_env import isolated_env

EXE = Path(sys.executable).with_name("qwen-tools")
PROMPT = "Allow execution? "
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return isolated_env(tmp_path, TERM="xterm-256color", COLUMNS="120", LINES="40")


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


def run_in_pty(
    args: list[str],
    env: dict[str, str],
    cwd: Path,
    replies: list[str],
    timeout: float = 60,
) -> tuple[int, str]:
    """Run the CLI on a pseudo-terminal, typing each reply after the next prompt appears."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    process = subprocess.Popen(
        [str(EXE), *args],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        cwd=cwd,
        start_new_session=True,
    )
    os.close(slave)
    output = b""
    searched_from = 0
    pending = list(replies)
    deadline = time.monotonic() + timeout
    try:
        while True:
            if time.monotonic() > deadline:
                process.kill()
                raise AssertionError(f"the CLI did not finish; it printed: {output!r}")
            ready, _, _ = select.select([master], [], [], 0.1)
            if not ready:
                if process.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: every slave end is closed
                break
            if not chunk:
                break
            output += chunk
            text = output.decode("utf-8", "replace")
            if pending and PROMPT in text[searched_from:]:
                os.write(master, pending.pop(0).encode())
                searched_from = len(text)
        code = process.wait(timeout=max(deadline - time.monotonic(), 1))
    finally:
        os.close(master)
        if process.poll() is None:
            process.kill()
    assert not pending, f"never asked for {pending}; output: {output!r}"
    return code, output.decode("utf-8", "replace")


def write_args(target: Path, content: str) -> list[str]:
    return ["call", "write_file", json.dumps({"file_path": str(target), "content": content})]


def test_answer_yes_writes_the_file(env: dict[str, str], ws: Path) -> None:
    target = ws / "new" / "out.txt"
    code, output = run_in_pty(write_args(target, "hello\nworld\n"), env, ws, ["1\n"])
    plain = ANSI.sub("", output)
    assert code == 0, output
    assert "Confirm Write: new/out.txt" in plain
    assert re.search(r"--- out\.txt\s+Current", plain)
    assert "+hello" in plain and "+world" in plain
    assert "\x1b[32m+hello" in output  # added lines are green
    assert "1) Yes, allow once" in plain and "n) No (cancel)" in plain
    assert "Modify with external editor" not in plain  # no editor configured
    assert f"Successfully created and wrote to new file: {target}." in plain
    assert target.read_text() == "hello\nworld\n"


@pytest.mark.parametrize(
    ("reply", "code", "expected"),
    [
        ("1\n", 0, "User approved. You can now start coding."),
        ("2\n", 0, "User approved. You can now start coding."),
        ("n\n", 4, "User did not allow tool call"),
    ],
)
def test_plan_approval_offers_the_two_modes(
    env: dict[str, str], ws: Path, reply: str, code: int, expected: str
) -> None:
    args = ["call", "exit_plan_mode", '{"plan": "1. write it"}', "--approval-mode", "plan"]
    exit_code, output = run_in_pty(args, env, ws, [reply])
    plain = ANSI.sub("", output)
    assert exit_code == code, output
    assert "1) Yes, and auto-accept edits" in plain
    assert "2) Yes, and manually approve edits" in plain
    assert "n) No, keep planning" in plain
    assert expected in plain


def test_answer_no_cancels(env: dict[str, str], ws: Path) -> None:
    target = ws / "untouched.txt"
    code, output = run_in_pty(write_args(target, "nope\n"), env, ws, ["n\n"])
    assert code == 4, output
    assert "User did not allow tool call" in ANSI.sub("", output)
    assert not target.exists()


def test_modify_with_external_editor(env: dict[str, str], ws: Path, tmp_path: Path) -> None:
    editor = tmp_path / "editor.sh"
    editor.write_text('#!/bin/sh\nfor last; do :; done\nprintf "from the editor\\n" > "$last"\n')
    editor.chmod(0o755)
    env = {**env, "EDITOR": str(editor)}
    target = ws / "story.txt"
    code, output = run_in_pty(write_args(target, "from the model\n"), env, ws, ["3\n", "1\n"])
    plain = ANSI.sub("", output)
    assert code == 0, output
    assert "3) Modify with external editor" in plain
    assert plain.count("Confirm Write: story.txt") == 2
    assert "+from the editor" in plain
    assert target.read_text() == "from the editor\n"
    assert "User modified the `content` to be: from the editor" in plain


def test_without_a_terminal_the_call_is_refused(env: dict[str, str], ws: Path) -> None:
    target = ws / "refused.txt"
    done = subprocess.run(
        [str(EXE), *write_args(target, "x"), "--json"],
        env=env,
        cwd=ws,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 4, done.stderr
    result = json.loads(done.stdout)
    assert result["responseText"] == (
        'Qwen Code requires permission to use "write_file", but that permission was declined '
        "(non-interactive mode cannot prompt for confirmation)."
    )
    assert result["error"]["type"] == "execution_denied"
    assert not target.exists()
