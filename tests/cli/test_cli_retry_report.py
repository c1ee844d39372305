"""A wrong model endpoint: ``run`` says on stderr what it retries and why, and Ctrl-C stops it.

A fake server answering 500, and a closed port (connection refused): the first retry is
reported (the status or the connection error, attempt n of m, the wait), then ``SIGINT`` sent
during the wait ends the run with 130 (bounded waits only fail when it never happens).
"""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from support.cli_env import isolated_env
from support.fake_openai import FakeOpenAI, Reply

EXE = Path(sys.executable).with_name("qwen-tools")


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _run_until_retry(base_url: str, tmp_path: Path) -> tuple[str, int, str]:
    """Start ``run``, wait for its first retry line, send SIGINT: (that line, code, stderr)."""
    ws = tmp_path / "ws"
    ws.mkdir()
    env = isolated_env(
        tmp_path,
        OPENAI_API_KEY="sk-test",
        OPENAI_BASE_URL=base_url,
        OPENAI_MODEL="fake-model",
        NO_PROXY="127.0.0.1",
    )
    process = subprocess.Popen(
        [str(EXE), "run", "hello"],
        env=env,
        cwd=ws,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    lines: list[str] = []
    first = threading.Event()

    def read() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            lines.append(line)
            if "etrying" in line:
                first.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        seen = first.wait(timeout=60)
        assert seen, "".join(lines)
        retry_line = next(line for line in lines if "etrying" in line)
        process.send_signal(signal.SIGINT)
        code = process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    reader.join(timeout=10)
    return retry_line, code, "".join(lines)


def test_http_500_retries_are_reported_and_ctrl_c_stops_them(tmp_path: Path) -> None:
    with FakeOpenAI(lambda body: Reply(status=500, error={"message": "boom"})) as model:
        line, code, err = _run_until_retry(model.url, tmp_path)
    assert "500" in line, err
    assert "attempt 1 of" in line and "waiting" in line, line
    assert code == 130, err
    assert "Traceback" not in err


@pytest.mark.parametrize("scheme", ["http"])
def test_connection_errors_are_reported_and_ctrl_c_stops_them(tmp_path: Path, scheme: str) -> None:
    line, code, err = _run_until_retry(f"{scheme}://127.0.0.1:{_closed_port()}/v1", tmp_path)
    assert "onnect" in line, line  # "Connection error" / "connect"
    assert "attempt 1 of" in line and "waiting" in line, line
    assert code == 130, err
    assert "Traceback" not in err
