"""Long operations show progress on a terminal only (issue 15): a spinner line on stderr while
``call`` runs a tool (a big ``read_many_files``) and while ``mcp list`` connects its servers;
nothing extra when stderr is not a terminal. The terminal is a real pty."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from support.cli_env import isolated_env
from support.pty_terminal import PtyTerminal

EXE = Path(sys.executable).with_name("qwen-tools")


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return isolated_env(tmp_path, TERM="xterm-256color")


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "docs").mkdir(parents=True)
    for n in range(200):
        (root / "docs" / f"f{n}.txt").write_text(f"file {n}\n" * 50)
    return root


def _on_terminal(args: list[str], env: dict[str, str], ws: Path) -> tuple[int, str]:
    terminal = PtyTerminal([str(EXE), *args], env, ws)
    try:
        code = terminal.finish()
        return code, terminal.text
    finally:
        terminal.close()


def _piped(args: list[str], env: dict[str, str], ws: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(EXE), *args], env=env, cwd=ws, input="", capture_output=True, text=True, timeout=60
    )


READ_MANY = ["call", "read_many_files", json.dumps({"paths": ["docs/**/*.txt"]})]


def test_call_shows_a_spinner_on_a_terminal(env: dict[str, str], ws: Path) -> None:
    code, screen = _on_terminal(READ_MANY, env, ws)
    assert code == 0, screen
    assert "Running read_many_files" in screen, screen


def test_call_shows_nothing_extra_without_a_terminal(env: dict[str, str], ws: Path) -> None:
    done = _piped(READ_MANY, env, ws)
    assert done.returncode == 0, done.stderr
    assert "Running" not in done.stderr and "\x1b" not in done.stderr


def _servers(env: dict[str, str], count: int) -> None:
    servers = {f"s{n}": {"httpUrl": "http://127.0.0.1:9/mcp"} for n in range(count)}
    (Path(env["QWEN_HOME"]) / "settings.json").write_text(json.dumps({"mcpServers": servers}))


def test_mcp_list_shows_progress_on_a_terminal(env: dict[str, str], ws: Path) -> None:
    _servers(env, 5)
    code, screen = _on_terminal(["mcp", "list"], env, ws)
    assert code == 0, screen
    assert "Connecting to 5 MCP servers" in screen, screen
    assert screen.count("Disconnected") == 5


def test_mcp_list_shows_nothing_extra_without_a_terminal(env: dict[str, str], ws: Path) -> None:
    _servers(env, 5)
    done = _piped(["mcp", "list"], env, ws)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""


def test_shell_output_on_a_terminal_is_shown_as_it_comes_once(
    env: dict[str, str], ws: Path
) -> None:
    script = "for n in 1 2 3; do printf 'mark%s\\n' X$n; sleep 0.2; done"
    args = ["call", "-y", "run_shell_command", json.dumps({"command": script})]
    code, screen = _on_terminal(args, env, ws)
    assert code == 0, screen
    for n in (1, 2, 3):  # live on stderr once, and once in the result on stdout
        assert screen.count(f"markX{n}") == 2, screen


def test_tools_on_a_terminal_shows_long_mcp_names_whole(env: dict[str, str], ws: Path) -> None:
    demo = Path(__file__).resolve().parents[1] / "mcp" / "servers" / "demo_server.py"
    server = "a_server_with_a_rather_long_name_to_test_the_tools_table_width"
    (ws / ".qwen").mkdir()
    (ws / ".qwen" / "settings.json").write_text(
        json.dumps({"mcpServers": {server: {"command": sys.executable, "args": [str(demo)]}}})
    )
    (Path(env["HOME"]) / ".qwen" / "trustedFolders.json").write_text(
        json.dumps({str(ws): "TRUST_FOLDER"})
    )
    listed = json.loads(_piped(["tools", "--json"], env, ws).stdout)
    names = [row["name"] for row in listed if row["server"] == server]
    assert names and all(len(name) > 60 for name in names), names
    code, screen = _on_terminal(["tools"], env, ws)
    assert code == 0, screen
    for name in names:
        assert name in screen, screen
