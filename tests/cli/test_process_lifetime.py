"""The CLI's lifetime ends every process below it, whatever started it, and costs nothing extra
when nothing was started.

Each test runs :func:`~qwen_tools.cli.interrupts.process_lifetime` in a fresh interpreter (real
processes, read back through ``/proc`` and ``sys.modules``; no timing).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator

import pytest

from support.processes import arg_pids, kill_args, unique_sleep

_SCRIPT = """
import json, subprocess, sys
from qwen_tools.cli.interrupts import process_lifetime
escape = sys.argv[1]
with process_lifetime():
    if escape:
        # not through the supervisor: a setsid'd double fork, its parent gone before we exit;
        # a survivor keeps no pipe of ours
        subprocess.run(["sh", "-c", f"(setsid sh -c 'sleep {escape} & echo started' &)"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        supervised = "qwen_tools.process.supervisor" in sys.modules
print(json.dumps({"supervisor": "qwen_tools.process.supervisor" in sys.modules,
                  "during": supervised if escape else None}))
"""


@pytest.fixture
def sleep() -> Iterator[str]:
    token = unique_sleep()
    yield token
    kill_args(token)


def _lifetime(escape: str) -> dict[str, object]:
    out = subprocess.run(
        [sys.executable, "-c", _SCRIPT, escape],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    report: dict[str, object] = json.loads(out.stdout.splitlines()[-1])
    return report


def test_an_orphan_started_outside_the_supervisor_ends_with_the_lifetime(sleep: str) -> None:
    report = _lifetime(sleep)
    assert report["during"] is False  # nothing imported the supervisor to start it
    assert arg_pids(sleep) == []  # re-parented to us (subreaper), killed on the way out


def test_a_lifetime_that_started_nothing_loads_no_supervisor() -> None:
    assert _lifetime("") == {"supervisor": False, "during": None}


_RACE = """
import subprocess, sys
from qwen_tools.cli.interrupts import process_lifetime
for token in sys.argv[1:]:
    with process_lifetime():
        # the middle shell forks the sleep and exits at once: at the end of the lifetime it may
        # be a zombie whose child was created after /proc was listed
        subprocess.run(["sh", "-c", f"(setsid sh -c 'sleep {token} & echo x' &)"], check=True)
"""


def test_a_child_forked_while_the_end_lists_proc_is_not_missed() -> None:
    """Four interpreters at once, eight lifetimes each: the window is small, contention widens it."""
    batches = [[unique_sleep() for _ in range(8)] for _ in range(4)]
    tokens = [token for batch in batches for token in batch]
    try:
        runs = [
            subprocess.Popen(
                [sys.executable, "-c", _RACE, *batch],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            for batch in batches
        ]
        assert [run.wait(timeout=120) for run in runs] == [0, 0, 0, 0]
        assert [t for t in tokens if arg_pids(t)] == []
    finally:
        kill_args(*tokens)
