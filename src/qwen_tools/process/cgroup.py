"""One cgroup v2 per command, where our process's cgroup is writable.

A process cannot leave its cgroup without privileges, whatever it does with sessions, process
groups, double forks or its environment, so the cgroup's member list is the command's whole tree
and ``cgroup.kill`` (Linux 5.14) ends it at once; older kernels get ``cgroup.freeze`` and a
``SIGKILL`` to every member until none is left.

:class:`CgroupHome` is our own cgroup (found through ``/proc/self/cgroup`` and the ``cgroup2``
mount in ``/proc/self/mountinfo``); each command gets a child ``qwen-tools-<pid>-<start>-<n>``
(:class:`TreeCgroup`), which the command's first process joins itself between fork and exec, so
nothing it starts is ever outside. A child left by a qwen-tools process that no longer runs (one
killed with ``SIGKILL``) is emptied and removed the next time a home is opened.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import time

from qwen_tools.process.procfs import cgroup_of, read_stat

__all__ = ["CgroupHome", "TreeCgroup"]

PREFIX = "qwen-tools-"
_STALE = re.compile(r"qwen-tools-(\d+)-(\d+)-\d+\Z")


def _unescape(field: str) -> str:
    """Undo mountinfo's octal escapes (``\\040`` is a space)."""
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


def _own_cgroup() -> tuple[str, str] | None:
    """``(directory, cgroup path)`` of our process in the cgroup v2 hierarchy, if mounted."""
    relative = cgroup_of(os.getpid())
    if relative is None:
        return None
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return None
    for line in lines:
        left, _, right = line.partition(" - ")
        if not right.startswith("cgroup2 "):
            continue
        fields = left.split()
        root, mount_point = _unescape(fields[3]), _unescape(fields[4])
        if root != "/" and not (relative == root or relative.startswith(root + "/")):
            continue
        inside = relative[len(root) :] if root != "/" else relative
        return os.path.join(mount_point, inside.lstrip("/")), relative
    return None


def _write(path: str, text: str) -> bool:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        os.write(fd, text.encode())
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


class TreeCgroup:
    """The cgroup of one command tree."""

    def __init__(self, directory: str, relative: str, *, joinable: bool = True) -> None:
        self.directory = directory
        self.relative = relative
        """Its path as ``/proc/<pid>/cgroup`` shows it (to recognise members, zombies too)."""
        self._procs_fd: int | None = (
            os.open(os.path.join(directory, "cgroup.procs"), os.O_WRONLY | os.O_CLOEXEC)
            if joinable
            else None
        )

    def join(self) -> None:
        """Move the calling process in (run in the child between fork and exec; no raising)."""
        fd = self._procs_fd
        if fd is not None:
            with contextlib.suppress(OSError):
                os.write(fd, b"0")

    def holds(self, pid: int) -> bool:
        """Whether ``pid`` (alive or zombie) is in this cgroup or one below it."""
        path = cgroup_of(pid)
        if path is None:
            return False
        path = path.removesuffix(" (deleted)")
        return path == self.relative or path.startswith(self.relative + "/")

    def pids(self) -> list[int]:
        """The live members (zombies are not listed)."""
        found: list[int] = []
        for current, _dirs, _files in os.walk(self.directory):
            try:
                with open(os.path.join(current, "cgroup.procs"), encoding="ascii") as handle:
                    found.extend(int(line) for line in handle.read().split())
            except (OSError, ValueError):
                continue
        return found

    def populated(self) -> bool:
        """Whether a live process is left in this cgroup (or below)."""
        try:
            with open(os.path.join(self.directory, "cgroup.events"), encoding="ascii") as handle:
                return "populated 1" in handle.read()
        except OSError:
            return False

    def signal(self, signum: int) -> None:
        """Send ``signum`` to every member."""
        for pid in self.pids():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signum)

    def kill(self) -> None:
        """``SIGKILL`` every member, those being forked meanwhile included."""
        if _write(os.path.join(self.directory, "cgroup.kill"), "1"):
            return
        froze = _write(os.path.join(self.directory, "cgroup.freeze"), "1")
        for _ in range(1000):
            members = self.pids()
            if not members:
                break
            for pid in members:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.001)
        if froze:
            _write(os.path.join(self.directory, "cgroup.freeze"), "0")

    def close(self) -> None:
        """Stop offering :meth:`join` (the descriptor is closed)."""
        if self._procs_fd is not None:
            os.close(self._procs_fd)
            self._procs_fd = None

    def remove(self) -> bool:
        """Remove the (empty) cgroup; whether it is gone."""
        self.close()
        try:
            for current, _dirs, _files in os.walk(self.directory, topdown=False):
                os.rmdir(current)
        except FileNotFoundError:
            return True
        except OSError:
            return False
        return True


class CgroupHome:
    """Our own cgroup, where command cgroups are created."""

    def __init__(self, directory: str, relative: str) -> None:
        self.directory = directory
        self.relative = relative
        me = read_stat(os.getpid())
        self._stem = f"{PREFIX}{os.getpid()}-{me.start if me else 0}-"
        self._count = 0

    @classmethod
    def find(cls) -> CgroupHome | None:
        """Our cgroup, if cgroup v2 is mounted and we may create cgroups in it."""
        found = _own_cgroup()
        if found is None:
            return None
        directory, relative = found
        procs = os.path.join(directory, "cgroup.procs")
        if not (os.access(directory, os.W_OK) and os.access(procs, os.W_OK)):
            return None
        home = cls(directory, relative)
        home.remove_stale()
        return home

    def create(self) -> TreeCgroup | None:
        """A new, empty cgroup for one command; ``None`` if it cannot be made."""
        self._count += 1
        name = f"{self._stem}{self._count}"
        directory = os.path.join(self.directory, name)
        try:
            os.mkdir(directory)
        except OSError:
            return None
        try:
            return TreeCgroup(directory, f"{self.relative.rstrip('/')}/{name}")
        except OSError:
            with contextlib.suppress(OSError):
                os.rmdir(directory)
            return None

    def remove_stale(self) -> None:
        """End and remove the command cgroups of qwen-tools processes that no longer run."""
        try:
            names = os.listdir(self.directory)
        except OSError:
            return
        for name in names:
            match = _STALE.match(name)
            if match is None:
                continue
            owner = read_stat(int(match.group(1)))
            if owner is not None and not owner.zombie and owner.start == int(match.group(2)):
                continue
            stale = TreeCgroup(
                os.path.join(self.directory, name),
                f"{self.relative.rstrip('/')}/{name}",
                joinable=False,
            )
            stale.kill()
            for _ in range(200):
                if not stale.populated():
                    break
                time.sleep(0.005)
            stale.remove()
