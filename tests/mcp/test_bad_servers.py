"""A bad MCP server costs only itself, seen from the CLI: real servers that never answer.

* a server that never answers ``initialize`` (over stdio, or a TCP socket that accepts and stays
  silent) is configured with a discovery cap of 300 s and a call timeout of 600 s, so a built-in
  call (or a good server's) that completes at all can only have done so by not waiting for it;
* a call of a tool of a server that failed names the server and why;
* ``tools`` waits for discovery (each server's own cap) and shows each failure on one line;
* a server printing garbage on stdout costs one line on stderr, not tracebacks.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from support.cli_env import isolated_env
from support.processes import MARK_VAR, process_guard

EXE = Path(sys.executable).with_name("qwen-tools")
SERVERS = Path(__file__).parent / "servers"
SILENT = SERVERS / "silent_server.py"
DEMO = SERVERS / "demo_server.py"
NEVER = {"discoveryTimeoutMs": 300_000, "timeout": 600_000}
"""Limits no test run reaches: a call that completes did not wait for the server."""


@pytest.fixture(autouse=True)
def _no_leftovers(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    yield from process_guard(monkeypatch, timeout=10)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / ".qwen").mkdir(parents=True)
    (root / "notes.txt").write_text("hello from the workspace\n")
    return root


def run(
    ws: Path, servers: dict[str, Any], *args: str, stdin: str = "", **env: str
) -> subprocess.CompletedProcess[str]:
    (ws / ".qwen" / "settings.json").write_text(json.dumps({"mcpServers": servers}))
    environment = isolated_env(ws.parent, **{MARK_VAR: os.environ[MARK_VAR]}, **env)
    return subprocess.run(
        [str(EXE), *args],
        cwd=ws,
        env=environment,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def silent_stdio(log: Path, **fields: Any) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(SILENT), str(log)], **fields}


def demo(mode: str = "normal", **fields: Any) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(DEMO), "--mode", mode], **fields}


def sent_methods(log: Path) -> list[str]:
    """The JSON-RPC methods a silent stdio server received (none if it never started)."""
    if not log.exists():
        return []
    return [json.loads(line).get("method", "") for line in log.read_text().splitlines() if line]


@pytest.fixture
def silent_tcp(tmp_path: Path) -> Iterator[tuple[int, Path]]:
    """A TCP server on 127.0.0.1 that accepts connections and never answers: (port, log)."""
    log, port_file = tmp_path / "tcp.log", tmp_path / "tcp.port"
    process = subprocess.Popen(
        [sys.executable, str(SILENT), str(log), "--tcp", str(port_file)],
        env={**os.environ},
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 30
        while not (port_file.exists() and port_file.read_text()):
            assert process.poll() is None and time.monotonic() < deadline, "did not start"
            time.sleep(0.02)
        yield int(port_file.read_text()), log
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def read_notes(ws: Path) -> list[str]:
    return ["call", "read_file", json.dumps({"file_path": str(ws / "notes.txt")}), "--json"]


# -- built-ins never wait --------------------------------------------------------------------


def test_a_builtin_call_does_not_wait_for_a_silent_stdio_server(ws: Path, tmp_path: Path) -> None:
    log = tmp_path / "silent.log"
    done = run(ws, {"silent": silent_stdio(log, **NEVER)}, *read_notes(ws))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["responseText"] == "hello from the workspace\n"
    assert sent_methods(log) in ([], ["initialize"])
    assert done.stderr == ""


@pytest.mark.parametrize("kind", ["httpUrl", "url"])
def test_a_builtin_call_does_not_wait_for_a_silent_tcp_server(
    ws: Path, silent_tcp: tuple[int, Path], kind: str
) -> None:
    port, log = silent_tcp
    path = "mcp" if kind == "httpUrl" else "sse"
    servers = {"silent": {kind: f"http://127.0.0.1:{port}/{path}", **NEVER}}
    done = run(ws, servers, *read_notes(ws))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["responseText"] == "hello from the workspace\n"
    assert done.stderr == ""
    assert "tools/list" not in (log.read_text(errors="replace") if log.exists() else "")


def test_a_batch_runs_builtins_and_a_good_server_without_waiting_for_a_silent_one(
    ws: Path, tmp_path: Path
) -> None:
    log = tmp_path / "silent.log"
    servers = {"silent": silent_stdio(log, **NEVER), "good": demo(trust=True)}
    lines = [
        {"name": "read_file", "args": {"file_path": str(ws / "notes.txt")}},
        {"name": "good__echo", "args": {"text": "hi"}},
        {"name": "list_directory", "args": {"path": str(ws)}},
    ]
    stdin = "".join(json.dumps(line) + "\n" for line in lines)
    done = run(ws, servers, "call", "--batch", "-", "--json", stdin=stdin)
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a["error"] for a in answers] == [None, None, None]
    assert answers[1]["responseText"] == "Echo: hi"
    assert sent_methods(log) in ([], ["initialize"])


# -- a failed server is named, with its reason -------------------------------------------------


def _not_found(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 1, done.stderr
    answer = json.loads(done.stdout)
    assert answer["error"]["type"] == "tool_not_registered"
    message: str = answer["responseText"]
    assert message.startswith('Tool "')
    return message


def test_a_call_to_a_silent_server_names_it_and_its_timeout(ws: Path, tmp_path: Path) -> None:
    servers = {
        "slow": silent_stdio(tmp_path / "silent.log", discoveryTimeoutMs=300),
        "good": demo(trust=True),
    }
    message = _not_found(run(ws, servers, "call", "slow__echo", "{}", "--json"))
    assert "MCP server 'slow'" in message
    assert "timed out after 300ms" in message
    assert "MCP server 'slow': MCP server" not in message


def test_a_call_to_a_silent_tcp_server_names_it_and_its_timeout(
    ws: Path, silent_tcp: tuple[int, Path]
) -> None:
    port, _log = silent_tcp
    servers = {"remote": {"httpUrl": f"http://127.0.0.1:{port}/mcp", "discoveryTimeoutMs": 300}}
    message = _not_found(run(ws, servers, "call", "remote__fetch", "{}", "--json"))
    assert "MCP server 'remote'" in message and "timed out after 300ms" in message


def test_a_call_to_a_crashed_server_names_it_and_why(ws: Path) -> None:
    message = _not_found(run(ws, {"crashy": demo("crash")}, "call", "crashy__echo", "{}", "--json"))
    assert "MCP server 'crashy'" in message
    assert "Connection closed" in message
    assert "the test server crashed on purpose" in message


def test_a_call_to_a_misconfigured_server_names_it_and_why(ws: Path) -> None:
    servers = {"nothing": {"description": "no command, no url"}}
    message = _not_found(run(ws, servers, "call", "nothing__echo", "{}", "--json"))
    assert "MCP server 'nothing'" in message
    assert "missing httpUrl" in message


def test_an_old_style_name_of_a_failed_server_is_explained_too(ws: Path) -> None:
    message = _not_found(
        run(ws, {"crashy": demo("crash")}, "call", "mcp__crashy__echo", "{}", "--json")
    )
    assert "MCP server 'crashy'" in message and "Connection closed" in message


# -- listing waits for discovery, and says what failed ------------------------------------------


def test_tools_lists_what_connected_and_shows_each_failure_on_one_line(
    ws: Path, tmp_path: Path
) -> None:
    servers = {
        "slow": silent_stdio(tmp_path / "silent.log", discoveryTimeoutMs=300),
        "crashy": demo("crash"),
        "good": demo(),
    }
    done = run(ws, servers, "tools", "--json")
    assert done.returncode == 0, done.stderr
    names = {row["name"] for row in json.loads(done.stdout)}
    assert {"read_file", "good__echo"} <= names
    assert not any(n.startswith(("slow__", "crashy__")) for n in names)
    lines = done.stderr.splitlines()
    assert [line for line in lines if "'slow'" in line] == [
        "MCP server 'slow' discovery timed out after 300ms"
    ]
    assert len([line for line in lines if "'crashy'" in line]) == 1
    assert "Traceback" not in done.stderr


# -- garbage on stdout ------------------------------------------------------------------------


def test_garbage_on_stdout_costs_one_line_not_tracebacks(ws: Path) -> None:
    servers = {"noisy": demo("garbage")}
    done = run(ws, servers, "tools", "--json")
    assert done.returncode == 0, done.stderr
    assert "noisy__echo" in {row["name"] for row in json.loads(done.stdout)}
    assert "Traceback" not in done.stderr
    noisy = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(noisy) == 1, done.stderr
    assert noisy[0].startswith("MCP server 'noisy': invalid JSON-RPC message on stdout (")


def test_garbage_tracebacks_are_kept_for_debugging(ws: Path) -> None:
    done = run(ws, {"noisy": demo("garbage")}, "tools", "--json", QWEN_TOOLS_DEBUG="1")
    assert done.returncode == 0, done.stderr
    assert "Traceback" in done.stderr
    assert "Failed to parse JSONRPC message from server" in done.stderr
