"""The CLI for a person at a shell (issue 15): ``call -y``, ``tools``' listing and help,
``mcp add``'s argument errors, shell output shown once, ``call --batch``'s separated output.

Every case runs the real ``qwen-tools`` as a subprocess (without a terminal: pipes).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from support.cli_env import isolated_env

EXE = Path(sys.executable).with_name("qwen-tools")


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return isolated_env(tmp_path)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "notes.txt").write_text("line 1\nline 2\n")
    return root


def run(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(EXE), *args], env=env, cwd=cwd, input="", capture_output=True, text=True, timeout=60
    )


def test_call_has_yolo_short_flag(env: dict[str, str], ws: Path) -> None:
    args = ["call", "write_file", json.dumps({"file_path": str(ws / "new.txt"), "content": "x"})]
    refused = run(args, env, ws)
    assert refused.returncode == 4
    assert "--approval-mode" in refused.stderr and "-y" in refused.stderr, refused.stderr
    assert not (ws / "new.txt").exists()
    allowed = run([*args, "-y"], env, ws)
    assert allowed.returncode == 0, allowed.stderr
    assert (ws / "new.txt").read_text() == "x"
    both = run([*args, "-y", "--approval-mode", "plan"], env, ws)
    assert both.returncode == 2 and "-y" in both.stderr


def test_tools_lists_only_what_call_accepts(env: dict[str, str], ws: Path) -> None:
    listed = json.loads(run(["tools", "--json"], env, ws).stdout)
    names = [row["name"] for row in listed]
    assert "enter_plan_mode" not in names
    table = run(["tools"], env, ws).stdout
    assert "enter_plan_mode" not in table
    for name in names:  # each listed name is one call finds (a wrong ARGS error, not "not found")
        done = run(["call", name, "[]"], env, ws)
        assert "not found in registry" not in done.stderr + done.stdout, name


def test_tools_table_shows_long_names_whole(env: dict[str, str], ws: Path) -> None:
    from qwen_tools.cli.tools_cmd import tool_rows  # the table's rows, narrow terminal

    long_name = "mcp__a_server_with_a_long_name__a_tool_with_an_even_longer_name_than_that"
    text = tool_rows([(long_name, "other", "does a thing " * 20)], width=60)
    assert long_name in text


@pytest.mark.parametrize("command", ["tools", "schema"])
def test_tools_and_schema_help_has_a_description(
    command: str, env: dict[str, str], ws: Path
) -> None:
    helped = run([command, "--help"], env, ws)
    assert helped.returncode == 0
    _usage, _, rest = helped.stdout.partition("\n\n")
    description = rest.split("\n\n")[0]
    assert not description.startswith("options:"), helped.stdout
    assert len(description.split()) >= 4


def test_mcp_add_names_the_missing_argument(env: dict[str, str], ws: Path) -> None:
    only_name = run(["mcp", "add", "srv"], env, ws)
    assert only_name.returncode == 2
    last = only_name.stderr.strip().splitlines()[-1]
    assert "commandOrUrl" in last and "args" not in last.split(":")[-1], last
    nothing = run(["mcp", "add"], env, ws)
    last = nothing.stderr.strip().splitlines()[-1]
    assert "name" in last and "commandOrUrl" in last and "args" not in last.split(":")[-1], last


def test_mcp_add_env_without_equals_is_an_error(env: dict[str, str], ws: Path) -> None:
    done = run(["mcp", "add", "srv", "-e", "NOEQUALS", "cmd"], env, ws)
    assert done.returncode == 2, done.stderr
    assert "NOEQUALS" in done.stderr and "KEY=VALUE" in done.stderr
    settings = Path(env["QWEN_HOME"]) / "settings.json"
    assert not settings.exists() or "srv" not in settings.read_text()
    after = run(["mcp", "add", "srv", "cmd", "-e", "NOEQUALS"], env, ws)  # options after, too
    assert after.returncode == 2, after.stderr
    good = run(["mcp", "add", "srv", "-e", "K=V", "cmd"], env, ws)
    assert good.returncode == 0, good.stderr
    assert json.loads(settings.read_text())["mcpServers"]["srv"]["env"] == {"K": "V"}


def test_shell_output_is_printed_once_without_a_terminal(env: dict[str, str], ws: Path) -> None:
    done = run(
        ["call", "-y", "run_shell_command", json.dumps({"command": "echo unique-marker"})],
        env,
        ws,
    )
    assert done.returncode == 0, done.stderr
    assert (done.stdout + done.stderr).count("unique-marker") == 2  # the command line, the output
    assert done.stdout.count("unique-marker") == 2
    assert "unique-marker" not in done.stderr


def test_batch_text_output_separates_calls(env: dict[str, str], ws: Path) -> None:
    batch = ws / "batch.jsonl"
    lines = [
        {"name": "read_file", "args": {"absolute_path": str(ws / "notes.txt")}},
        {"name": "read_file", "args": {"absolute_path": str(ws / "notes.txt")}},
    ]
    batch.write_text("".join(json.dumps(line) + "\n" for line in lines))
    done = run(["call", "--batch", str(batch)], env, ws)
    assert done.returncode == 0, done.stderr
    headers = [line for line in done.stdout.splitlines() if line.startswith("──")]
    assert len(headers) == 2, done.stdout
    assert "read_file" in headers[0] and "1" in headers[0]
    assert "2" in headers[1]
