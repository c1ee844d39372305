"""Noticing that the process that started ours has exited (so we can exit too).

A server on stdio belongs to its client: when the client is gone, nothing should keep the server
alive. :func:`watch_parent` calls back once our parent process has exited, through a pidfd the
event loop watches (Linux 5.3+), else by checking every second whether we were re-parented.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable

__all__ = ["watch_parent"]

POLL_S = 1.0


def watch_parent(on_gone: Callable[[], None], parent: int | None = None) -> Callable[[], None]:
    """Call ``on_gone`` (once, on the running loop) when our parent exits; returns a canceller.

    ``parent`` is the parent's pid as noted earlier (at start-up); if we were re-parented since,
    ``on_gone`` is called at once.
    """
    loop = asyncio.get_running_loop()
    parent = os.getppid() if parent is None else parent
    fired = False
    handle: asyncio.TimerHandle | None = None
    pidfd: int | None = None

    def fire() -> None:
        nonlocal fired
        if not fired:
            fired = True
            cancel()
            on_gone()

    def poll() -> None:
        nonlocal handle
        if os.getppid() != parent:
            fire()
        else:
            handle = loop.call_later(POLL_S, poll)

    def cancel() -> None:
        nonlocal pidfd, handle
        if pidfd is not None:
            loop.remove_reader(pidfd)
            os.close(pidfd)
            pidfd = None
        if handle is not None:
            handle.cancel()
            handle = None

    if os.getppid() != parent:
        loop.call_soon(fire)
        return cancel
    with contextlib.suppress(AttributeError, OSError):
        pidfd = os.pidfd_open(parent)
    if pidfd is not None:
        loop.add_reader(pidfd, fire)
        if os.getppid() != parent:  # it exited before the pidfd was opened
            loop.call_soon(fire)
    else:
        poll()
    return cancel
