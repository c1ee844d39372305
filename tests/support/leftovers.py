"""The test run's last line of defence: no process it started outlives it.

:func:`install` (from the root ``conftest.py``, at start-up) makes the pytest process a child
subreaper, so a process a test started stays below pytest even when its parent dies (double
forks, killed servers' children), and turns ``SIGTERM`` and ``SIGHUP`` into
``KeyboardInterrupt``, so fixtures are torn down as on Ctrl-C instead of pytest dying with its
servers still running. :func:`end_leftovers` (at the end of the session, after every fixture is
torn down, and at interpreter exit) kills whatever is still running below pytest: only processes
pytest itself started, directly or not.

:func:`die_with_parent` is a ``preexec_fn`` for the servers fixtures start: the server is
killed if pytest is (``SIGKILL`` cannot be caught, so nothing else could end it).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import threading
from typing import Any

from qwen_tools.process import procfs, supervisor
from qwen_tools.process.prctl import set_parent_death_signal

__all__ = ["die_with_parent", "end_leftovers", "install"]

_installed_by: int | None = None


def _interrupt(signum: int, _frame: Any) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def install() -> None:
    """Subreaper, ``SIGTERM``/``SIGHUP`` as interruptions, clean-up at exit (idempotent)."""
    global _installed_by
    if _installed_by == os.getpid():
        return
    _installed_by = os.getpid()
    supervisor.become_subreaper()
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, _interrupt)
    atexit.register(end_leftovers)


def _command_line(pid: int) -> str:
    with contextlib.suppress(OSError), open(f"/proc/{pid}/cmdline", "rb") as handle:
        return handle.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()
    return "?"


def end_leftovers() -> list[str]:
    """Kill every process still running below this one; ``"<pid> <command line>"`` of each."""
    if _installed_by != os.getpid() or not procfs.available():
        return []
    me = os.getpid()
    table = procfs.snapshot()
    running = [
        f"{stat.pid} {_command_line(stat.pid)}"
        for stat in table.values()
        if not stat.zombie and procfs.descends_from(stat, me, table)
    ]
    if running:
        supervisor.end_all(descendants=True)
    return running


def die_with_parent() -> None:
    """``preexec_fn``: the child gets ``SIGKILL`` when the process that started it dies."""
    set_parent_death_signal(signal.SIGKILL)
