"""Signals to ``qwen-tools`` end the running command's whole tree, and nothing outlives the CLI.

Real ``qwen-tools`` processes, real signals. Each command starts two long sleeps in ways meant to
escape (job control, ``setsid``, double fork, ``env -i``), writes a ``ready`` file, and waits; the
test then signals the CLI and checks, as soon as the CLI has exited, that neither sleep runs.
Every test runs with the default tracking (a cgroup per command here) and with the /proc fallback
(``QWEN_TOOLS_PROCESS_TRACKING=proc``).
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from support.cli_env import isolated_env
from support.fake_openai import FakeOpenAI, Reply, call
from support.processes import arg_pids, kill_args, unique_sleep

EXE = Path(sys.executable).with_name("qwen-tools")
EXIT = {signal.SIGINT: 130, signal.SIGTERM: 143, signal.SIGHUP: 129}
ALREADY_COMPLETED = "The tool had already completed"


@pytest.fixture(params=["auto", "proc"])
def env(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, str]:
    return isolated_env(tmp_path, QWEN_TOOLS_PROCESS_TRACKING=str(request.param))


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.fixture
def sleeps() -> Iterator[tuple[str, str]]:
    a, b = unique_sleep(), unique_sleep()
    yield a, b
    kill_args(a, b)


def escaping(a: str, b: str, ready: Path) -> str:
    """Job control, a setsid'd double fork and env -i; ``ready`` is written once all started."""
    return (
        f"set -m; sleep {a} & (setsid env -i sh -c 'sleep {b} & echo x > {ready}.b' &); "
        f"while [ ! -e {ready}.b ]; do sleep 0.01; done; echo started; touch {ready}; wait"
    )


def start(args: list[str], env: dict[str, str], ws: Path, **kwargs: Any) -> subprocess.Popen[str]:
    kwargs.setdefault("stdin", subprocess.DEVNULL)
    return subprocess.Popen(
        [str(EXE), *args],
        env=env,
        cwd=ws,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        **kwargs,
    )


def wait_for(path: Path, process: subprocess.Popen[str]) -> None:
    """Until ``path`` exists (fails only if it never does, or the process died first)."""
    for _ in range(3000):
        if path.exists():
            return
        if process.poll() is not None:
            pytest.fail(f"exited first ({process.returncode}): {process.communicate()}")
        time.sleep(0.01)
    pytest.fail(f"{path.name} never appeared")


def finish(process: subprocess.Popen[str]) -> tuple[int, str, str]:
    try:
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return process.returncode, out, err


def shell_call(command: str) -> str:
    return json.dumps({"command": command})


# -- call -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("signum", list(EXIT))
def test_call_signal_ends_the_tree(
    env: dict[str, str], ws: Path, sleeps: tuple[str, str], signum: signal.Signals
) -> None:
    a, b = sleeps
    ready = ws / "ready"
    args = ["call", "run_shell_command", shell_call(escaping(a, b, ready))]
    process = start([*args, "--approval-mode", "yolo", "--json"], env, ws)
    wait_for(ready, process)
    process.send_signal(signum)
    code, out, err = finish(process)
    assert arg_pids(a) + arg_pids(b) == []
    assert code == EXIT[signum], err
    result = json.loads(out)
    assert result["error"]["type"] == "execution_cancelled"
    assert ALREADY_COMPLETED not in result["responseText"]
    assert "Traceback" not in err


def test_second_signal_ends_at_once(env: dict[str, str], ws: Path, sleeps: tuple[str, str]) -> None:
    a, b = sleeps
    ready = ws / "ready"
    command = f"trap '' TERM INT HUP; {escaping(a, b, ready)}"
    process = start(
        ["call", "run_shell_command", shell_call(command), "--approval-mode", "yolo"], env, ws
    )
    wait_for(ready, process)
    process.send_signal(signal.SIGTERM)
    process.send_signal(signal.SIGTERM)
    code, _, err = finish(process)
    assert arg_pids(a) + arg_pids(b) == []
    assert code == 143, err


def test_signal_while_reading_arguments(env: dict[str, str], ws: Path) -> None:
    process = start(["call", "read_file", "-"], env, ws, stdin=subprocess.PIPE)
    for _ in range(3000):  # until it blocks reading stdin (its handlers are installed by then)
        if "pipe" in Path(f"/proc/{process.pid}/wchan").read_text():
            break
        time.sleep(0.01)
    process.send_signal(signal.SIGTERM)
    code, _, err = finish(process)
    assert code == 143, err
    assert "Traceback" not in err


def test_batch_signal_stops_the_batch(
    env: dict[str, str], ws: Path, sleeps: tuple[str, str]
) -> None:
    a, b = sleeps
    ready, second = ws / "ready", ws / "second"
    lines = [
        {"name": "run_shell_command", "args": {"command": escaping(a, b, ready)}},
        {"name": "run_shell_command", "args": {"command": f"touch {second}"}},
    ]
    batch = ws / "batch.jsonl"
    batch.write_text("".join(json.dumps(line) + "\n" for line in lines))
    process = start(["call", "--batch", str(batch), "--json", "--approval-mode", "yolo"], env, ws)
    wait_for(ready, process)
    process.send_signal(signal.SIGTERM)
    code, out, err = finish(process)
    assert arg_pids(a) + arg_pids(b) == []
    assert code == 143, err
    assert not second.exists()
    (first,) = [json.loads(line) for line in out.splitlines()]
    assert first["error"]["type"] == "execution_cancelled"


def test_leftovers_end_when_call_exits(
    env: dict[str, str], ws: Path, sleeps: tuple[str, str]
) -> None:
    """``sleep N &`` outlives its command (as in Qwen Code) but never the ``call``."""
    a, b = sleeps
    ready = ws / "ready"
    command = escaping(a, b, ready).replace("; wait", "")
    done = subprocess.run(
        [
            str(EXE),
            "call",
            "run_shell_command",
            shell_call(command),
            "--approval-mode",
            "yolo",
            "--json",
        ],
        env=env,
        cwd=ws,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert arg_pids(a) + arg_pids(b) == []
    assert done.returncode == 0, done.stderr
    assert "started" in json.loads(done.stdout)["llmContent"]


def test_background_shell_is_stopped_and_said_so(
    env: dict[str, str], ws: Path, sleeps: tuple[str, str]
) -> None:
    a, _ = sleeps
    params = json.dumps({"command": f"sleep {a}", "is_background": True})
    done = subprocess.run(
        [str(EXE), "call", "run_shell_command", params, "--approval-mode", "yolo", "--json"],
        env=env,
        cwd=ws,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert arg_pids(a) == []
    assert done.returncode == 0, done.stderr
    text = json.loads(done.stdout)["llmContent"]
    assert text.startswith("Background shell started.")
    status_file = text.split("status file: ", 1)[1].split("\n", 1)[0]
    status = json.loads(Path(status_file).read_text())
    assert status["status"] == "cancelled"
    assert f"stopped background shell {status['id']}" in done.stderr


# -- serve and run --------------------------------------------------------------------------------


def rpc(*messages: dict[str, Any]) -> str:
    return "".join(json.dumps(m) + "\n" for m in messages)


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_serve_signal_ends_the_tree(
    env: dict[str, str], ws: Path, sleeps: tuple[str, str], signum: signal.Signals
) -> None:
    a, b = sleeps
    ready = ws / "ready"
    tool_call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "run_shell_command", "arguments": {"command": escaping(a, b, ready)}},
    }
    process = start(
        ["serve", "--approval-mode", "yolo", "--cwd", str(ws)], env, ws, stdin=subprocess.PIPE
    )
    assert process.stdin is not None
    process.stdin.write(rpc(INITIALIZE, INITIALIZED, tool_call))
    process.stdin.flush()
    wait_for(ready, process)
    process.send_signal(signum)
    code, _, err = finish(process)
    assert arg_pids(a) + arg_pids(b) == []
    assert code == 0, err


@pytest.fixture
def model(tmp_path: Path) -> Iterator[FakeOpenAI]:
    server = FakeOpenAI()
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_run_signal_ends_the_tree(
    env: dict[str, str],
    ws: Path,
    sleeps: tuple[str, str],
    model: FakeOpenAI,
    signum: signal.Signals,
) -> None:
    a, b = sleeps
    ready = ws / "ready"
    release = threading.Event()
    model.script = [
        Reply(tool_calls=[call("run_shell_command", {"command": escaping(a, b, ready)}, "c1")]),
        Reply(content="done", hold=release),
    ]
    env = {
        **env,
        "OPENAI_API_KEY": "sk-test",
        "OPENAI_BASE_URL": model.url,
        "OPENAI_MODEL": "fake-model",
        "NO_PROXY": "127.0.0.1",
    }
    process = start(["run", "--approval-mode", "yolo", "go"], env, ws)
    try:
        wait_for(ready, process)
        process.send_signal(signum)
        code, _, err = finish(process)
    finally:
        release.set()
    assert arg_pids(a) + arg_pids(b) == []
    assert code == EXIT[signum], err
