"""The guardian's ledger without Ray: a worker killed together with its guardian (the attack
on the guardian itself) leaves its commands running, and the next worker's sweep ends them,
a daemonised one included, and nothing else."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from qwen_tools.pool.guardian import sweep

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux /proc")

_WORKER = """
import asyncio, os, sys
from pathlib import Path
from qwen_tools.pool.guardian import Ledger, marks_of_this_process
from qwen_tools.shell.execution import spawn_process, watch_spawns

ledger = Ledger(Path(sys.argv[1]), marks_of_this_process())
watch_spawns(ledger.note)

async def main():
    command = "(setsid sh -c 'echo $$ > daemon.pid; exec sleep 301' &); echo $$ > plain.pid; exec sleep 300"
    await spawn_process(["bash", "-c", command], cwd=os.getcwd(), env=dict(os.environ),
                        on_data=lambda data, stream: None)
    await asyncio.sleep(3600)

asyncio.run(main())
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _wait(predicate: Callable[[], bool], timeout: float = 30) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return False


@pytest.mark.parametrize("tracking", ["proc", "cgroup"])
def test_the_next_worker_reaps_what_a_dead_worker_and_guardian_left(
    tmp_path: Path, tracking: str
) -> None:
    ledger = tmp_path / "qwen-pool-test-0.1.ledger"
    env = {**os.environ, "QWEN_TOOLS_PROCESS_TRACKING": tracking}
    worker = subprocess.Popen([sys.executable, "-c", _WORKER, str(ledger)], cwd=tmp_path, env=env)
    bystander = subprocess.Popen(["sleep", "300"], start_new_session=True)
    try:
        files = [tmp_path / "plain.pid", tmp_path / "daemon.pid"]
        assert _wait(lambda: all(f.exists() and f.read_text().strip() for f in files))
        pids = [int(f.read_text()) for f in files]
        sweep(tmp_path)  # the worker lives: its ledger is left alone
        assert all(_alive(pid) for pid in pids) and ledger.exists()
        worker.kill()
        worker.wait()
        assert all(_alive(pid) for pid in pids)  # no guardian: they outlive the worker
        sweep(tmp_path)
        assert _wait(lambda: not any(_alive(pid) for pid in pids))
        assert _alive(bystander.pid) and not ledger.exists()
    finally:
        for process in (worker, bystander):
            process.kill()
            process.wait()
        for name in ("plain.pid", "daemon.pid"):
            with contextlib.suppress(FileNotFoundError, ValueError, ProcessLookupError):
                os.kill(int((tmp_path / name).read_text()), signal.SIGKILL)
