"""Not collected by default: tests that leave a process behind, run by ``test_parallel_run.py``.

Each test starts ``sleep`` in the background of a shell that exits at once, so the ``sleep`` is
an orphan (reparented to the nearest subreaper: the pytest process, or the xdist worker, that
runs the test) and writes its pid to ``$VICTIM_DIR/<test>.pid``.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest


@pytest.mark.parametrize("name", ["one", "two", "three", "four"])
def test_leave_a_process(name: str) -> None:
    pid_file = Path(os.environ["VICTIM_DIR"]) / f"{name}.pid"
    subprocess.run(["sh", "-c", f"sleep 3600 & echo $! > {pid_file}"], check=True)
    assert pid_file.read_text().strip()
