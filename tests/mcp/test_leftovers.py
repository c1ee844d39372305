"""The test suite leaves no server behind: not when a test fails, not when pytest is interrupted.

A nested pytest runs ``victim_leftovers.py``, whose test starts ``demo_server.py --transport
sse`` through the ``servers`` fixture, then fails or waits; the nested pytest is failed,
interrupted (``SIGINT``), terminated (``SIGTERM``, ``SIGHUP``: the root conftest turns them into
an interruption) or killed (``SIGKILL``: the server dies with its parent). Afterwards the server
must not run.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
VICTIM = Path(__file__).with_name("victim_leftovers.py")


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
    except OSError:
        return False
    return state != b"Z"


@pytest.mark.parametrize("ending", ["fail", "SIGINT", "SIGTERM", "SIGHUP", "SIGKILL"])
def test_no_server_outlives_the_test_run(tmp_path: Path, ending: str) -> None:
    pid_file = tmp_path / "server.pid"
    env = {
        **os.environ,
        "VICTIM_PID_FILE": str(pid_file),
        "VICTIM_MODE": "fail" if ending == "fail" else "hang",
    }
    nested = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(VICTIM)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        for _ in range(6000):  # bounded: fails only if the server never starts
            if (pid_file.exists() and pid_file.read_text()) or nested.poll() is not None:
                break
            time.sleep(0.01)
        assert pid_file.exists(), nested.communicate()[0]
        server = int(pid_file.read_text())
        if ending != "fail":
            nested.send_signal(getattr(signal, ending))
        output, _ = nested.communicate(timeout=120)
        for _ in range(1000):  # a killed parent's child gets its signal asynchronously
            if not alive(server):
                break
            time.sleep(0.01)
        assert not alive(server), output
    finally:
        if nested.poll() is None:
            os.killpg(nested.pid, signal.SIGKILL)
            nested.wait()
