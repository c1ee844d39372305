"""Processes started by tests: find them by an environment mark or a process group, and end them.

The shell tests put a unique ``QWEN_TOOLS_TEST_MARK`` in the environment; every process a test
starts inherits it, so leftovers can be found (and killed by pid) after the test.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
import uuid
from collections.abc import Iterator

import pytest

MARK_VAR = "QWEN_TOOLS_TEST_MARK"


def marked_pids(mark: str, var: str = MARK_VAR) -> list[int]:
    """Live (non-zombie) processes whose environment carries ``mark`` (in variable ``var``)."""
    needle = f"{var}={mark}".encode()
    found: list[int] = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as handle:
                if needle not in handle.read().split(b"\0"):
                    continue
            with open(f"/proc/{entry}/stat", "rb") as handle:
                state = handle.read().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if state != b"Z":
            found.append(int(entry))
    return found


def group_members(pgid: int) -> list[int]:
    """Live processes whose process group is ``pgid``."""
    members: list[int] = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != b"Z" and int(fields[2]) == pgid:
            members.append(int(entry))
    return members


def wait_group_gone(pgid: int, timeout: float = 1.0) -> bool:
    """Whether every process of group ``pgid`` is gone within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while group_members(pgid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def wait_until_gone(mark: str, timeout: float = 2.0) -> list[int]:
    """Poll until no marked process is alive; the survivors after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        alive = marked_pids(mark)
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.05)


def kill_marked(mark: str) -> list[int]:
    """SIGKILL every marked process (by pid); the pids that were alive."""
    alive = marked_pids(mark)
    for pid in alive:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return alive


def process_guard(monkeypatch: pytest.MonkeyPatch, *, timeout: float = 2.0) -> Iterator[str]:
    """Body of an autouse fixture: mark this test's processes, and fail it if one survives.

    The mark goes into the environment (every child inherits it); after the test, marked
    processes still alive once ``timeout`` has passed are killed by pid and the test fails.
    """
    mark = uuid.uuid4().hex
    monkeypatch.setenv(MARK_VAR, mark)
    yield mark
    survivors = wait_until_gone(mark, timeout=timeout)
    if survivors:
        kill_marked(mark)
        pytest.fail(f"processes outlived the test: {survivors}")


def arg_pids(token: str) -> list[int]:
    """Live (non-zombie) processes with ``token`` as one of their arguments.

    Finds processes whatever they did to their environment (``env -i``), session or parent.
    """
    needle = token.encode()
    found: list[int] = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                if needle not in handle.read().split(b"\0"):
                    continue
            with open(f"/proc/{entry}/stat", "rb") as handle:
                state = handle.read().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if state != b"Z":
            found.append(int(entry))
    return found


def unique_sleep() -> str:
    """A ``sleep`` duration no other process uses (about an hour), to find it by argument."""
    return f"3600.{uuid.uuid4().int % 10**9:09d}"


def kill_args(*tokens: str) -> list[int]:
    """SIGKILL every live process with one of ``tokens`` as an argument; the pids killed."""
    killed: list[int] = []
    for token in tokens:
        for pid in arg_pids(token):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            killed.append(pid)
    return killed
