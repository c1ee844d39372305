"""One command and every process it started: found, signalled, killed, and reaped.

A :class:`ProcessTree` knows its members in one of two ways:

cgroup
    The command runs in a cgroup of its own (:mod:`.cgroup`); the members are the cgroup's.
/proc (the fallback)
    Our process is a child subreaper (so an orphan is re-parented to us, never to init) and the
    members are found in the process table: the leader, the processes of the leader's session
    that descend from us, the processes that carry the tree's mark in their environment
    (``QWEN_TOOLS_TREE``, inherited by everything the command starts), processes already seen
    as members, and every descendant of those. What this cannot see: a process that left the
    session *and* dropped the mark *and* lost its parent (``setsid env -i ...`` double-forked);
    it stays our descendant, and is ended with everything else when our process exits.

Killing is race-free in both: ``cgroup.kill`` is atomic; in /proc mode every member is stopped
(``SIGSTOP``, and we wait until it is stopped) and the table is read again until no new member
appears, since a stopped process cannot fork; then all of them get ``SIGKILL``.

Members re-parented to us become our zombies when they die; :meth:`ProcessTree.owns_zombie` tells
them apart from the children other code in this process spawned (which their owners reap), so
only ours are collected.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from qwen_tools.process.cgroup import TreeCgroup
from qwen_tools.process.procfs import (
    ProcStat,
    cgroup_of,
    children_of_self,
    descends_from,
    environ_value,
    read_stat,
    reap,
    snapshot,
)

if TYPE_CHECKING:
    import asyncio

__all__ = ["TREE_VAR", "ProcessTree", "freeze_then_kill", "wait_stopped"]

TREE_VAR = "QWEN_TOOLS_TREE"
"""The environment variable carrying the marks of the trees a process belongs to."""

_STOP_ROUNDS = 64
_GONE_TIMEOUT_S = 5.0


def _signal(pids: Iterable[int], signum: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signum)


def wait_stopped(members: dict[int, int], budget_s: float = 0.5) -> None:
    """Wait until each of ``members`` (pid → start) is stopped or gone (bounded)."""
    deadline = time.monotonic() + budget_s
    pending = dict(members)
    while pending and time.monotonic() < deadline:
        for pid, start in list(pending.items()):
            stat = read_stat(pid)
            if stat is None or stat.start != start or stat.zombie or stat.state in ("T", "t"):
                del pending[pid]
        if pending:
            time.sleep(0.001)


def freeze_then_kill(listing: Callable[[], dict[int, int]]) -> dict[int, int]:
    """``SIGSTOP`` every process ``listing()`` names (pid → start), listing again until it
    names none not yet stopped (a fork racing the signals is caught), then ``SIGKILL`` them
    all; the pids killed."""
    stopped: dict[int, int] = {}
    for _ in range(_STOP_ROUNDS):
        fresh = {pid: start for pid, start in listing().items() if stopped.get(pid) != start}
        if not fresh:
            break
        _signal(fresh, signal.SIGSTOP)
        stopped.update(fresh)
        wait_stopped(fresh)
    _signal(stopped, signal.SIGKILL)
    return stopped


class ProcessTree:
    """A command's process tree (see the module docstring)."""

    def __init__(self, token: str, cgroup: TreeCgroup | None, *, subreaper: bool) -> None:
        self.token = token
        self.cgroup = cgroup
        self.subreaper = subreaper
        self.leader = 0
        self.leader_start = 0
        self.leader_done = False
        """Whether the leader's exit was collected (by its owner, not by us)."""
        self.seen: dict[int, int] = {}
        """Members seen alive (pid → start), so that their zombies can be told as ours."""
        self._owner = os.getpid()

    # -- identity ---------------------------------------------------------------------------

    def started(self, pid: int) -> bool:
        """The leader ``pid`` was spawned; whether it landed in the cgroup (if there is one).

        If the move failed (no permission on this system), the tree falls back to /proc.
        """
        self.leader = pid
        stat = read_stat(pid)
        self.leader_start = stat.start if stat is not None else 0
        where = cgroup_of(pid)  # None: it already exited (and was collected), nothing to say
        if self.cgroup is not None and where is not None and not self.cgroup.holds(pid):
            self.cgroup.remove()
            self.cgroup = None
            return False
        return True

    def _marked(self, pid: int) -> bool:
        value = environ_value(pid, TREE_VAR.encode())
        return value is not None and self.token.encode() in value.split()

    def _in_session(self, stat: ProcStat) -> bool:
        leader = self.leader
        return (
            leader > 0
            and stat.pid != leader
            and (stat.sid == leader or stat.pgid == leader)
            and stat.start >= self.leader_start
        )

    def claims(self, stat: ProcStat) -> bool:
        """Whether live process ``stat``, a child of ours, belongs to this tree."""
        if stat.pid == self.leader:
            return stat.start == self.leader_start
        if self.cgroup is not None:
            return self.cgroup.holds(stat.pid)
        return (
            self.seen.get(stat.pid) == stat.start
            or self._in_session(stat)
            or self._marked(stat.pid)
        )

    def owns_zombie(self, stat: ProcStat) -> bool:
        """Whether zombie ``stat``, a child of ours, is a member we may reap.

        Never the leader (whoever spawned it collects it); never a process that leads its own
        session unless we saw it as a member (other code spawns children like that).
        """
        if stat.pid == self.leader:
            return False
        if self.cgroup is not None and self.cgroup.holds(stat.pid):
            return True
        return self.seen.get(stat.pid) == stat.start or (
            self._in_session(stat) and stat.sid != stat.pid
        )

    # -- members ----------------------------------------------------------------------------

    def members(self, table: dict[int, ProcStat] | None = None) -> dict[int, int]:
        """The live members now (pid → start)."""
        if self.cgroup is not None:
            found: dict[int, int] = {}
            for pid in self.cgroup.pids():
                stat = read_stat(pid)
                if stat is not None and not stat.zombie:
                    found[pid] = stat.start
            return found
        table = snapshot() if table is None else table
        me = self._owner
        roots: set[int] = set()
        for stat in table.values():
            if stat.zombie:
                continue
            if (
                (stat.pid == self.leader and stat.start == self.leader_start)
                or self.seen.get(stat.pid) == stat.start
                or (self._in_session(stat) and descends_from(stat, me, table))
            ):
                roots.add(stat.pid)
        # Re-parented processes that left the session: known by their mark. With a subreaper
        # they are our children; without one they may be anywhere.
        for stat in table.values():
            if stat.pid in roots or stat.zombie or stat.pid == me:
                continue
            if (not self.subreaper or stat.ppid == me) and self._marked(stat.pid):
                roots.add(stat.pid)
        children: dict[int, list[int]] = {}
        for stat in table.values():
            children.setdefault(stat.ppid, []).append(stat.pid)
        members: dict[int, int] = {}
        queue = list(roots)
        while queue:
            pid = queue.pop()
            stat = table.get(pid)
            if pid in members or stat is None or stat.zombie or pid == me:
                continue
            members[pid] = stat.start
            queue.extend(children.get(pid, ()))
        self.seen.update(members)
        return members

    def alive(self) -> bool:
        """Whether any member is still running.

        Once the leader is gone, every member is (below) a child of ours that
        :func:`~.supervisor.sweep` has claimed, so the members seen are enough.
        """
        if self.cgroup is not None:
            return self.cgroup.populated()
        if not self.leader_done:
            return bool(self.members())
        self.seen = {
            pid: start
            for pid, start in self.seen.items()
            if (stat := read_stat(pid)) is not None and stat.start == start and not stat.zombie
        }
        return bool(self.seen)

    # -- ending -----------------------------------------------------------------------------

    def signal_all(self, signum: int) -> None:
        """Send ``signum`` to every member."""
        _signal(self.members(), signum)

    def kill_now(self) -> dict[int, int]:
        """``SIGKILL`` every member, including those forked meanwhile; the pids killed."""
        if self.cgroup is not None:
            killed = self.members()
            self.cgroup.kill()
            return killed
        return freeze_then_kill(self.members)

    def gone(self, killed: dict[int, int]) -> bool:
        """Whether every process of ``killed`` has died (our zombies among them reaped)."""
        self.reap_zombies()
        if self.cgroup is not None:
            return not self.cgroup.populated()
        return not any(
            (stat := read_stat(pid)) is not None and stat.start == start and not stat.zombie
            for pid, start in killed.items()
        )

    def reap_zombies(self) -> None:
        """Collect the exit status of every member that died re-parented to us."""
        if os.getpid() != self._owner:
            return
        for pid in children_of_self():
            stat = read_stat(pid)
            if stat is not None and stat.zombie and self.owns_zombie(stat):
                reap(pid)

    def kill_and_wait_now(self, timeout: float = _GONE_TIMEOUT_S) -> None:
        """Kill every member and wait (blocking, bounded) until they have died."""
        killed = self.kill_now()
        deadline = time.monotonic() + timeout
        while not self.gone(killed) and time.monotonic() < deadline:
            time.sleep(0.005)

    async def terminate(self, exited: asyncio.Future[int] | None, grace: float = 0.2) -> None:
        """``SIGTERM`` every member, wait ``grace`` s for the leader, then kill them all.

        Returns once every member has died (or after a bounded wait).
        """
        import asyncio

        self.signal_all(signal.SIGTERM)
        if exited is not None and not exited.done():
            await asyncio.wait({exited}, timeout=grace)
        killed = self.kill_now()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + _GONE_TIMEOUT_S
        while not self.gone(killed) and loop.time() < deadline:
            await asyncio.sleep(0.005)

    def dispose(self) -> bool:
        """Release the tree's cgroup; whether it could be (it cannot while processes remain)."""
        return self.cgroup is None or self.cgroup.remove()
