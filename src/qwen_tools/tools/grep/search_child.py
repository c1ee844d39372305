"""A search's child process, driven from a thread of its own and stoppable from anywhere.

Both ``grep_search`` engines run in a child process (``rg``, or the Python engine's worker):
only a process can be stopped in the middle of a runaway regular expression, and a process's
pipes read in a plain thread with ``selectors`` never depend on asyncio's pipe transports. (Those
caused a hang: on Python 3.11 ``Process.wait()`` returns only once every pipe has reported
EOF, and a stdout pipe whose reader had stopped at the output cap stayed paused, so its EOF
was never read and the call waited forever with no child left.)

:class:`Child` owns one process: :meth:`Child.kill` may be called from any thread at any time
(before the process exists, while it runs, after it was reaped) and never signals a process
that is not ours, because the process is signalled through a pidfd (Linux) or only while it is
known unreaped. :func:`run_blocking` runs a blocking job in a fresh thread and waits for it
without blocking the event loop; when the abort signal fires or the awaiting task is
cancelled, the child is killed, which ends the job's reads at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import selectors
import signal as signal_module
import subprocess
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from qwen_tools.contract.abort import AbortSignal

__all__ = ["Child", "pump_output", "run_blocking"]

T = TypeVar("T")
_READ = 1 << 16
_DRAIN = 2.0
"""Seconds a killed child's pipes may take to report EOF before they are given up."""


class Child:
    """The process of one search: attach it once started; stop or kill it from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._popen: subprocess.Popen[bytes] | None = None
        self._pidfd: int | None = None
        self.killed = False
        """Set once the process was killed (the time limit, the output cap, a stop)."""
        self.stopped = False
        """Set by :meth:`stop`: the caller aborted or was cancelled."""

    @property
    def popen(self) -> subprocess.Popen[bytes] | None:
        return self._popen

    def attach(self, popen: subprocess.Popen[bytes]) -> None:
        """Take charge of ``popen`` (killed at once if :meth:`stop` came first)."""
        with self._lock:
            self._popen = popen
            self.killed = False
            with contextlib.suppress(AttributeError, OSError):
                self._pidfd = os.pidfd_open(popen.pid)
            if self.stopped:
                self._signal()

    def _signal(self) -> None:
        popen = self._popen
        if popen is None:
            return
        self.killed = True
        with contextlib.suppress(OSError):
            if self._pidfd is not None:
                signal_module.pidfd_send_signal(self._pidfd, signal_module.SIGKILL)
            else:
                popen.kill()

    def kill(self) -> None:
        """Kill the attached process (for a time limit or a cap). Safe to call repeatedly."""
        with self._lock:
            self._signal()

    def stop(self) -> None:
        """The caller gave up: kill the process, now or as soon as one is attached."""
        with self._lock:
            self.stopped = True
            self._signal()

    def detach(self) -> subprocess.Popen[bytes] | None:
        """Stop being in charge (the process lives on, e.g. an idle worker): no signal after."""
        with self._lock:
            popen, self._popen = self._popen, None
            if self._pidfd is not None:
                os.close(self._pidfd)
                self._pidfd = None
        return popen

    def reap(self) -> int:
        """Wait for the process to end (after its pipes were drained) and return its status."""
        popen = self._popen
        assert popen is not None
        status = popen.wait()
        self.detach()
        return status


def pump_output(
    child: Child,
    on_stdout: Callable[[bytes], bool],
    deadline: float,
) -> tuple[bytes, bool]:
    """Read the child's stdout and stderr to their ends; returns (stderr, timed out).

    ``on_stdout`` gets each chunk and returns False to stop (the child is then killed and the
    rest of its output discarded). At ``deadline`` (``time.monotonic()``) the child is killed.
    Both pipes are always read to EOF, so a full pipe can never hold the child up.
    """
    popen = child.popen
    assert popen is not None
    assert popen.stdout is not None
    assert popen.stderr is not None
    stderr: list[bytes] = []
    timed_out = False
    wanted = True
    seen_killed: float | None = None
    with selectors.DefaultSelector() as selector:
        selector.register(popen.stdout.fileno(), selectors.EVENT_READ, "out")
        selector.register(popen.stderr.fileno(), selectors.EVENT_READ, "err")
        while selector.get_map():
            now = time.monotonic()
            if now >= deadline and not child.killed:
                timed_out = True
                child.kill()
            if child.killed and seen_killed is None:
                seen_killed = now
            if seen_killed is not None and now - seen_killed > _DRAIN:
                break  # killed, and still no EOF: something else holds the pipe open
            wait = _DRAIN if seen_killed is not None else max(deadline - now, 0.0)
            events = selector.select(timeout=wait)  # a kill from elsewhere ends in EOF
            for key, _ in events:
                fd = int(key.fd)
                chunk = os.read(fd, _READ)
                if not chunk:
                    selector.unregister(fd)
                elif key.data == "err":
                    stderr.append(chunk)
                elif wanted and not child.killed and not on_stdout(chunk):
                    wanted = False
                    child.kill()
    return b"".join(stderr), timed_out


async def run_blocking(job: Callable[[], T], child: Child, signal: AbortSignal) -> T:
    """Run ``job`` in a new thread; an abort or a cancellation kills ``child`` first.

    ``job`` must return soon once ``child`` is killed (it reads the child's pipes to EOF).
    A cancellation is re-raised after the child was killed; the job then finishes on its own.
    """
    loop = asyncio.get_running_loop()
    done: asyncio.Future[T] = loop.create_future()

    def deliver(*outcome: Any) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is already closed
            loop.call_soon_threadsafe(settle, *outcome)

    def settle(result: T | None, error: BaseException | None) -> None:
        if done.cancelled():
            return
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(result)  # type: ignore[arg-type]

    def target() -> None:
        try:
            result = job()
        except BaseException as exc:
            deliver(None, exc)
        else:
            deliver(result, None)

    threading.Thread(target=target, name="qwen-tools-search", daemon=True).start()
    aborted: asyncio.Future[None] = asyncio.ensure_future(signal.wait())
    try:
        waiting: set[asyncio.Future[Any]] = {done, aborted}
        await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
        if not done.done():
            child.stop()
        return await done
    except BaseException:
        child.stop()
        raise
    finally:
        aborted.cancel()
