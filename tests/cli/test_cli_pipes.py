"""Every command piped into ``head``: no ``BrokenPipeError`` traceback, a quiet exit (issue 15).

The reader closes the pipe after the first line, as ``head -1`` does; the command then writes
more and must end as a well-behaved Unix tool does (no traceback, no "Exception ignored").
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from support.cli_env import isolated_env
from support.fake_openai import FakeOpenAI, Reply

EXE = Path(sys.executable).with_name("qwen-tools")
DEMO = Path(__file__).resolve().parents[1] / "mcp" / "servers" / "demo_server.py"
SIGPIPE_EXIT = 141


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return isolated_env(tmp_path)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "mid.txt").write_text("".join(f"{n}\n" for n in range(3000)))
    batch = "".join(
        json.dumps({"name": "read_file", "args": {"absolute_path": str(root / "mid.txt")}}) + "\n"
        for _ in range(40)
    )
    (root / "batch.jsonl").write_text(batch)
    return root


def head_one(args: list[str], env: dict[str, str], cwd: Path) -> tuple[int, str]:
    """Run the command with stdout read by a reader that stops after one line."""
    process = subprocess.Popen(
        [str(EXE), *args],
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    errors: list[bytes] = []
    reader = threading.Thread(target=lambda: errors.append(process.stderr.read()))  # type: ignore[union-attr]
    reader.start()
    process.stdout.readline()
    process.stdout.close()  # what head does after its line
    code = process.wait(timeout=60)
    reader.join(timeout=60)
    return code, b"".join(errors).decode()


def _clean(code: int, err: str) -> None:
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
    assert "Exception ignored" not in err, err
    assert code in (0, SIGPIPE_EXIT), (code, err)


@pytest.mark.parametrize(
    "args",
    [
        ["call", "--batch", "batch.jsonl"],
        ["call", "--batch", "batch.jsonl", "--json"],
        ["call", "run_shell_command", '{"command": "seq 1 200000"}', "-y"],
        ["tools", "--json"],
        ["schema", "--format", "gemini"],
    ],
)
def test_piping_into_head_is_quiet(args: list[str], env: dict[str, str], ws: Path) -> None:
    if args[0] in ("tools", "schema"):  # many MCP tools make these outputs big
        servers = {f"demo{n}": {"command": sys.executable, "args": [str(DEMO)]} for n in range(12)}
        (ws / ".qwen").mkdir()
        (ws / ".qwen" / "settings.json").write_text(json.dumps({"mcpServers": servers}))
        (Path(env["HOME"]) / ".qwen" / "trustedFolders.json").write_text(
            json.dumps({str(ws): "TRUST_FOLDER"})
        )
    _clean(*head_one(args, env, ws))


def test_mcp_list_into_head_is_quiet(env: dict[str, str], ws: Path) -> None:
    servers = {f"s{n}": {"httpUrl": "http://127.0.0.1:9/mcp"} for n in range(400)}
    settings = Path(env["QWEN_HOME"]) / "settings.json"
    settings.write_text(json.dumps({"mcpServers": servers}))
    _clean(*head_one(["mcp", "list"], env, ws))


def test_run_into_head_is_quiet(env: dict[str, str], ws: Path) -> None:
    text = "".join(f"line {n} of a long answer\n" for n in range(20000))
    with FakeOpenAI([Reply(content=text)]) as model:
        run_env = {
            **env,
            "OPENAI_API_KEY": "sk-test",
            "OPENAI_BASE_URL": model.url,
            "OPENAI_MODEL": "fake-model",
            "NO_PROXY": "127.0.0.1",
        }
        _clean(*head_one(["run", "say a lot"], run_env, ws))
