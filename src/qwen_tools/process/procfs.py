"""Reading Linux's process table in ``/proc``: ids, state and start time, children, marks.

Everything here reads files and never raises for a process that vanished in between (it is then
simply absent). Processes are identified by ``(pid, start)``: ``start`` is the start time in clock
ticks since boot, so a pid reused by a new process is never mistaken for the old one.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = [
    "ProcStat",
    "available",
    "cgroup_of",
    "children_of_self",
    "descends_from",
    "environ_value",
    "is_alive",
    "read_stat",
    "reap",
    "snapshot",
]


@dataclass(frozen=True, slots=True)
class ProcStat:
    """One process as ``/proc/<pid>/stat`` describes it."""

    pid: int
    ppid: int
    pgid: int
    sid: int
    state: str
    """``R``, ``S``, ``D``, ``T``, ``Z`` (zombie: exited, not yet reaped), ..."""
    start: int

    @property
    def zombie(self) -> bool:
        """Exited and waiting for its parent to reap it (cannot be signalled any more)."""
        return self.state in ("Z", "X")


def available() -> bool:
    """Whether this is Linux with ``/proc`` mounted."""
    return sys.platform.startswith("linux") and os.path.isdir("/proc/self/task")


def _read(path: str, size: int = 65536) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        chunks: list[bytes] = []
        while chunk := os.read(fd, size):
            chunks.append(chunk)
            if len(chunk) < size:
                break
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def read_stat(pid: int) -> ProcStat | None:
    """Process ``pid``, or ``None`` when it does not exist (any more)."""
    data = _read(f"/proc/{pid}/stat", 4096)
    if not data:
        return None
    # The command name (field 2) may contain spaces and parentheses: split after the last ')'.
    fields = data.rsplit(b")", 1)[-1].split()
    try:
        return ProcStat(
            pid=pid,
            state=fields[0].decode("ascii", "replace"),
            ppid=int(fields[1]),
            pgid=int(fields[2]),
            sid=int(fields[3]),
            start=int(fields[19]),
        )
    except (IndexError, ValueError):
        return None


def _pids() -> Iterable[int]:
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    return (int(name) for name in names if name.isdigit())


def snapshot() -> dict[int, ProcStat]:
    """Every process visible in ``/proc``, by pid."""
    table: dict[int, ProcStat] = {}
    for pid in _pids():
        stat = read_stat(pid)
        if stat is not None:
            table[pid] = stat
    return table


def children_of_self() -> list[int]:
    """Our direct children (those we spawned and those re-parented to us).

    Reads ``/proc/self/task/<tid>/children`` (every thread has its own list); falls back to a
    full scan where the kernel does not offer that file.
    """
    found: list[int] = []
    try:
        tids = os.listdir("/proc/self/task")
    except OSError:
        tids = []
    for tid in tids:
        data = _read(f"/proc/self/task/{tid}/children")
        if data is None:
            me = os.getpid()
            return [s.pid for s in snapshot().values() if s.ppid == me]
        found.extend(int(part) for part in data.split())
    return found


def descends_from(stat: ProcStat, ancestor: int, table: dict[int, ProcStat]) -> bool:
    """Whether ``ancestor`` is on the chain of parents of ``stat`` (in ``table``)."""
    seen = 0
    current: ProcStat | None = stat
    while current is not None and seen < 4096:
        if current.ppid == ancestor:
            return True
        if current.ppid <= 1:
            return False
        current = table.get(current.ppid)
        seen += 1
    return False


def environ_value(pid: int, name: bytes) -> bytes | None:
    """The value of variable ``name`` in the environment ``pid`` started with, if readable."""
    data = _read(f"/proc/{pid}/environ")
    if not data:
        return None
    prefix = name + b"="
    for entry in data.split(b"\0"):
        if entry.startswith(prefix):
            return entry[len(prefix) :]
    return None


def cgroup_of(pid: int) -> str | None:
    """The cgroup v2 path of ``pid`` (the ``0::`` line of ``/proc/<pid>/cgroup``).

    Still readable for a zombie, which is how a zombie's origin can be told after its cgroup
    no longer lists it.
    """
    data = _read(f"/proc/{pid}/cgroup", 8192)
    if data is None:
        return None
    for line in data.decode("utf-8", "replace").splitlines():
        if line.startswith("0::"):
            return line[3:]
    return None


def is_alive(pid: int, start: int | None = None) -> bool:
    """Whether ``pid`` runs (not a zombie), and is the process that started at ``start``."""
    stat = read_stat(pid)
    if stat is None or stat.zombie:
        return False
    return start is None or stat.start == start


def reap(pid: int) -> bool:
    """Collect the exit status of our zombie child ``pid`` (never blocks); whether it was."""
    with contextlib.suppress(ChildProcessError, OSError):
        done, _ = os.waitpid(pid, os.WNOHANG)
        return done == pid
    return False
