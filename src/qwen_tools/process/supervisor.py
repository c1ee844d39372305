"""The process-wide register of command trees: spawning into one, finding one, ending them all.

:func:`prepare` is called just before a command is spawned and gives a :class:`Launch`: the
environment additions (the tree's mark), the function the child runs before ``exec`` (joining the
tree's cgroup) and, once the pid is known, :meth:`Launch.started` registers the tree.
:func:`tree_of` finds a tree by its leader's pid. :func:`settle` is called when a leader has
exited: a tree whose processes are all gone is forgotten; one that left processes behind
(``sleep 300 &``, as Qwen Code allows) is kept, and those are ended by :func:`end_all`.

The first :func:`prepare` makes this process a child subreaper (Linux), and registers
:func:`end_all` to run at interpreter exit. ``qwen-tools`` itself calls ``end_all(descendants=
True)`` when it exits: then every process below ours ends, whatever tree it came from.

How trees are tracked (:func:`set_tracking`, or the environment variable
``QWEN_TOOLS_PROCESS_TRACKING``): ``auto`` (the default: a cgroup per command where possible,
else /proc), ``cgroup`` (the same), ``proc`` (never cgroups), ``group`` (no tracking: only the
process group is signalled; also what non-Linux systems get).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from qwen_tools.process import procfs
from qwen_tools.process.cgroup import CgroupHome
from qwen_tools.process.prctl import set_child_subreaper
from qwen_tools.process.tree import TREE_VAR, ProcessTree, wait_stopped

__all__ = [
    "Launch",
    "become_subreaper",
    "cgroups_available",
    "end_all",
    "kill_descendants",
    "prepare",
    "set_tracking",
    "settle",
    "sweep",
    "tracking",
    "tree_of",
]

TRACKING_VAR = "QWEN_TOOLS_PROCESS_TRACKING"
_MODES = ("auto", "cgroup", "proc", "group")


class _State:
    """Per-process state (a forked child starts afresh)."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        # What secrets.token_hex(4) gives, without importing hmac and hashlib at startup
        self.instance = f"{self.pid}.{os.urandom(4).hex()}"
        self.count = 0
        self.trees: dict[str, ProcessTree] = {}
        """By token (a leader's pid may be reused while its tree still has processes)."""
        self.subreaper = False
        self.home: CgroupHome | None = None
        self.home_checked = False
        mode = os.environ.get(TRACKING_VAR, "auto").strip().lower()
        self.mode = mode if mode in _MODES else "auto"
        self.exit_hook = False


_state: _State | None = None


def _current() -> _State:
    global _state
    if _state is None or _state.pid != os.getpid():
        _state = _State()
    return _state


def _home(state: _State) -> CgroupHome | None:
    if not state.home_checked:
        state.home_checked = True
        state.home = CgroupHome.find() if procfs.available() else None
    return state.home


def cgroups_available() -> bool:
    """Whether commands can get cgroups of their own here."""
    return _home(_current()) is not None


def tracking() -> str:
    """The tracking mode in effect: ``cgroup``, ``proc`` or ``group``."""
    state = _current()
    if state.mode == "group" or not procfs.available():
        return "group"
    if state.mode in ("auto", "cgroup") and _home(state) is not None:
        return "cgroup"
    return "proc"


def set_tracking(mode: str) -> str:
    """Choose how trees are tracked from now on; returns the previous choice."""
    if mode not in _MODES:
        raise ValueError(f"unknown tracking mode {mode!r}")
    state = _current()
    previous, state.mode = state.mode, mode
    return previous


def become_subreaper() -> bool:
    """Make this process the reaper of its orphaned descendants (Linux; idempotent)."""
    state = _current()
    if not state.subreaper and procfs.available():
        state.subreaper = set_child_subreaper()
    return state.subreaper


@dataclass
class Launch:
    """What a command about to be spawned needs (see :func:`prepare`)."""

    tree: ProcessTree | None

    def environment(self, env: Mapping[str, str]) -> dict[str, str]:
        """``env`` plus the tree's mark (appended to any mark inherited)."""
        result = dict(env)
        if self.tree is not None:
            inherited = result.get(TREE_VAR, "").split()
            result[TREE_VAR] = " ".join([*inherited, self.tree.token])
        return result

    @property
    def preexec(self) -> Callable[[], None] | None:
        """Run in the child before ``exec``: join the tree's cgroup."""
        if self.tree is None or self.tree.cgroup is None:
            return None
        return self.tree.cgroup.join

    def started(self, pid: int) -> ProcessTree | None:
        """Register the tree of leader ``pid``."""
        if self.tree is None:
            return None
        state = _current()
        if not self.tree.started(pid):
            state.home = None  # cgroups cannot be joined here: /proc from now on
        state.trees[self.tree.token] = self.tree
        return self.tree

    def abandon(self) -> None:
        """The spawn failed: release what was prepared."""
        if self.tree is not None:
            self.tree.dispose()


def prepare() -> Launch:
    """Get ready to spawn one command (see the module docstring)."""
    state = _current()
    mode = tracking()
    if mode == "group":
        return Launch(None)
    become_subreaper()
    if not state.exit_hook:
        atexit.register(end_all)
        state.exit_hook = True
    sweep()
    state.count += 1
    home = state.home if mode == "cgroup" else None
    cgroup = home.create() if home is not None else None
    token = f"{state.instance}.{state.count}"
    return Launch(ProcessTree(token, cgroup, subreaper=state.subreaper))


def tree_of(pid: int) -> ProcessTree | None:
    """The registered tree whose leader is ``pid``."""
    state = _state
    if state is None or state.pid != os.getpid():
        return None
    for tree in reversed(state.trees.values()):
        if tree.leader == pid:
            return tree
    return None


def settle(tree: ProcessTree) -> None:
    """The leader of ``tree`` has exited and was collected: forget the tree unless it left
    processes running (they are then ended by :func:`end_all`)."""
    tree.leader_done = True
    sweep()


def sweep() -> None:
    """Reap our zombies that came from trees, note re-parented members, forget finished trees."""
    state = _state
    if state is None or state.pid != os.getpid() or not state.trees:
        return
    trees = list(state.trees.values())
    running = {t.leader for t in trees if not t.leader_done}
    for pid in procfs.children_of_self():
        if pid in running:
            continue
        stat = procfs.read_stat(pid)
        if stat is None:
            continue
        for tree in trees:
            if stat.zombie:
                if tree.owns_zombie(stat):
                    procfs.reap(pid)
                    break
            elif tree.claims(stat):
                tree.seen[pid] = stat.start
                break
    for token, tree in list(state.trees.items()):
        if tree.leader_done and not tree.alive():
            tree.reap_zombies()
            if tree.dispose():
                del state.trees[token]


def _descendants(table: dict[int, procfs.ProcStat], me: int) -> dict[int, int]:
    children: dict[int, list[int]] = {}
    for stat in table.values():
        children.setdefault(stat.ppid, []).append(stat.pid)
    found: dict[int, int] = {}
    queue = list(children.get(me, ()))
    while queue:
        pid = queue.pop()
        entry = table.get(pid)
        if pid in found or entry is None:
            continue
        if not entry.zombie:
            found[pid] = entry.start
        queue.extend(children.get(pid, ()))
    return found


def _marked_anywhere(table: dict[int, procfs.ProcStat], instance: str) -> dict[int, int]:
    prefix = instance.encode() + b"."
    found: dict[int, int] = {}
    for stat in table.values():
        if stat.zombie:
            continue
        value = procfs.environ_value(stat.pid, TREE_VAR.encode())
        if value and any(token.startswith(prefix) for token in value.split()):
            found[stat.pid] = stat.start
    return found


def kill_descendants() -> dict[int, int]:
    """Stop, then kill, every process below ours (and anything carrying our marks).

    Returns the processes killed (pid → start), once they have died (bounded wait).
    """
    state = _current()
    me = os.getpid()
    stopped: dict[int, int] = {}
    for _ in range(64):
        table = procfs.snapshot()
        found = _descendants(table, me)
        if not state.subreaper:
            found.update(_marked_anywhere(table, state.instance))
        fresh = {pid: start for pid, start in found.items() if stopped.get(pid) != start}
        if not fresh:
            # A process forked after the listing was read is not in ``table``, though its
            # parent may be (as a zombie whose child was just re-parented to us): look again
            # while the kernel names a child of ours that the snapshot missed.
            if not state.subreaper or set(procfs.children_of_self()) <= table.keys():
                break
            continue
        for pid in fresh:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGSTOP)
        stopped.update(fresh)
        wait_stopped(fresh)
    for pid in stopped:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline and any(
        procfs.is_alive(pid, start) for pid, start in stopped.items()
    ):
        time.sleep(0.005)
    return stopped


def end_all(descendants: bool = False) -> None:
    """Kill every tree still registered (running or left behind) and wait until they are gone.

    With ``descendants``, every process below ours is killed too: the CLI does this when it
    exits, since everything below it is its own.
    """
    state = _state
    if state is not None and state.pid == os.getpid():
        for tree in list(state.trees.values()):
            tree.kill_and_wait_now(timeout=2)
            tree.dispose()
        state.trees.clear()
    if descendants and procfs.available():
        kill_descendants()
