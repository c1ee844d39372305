"""The suite's guarantees hold when it runs on parallel workers (``pytest -n N``, pytest-xdist).

A nested pytest runs ``victim_parallel.py`` on two workers; each of its tests leaves an orphaned
``sleep``. Each worker is its own subreaper and, at its end, kills what still runs below it
(only its own: other workers are not below it); the controller lists what the workers killed,
as a single run would.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]
VICTIM = Path(__file__).with_name("victim_parallel.py")


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie is dead: nothing reaped it yet)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
    except OSError:
        return False
    return state != b"Z"


def test_parallel_workers_kill_and_report_their_leftovers(tmp_path: Path) -> None:
    nested = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2", str(VICTIM)],
        cwd=ROOT,
        env={**os.environ, "VICTIM_DIR": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert nested.returncode == 0, nested.stdout + nested.stderr
    pids = [int(path.read_text()) for path in sorted(tmp_path.glob("*.pid"))]
    assert len(pids) == 4
    assert not [pid for pid in pids if alive(pid)], nested.stdout
    assert "processes left running by the tests (killed)" in nested.stdout
    for pid in pids:
        assert f"{pid} sleep 3600" in nested.stdout, nested.stdout
