"""A pool worker's guardian: the worker's commands end when the worker dies, however it dies.

A worker killed with ``SIGKILL`` (by Ray, the OOM killer or a user) runs no clean-up: its shell
commands, background shells above all, would run on, re-parented to init. Where bubblewrap
confines them, ``--die-with-parent`` and the PID namespace already end them; without it, this
module does. The worker writes a *ledger* (:class:`Ledger`, a JSON-lines file next to its
directory): first its own pid, start time, the mark its command trees carry
(:mod:`qwen_tools.process.tree`) and its cgroup, then the leader (pid and start time) of every
command it spawns. A *guardian* process (``python -m qwen_tools.pool.guardian LEDGER``, started
by the worker in a session of its own) waits for the worker to exit (a pidfd) and then ends,
with :func:`reap`, every process the ledger leads to:

* the worker's command cgroups (``qwen-tools-<pid>-<start>-*``), with everything in them:
  nothing leaves a cgroup, whatever it does (``setsid``, double forks, ``env -i``);
* every process carrying the worker's mark (inherited by all a command starts, also after
  ``setsid`` and a double fork);
* every process in the session or process group of a recorded leader that still runs (the
  same pid *and* start time: a recycled pid is never taken for it);
* every descendant of those.

Each process is identified by pid *and* start time; all are stopped (``SIGSTOP``) until no new
one appears, then killed. The next worker started on the node also reaps the ledgers of dead
workers it finds (:func:`sweep`), in case the guardian was killed too.

What this cannot end without cgroups or bubblewrap: a process that dropped the mark (``env -i``)
and lost its parent (double fork), and either left its session or was left in one whose leader
has exited: nothing on the machine ties it to the worker any more (a session whose leader is
gone is not ended, since its id may have been recycled by an unrelated daemon). Use bubblewrap
(the pool's default where it works) or a writable cgroup v2 where commands may be hostile.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import subprocess
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from qwen_tools.process import procfs, supervisor
from qwen_tools.process.cgroup import PREFIX, CgroupHome, TreeCgroup
from qwen_tools.process.tree import TREE_VAR, freeze_then_kill

__all__ = ["Ledger", "marks_of_this_process", "reap", "start_guardian", "sweep"]

PATTERN = "qwen-pool-*.ledger"
"""The ledgers' file names (:func:`sweep` touches no other file)."""
_POLL_S = 0.5


def _start_of(pid: int) -> int | None:
    stat = procfs.read_stat(pid)
    return None if stat is None or stat.zombie else stat.start


def marks_of_this_process() -> str:
    """The prefix of the marks this process's command trees carry (``<instance>.<n>``)."""
    return supervisor._current().instance  # (the supervisor names it only in the marks)


class Ledger:
    """The worker's side: what its guardian needs, appended as it happens."""

    def __init__(self, path: Path, instance: str) -> None:
        """A new ledger at ``path`` for this process, whose command trees carry marks
        ``<instance>.<n>``."""
        self.path = path
        home = CgroupHome.find() if procfs.available() else None
        head = {
            "pid": os.getpid(),
            "start": _start_of(os.getpid()) or 0,
            "instance": instance,
            "cgroup": [home.directory, home.relative] if home is not None else None,
        }
        self._file = open(path, "w", encoding="utf-8")  # noqa: SIM115 (kept open: appended to)
        self._write(head)

    def _write(self, record: dict[str, Any]) -> None:
        with contextlib.suppress(OSError, ValueError):
            self._file.write(json.dumps(record) + "\n")
            self._file.flush()  # in the kernel's hands now: a SIGKILL after this loses nothing

    def note(self, pid: int) -> None:
        """A command was spawned with leader ``pid``."""
        start = _start_of(pid)
        if start is not None:
            self._write({"leader": pid, "start": start})

    def close(self, remove: bool = True) -> None:
        """Stop writing (and delete the file: a worker that ends cleanly leaves nothing)."""
        with contextlib.suppress(OSError):
            self._file.close()
        if remove:
            self.path.unlink(missing_ok=True)


def start_guardian(ledger: Path) -> subprocess.Popen[bytes]:
    """Start the guardian of this process's ``ledger`` (in a session of its own)."""
    return subprocess.Popen(
        [sys.executable, "-m", "qwen_tools.pool.guardian", str(ledger)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        close_fds=True,
    )


def _read(ledger: Path) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
    try:
        lines = ledger.read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    records = []
    for line in lines:
        with contextlib.suppress(ValueError):
            records.append(json.loads(line))
    if not records or "instance" not in records[0]:
        return None
    return records[0], records[1:]


def _targets(head: dict[str, Any], leaders: Iterable[dict[str, Any]]) -> dict[int, int]:
    """The live processes the ledger leads to (pid → start), see the module docstring."""
    table = procfs.snapshot()
    me = os.getpid()
    prefix = f"{head['instance']}.".encode()
    sessions: dict[int, int] = {}
    for leader in leaders:
        pid, start = int(leader["leader"]), int(leader["start"])
        now = table.get(pid)
        if now is not None and now.start == start and not now.zombie:
            sessions[pid] = start  # (a leader gone: its ids may be another process's now)
    roots: dict[int, int] = {}
    for stat in table.values():
        if stat.zombie or stat.pid == me:
            continue
        for group in (stat.sid, stat.pgid):
            if group in sessions and stat.start >= sessions[group]:
                roots[stat.pid] = stat.start
        if stat.pid not in roots:
            marks = procfs.environ_value(stat.pid, TREE_VAR.encode())
            if marks and any(token.startswith(prefix) for token in marks.split()):
                roots[stat.pid] = stat.start
    children: dict[int, list[int]] = {}
    for stat in table.values():
        children.setdefault(stat.ppid, []).append(stat.pid)
    found: dict[int, int] = {}
    queue = list(roots)
    while queue:
        pid = queue.pop()
        entry = table.get(pid)
        if pid in found or entry is None or entry.zombie or pid == me:
            continue
        found[pid] = entry.start
        queue.extend(children.get(pid, ()))
    return found


def _end_cgroups(head: dict[str, Any]) -> None:
    place = head.get("cgroup")
    if not place:
        return
    directory, relative = place
    stem = f"{PREFIX}{head['pid']}-{head['start']}-"
    with contextlib.suppress(OSError):
        for name in os.listdir(directory):
            if name.startswith(stem):
                tree = TreeCgroup(
                    os.path.join(directory, name), f"{relative.rstrip('/')}/{name}", joinable=False
                )
                tree.kill()
                for _ in range(200):
                    if not tree.populated():
                        break
                    time.sleep(0.005)
                tree.remove()


def reap(ledger: Path) -> bool:
    """End every process ``ledger`` leads to, if its worker is gone; whether it was (and the
    ledger is then removed)."""
    read = _read(ledger)
    if read is None:
        return False  # not a ledger (or an empty one): nothing is known to end
    head, leaders = read
    if _start_of(int(head["pid"])) == int(head["start"]):
        return False  # the worker lives
    _end_cgroups(head)
    freeze_then_kill(lambda: _targets(head, leaders))
    ledger.unlink(missing_ok=True)
    return True


def sweep(directory: Path) -> None:
    """Reap the ledgers in ``directory`` whose workers are gone."""
    with contextlib.suppress(OSError):
        for ledger in directory.glob(PATTERN):
            reap(ledger)


def _wait_for_exit(pid: int, start: int) -> None:
    """Return once process ``pid`` (started at ``start``) has exited."""
    fd: int | None = None
    with contextlib.suppress(AttributeError, OSError):
        fd = os.pidfd_open(pid)
    if fd is not None and _start_of(pid) == start:
        with contextlib.suppress(OSError):
            select.select([fd], [], [])
        os.close(fd)
        return
    while _start_of(pid) == start:
        time.sleep(_POLL_S)


def main(argv: list[str]) -> int:
    """``guardian LEDGER``: wait for the ledger's worker to exit, then :func:`reap` it."""
    ledger = Path(argv[0])
    read = _read(ledger)
    if read is not None:
        head, _ = read
        _wait_for_exit(int(head["pid"]), int(head["start"]))
    reap(ledger)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
