"""The ``qwen-tools`` command, run as a real subprocess against a temp workspace and home."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from support.cli_env import isolated_env

EXE = Path(sys.executable).with_name("qwen-tools")


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return isolated_env(tmp_path)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "notes.txt").write_text("line 1\nline 2\nline 3\n")
    (root / "src" / "app.py").write_text("print('hi')\n")
    return root


def run(
    args: list[str], env: dict[str, str], cwd: Path, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(EXE), *args],
        env=env,
        cwd=cwd,
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        timeout=60,
    )


def call_json(
    args: list[str], env: dict[str, str], cwd: Path, stdin: str | None = None
) -> tuple[int, dict[str, Any]]:
    done = run(["call", *args, "--json"], env, cwd, stdin)
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1, done.stdout + done.stderr
    return done.returncode, json.loads(lines[0])


def test_version_and_help(env: dict[str, str], ws: Path) -> None:
    version = run(["--version"], env, ws)
    assert version.returncode == 0 and version.stdout.strip() == "qwen-tools 0.1.0"
    helped = run(["--help"], env, ws)
    assert helped.returncode == 0
    for word in ("tools", "schema", "call", "exit codes"):
        assert word in helped.stdout
    assert run([], env, ws).returncode == 2


def test_help_imports_nothing_heavy() -> None:
    probe = (
        "import sys, qwen_tools.cli.main as m; m.build_parser().format_help(); "
        "heavy={'rich','pydantic','jsonschema','anyio','httpx','mcp','pathspec','asyncio'}; "
        "print(sorted({k.split('.')[0] for k in sys.modules} & heavy))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_tools_json_lists_builtins(env: dict[str, str], ws: Path) -> None:
    done = run(["tools", "--json"], env, ws)
    assert done.returncode == 0, done.stderr
    tools = {t["name"]: t for t in json.loads(done.stdout)}
    assert {"read_file", "glob", "list_directory"} <= set(tools)
    assert tools["read_file"]["kind"] == "read"
    assert tools["glob"]["kind"] == "search"
    assert all(t["description"] for t in tools.values())
    table = run(["tools"], env, ws)
    assert table.returncode == 0 and "read_file" in table.stdout


@pytest.mark.parametrize("fmt", ["openai", "openai-strict", "anthropic", "gemini", "mcp"])
def test_schema_formats(env: dict[str, str], ws: Path, fmt: str) -> None:
    done = run(["schema", "--format", fmt], env, ws)
    assert done.returncode == 0, done.stderr
    exported = json.loads(done.stdout)
    assert exported
    text = json.dumps(exported)
    assert "read_file" in text


def test_call_read_file(env: dict[str, str], ws: Path) -> None:
    code, obj = call_json(["read_file", json.dumps({"file_path": str(ws / "notes.txt")})], env, ws)
    assert code == 0
    assert set(obj) == {"tool", "llmContent", "returnDisplay", "error", "responseText"}
    assert obj["tool"] == "read_file"
    assert obj["responseText"] == "line 1\nline 2\nline 3\n"
    assert obj["error"] is None


def test_call_args_from_stdin_and_human_output(env: dict[str, str], ws: Path) -> None:
    done = run(["call", "glob", "-"], env, ws, stdin='{"pattern": "**/*.py"}')
    assert done.returncode == 0, done.stderr
    assert str(ws / "src" / "app.py") in done.stdout


def test_call_errors_and_exit_codes(env: dict[str, str], ws: Path) -> None:
    code, obj = call_json(["read_file", "{}"], env, ws)
    assert code == 1
    assert obj["error"] == {
        "message": "params must have required property 'file_path'",
        "type": "invalid_tool_params",
    }
    assert obj["responseText"] == "params must have required property 'file_path'"
    code, obj = call_json(["read_fil", "{}"], env, ws)
    assert code == 1 and obj["error"]["type"] == "tool_not_registered"
    assert 'Did you mean one of: "read_file"' in obj["responseText"]
    code, obj = call_json(
        ["read_file", json.dumps({"file_path": str(ws / "missing.txt")})], env, ws
    )
    assert code == 1 and obj["responseText"] == f"File not found: {ws / 'missing.txt'}"
    bad_json = run(["call", "read_file", "{not json"], env, ws)
    assert bad_json.returncode == 2 and "not valid JSON" in bad_json.stderr
    usage = run(["call"], env, ws)
    assert usage.returncode == 2


def test_outside_workspace_is_refused(env: dict[str, str], ws: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("s3cret")
    code, obj = call_json(["read_file", json.dumps({"file_path": str(secret)})], env, ws)
    assert code == 1
    assert obj["responseText"] == f"File path must be within one of the workspace directories: {ws}"
    widened = run(
        [
            "call",
            "read_file",
            json.dumps({"file_path": str(secret)}),
            "--json",
            "--include-directories",
            str(tmp_path),
        ],
        env,
        ws,
    )
    assert widened.returncode == 0 and json.loads(widened.stdout)["responseText"] == "s3cret"


def test_batch_keeps_going_after_bad_lines(env: dict[str, str], ws: Path) -> None:
    lines = "\n".join(
        [
            json.dumps(
                {
                    "name": "read_file",
                    "args": {"file_path": str(ws / "notes.txt"), "offset": 1, "limit": 1},
                }
            ),
            "{broken",
            json.dumps(["not", "an", "object"]),
            json.dumps({"name": "glob", "args": {"pattern": "*.txt"}}),
        ]
    )
    done = run(["call", "--batch", "-", "--json"], env, ws, stdin=lines)
    objs = [json.loads(line) for line in done.stdout.strip().splitlines()]
    assert len(objs) == 4
    assert objs[0]["responseText"] == "Showing lines 2-2 of 4 total lines.\n\n---\n\nline 2"
    assert objs[1]["error"]["message"].startswith("Line 2: invalid JSON")
    assert objs[2]["error"]["message"].startswith("Line 3: expected an object")
    assert objs[3]["responseText"].startswith('Found 1 file(s) matching "*.txt"')
    assert done.returncode == 1


def test_batch_from_file(env: dict[str, str], ws: Path, tmp_path: Path) -> None:
    batch = tmp_path / "calls.jsonl"
    batch.write_text(json.dumps({"name": "list_directory", "args": {"path": str(ws)}}) + "\n")
    done = run(["call", "--batch", str(batch), "--json"], env, ws)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["responseText"].startswith(f"Listed 2 item(s) in {ws}:")
    missing = run(["call", "--batch", str(tmp_path / "nope.jsonl")], env, ws)
    assert missing.returncode == 2


def test_bad_settings_name_file_and_key(env: dict[str, str], ws: Path) -> None:
    settings = ws / ".qwen" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"tools": {"truncateToolOutputThreshold": "lots"}}')
    done = run(["tools"], env, ws)
    assert done.returncode == 3
    assert "tools.truncateToolOutputThreshold" in done.stderr and str(settings) in done.stderr
    assert "Traceback" not in done.stderr
    settings.write_text("{ broken")
    broken = run(["call", "glob", '{"pattern": "*"}'], env, ws)
    assert (
        broken.returncode == 3
        and str(settings) in broken.stderr
        and "Traceback" not in broken.stderr
    )


def test_settings_exclude_and_unknown_keys(env: dict[str, str], ws: Path) -> None:
    settings = ws / ".qwen" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(
        '{"tools": {"exclude": ["glob"]}, "ui": {"theme": "Dracula"}, "someFutureKey": 1}'
    )
    done = run(["tools", "--json"], env, ws)
    assert done.returncode == 0, done.stderr
    names = {t["name"] for t in json.loads(done.stdout)}
    assert "glob" not in names and "read_file" in names
