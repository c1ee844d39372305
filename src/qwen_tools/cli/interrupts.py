"""Stop signals and the CLI's lifetime: nothing the CLI started outlives it.

:func:`process_lifetime` wraps a whole CLI run: our process becomes a child subreaper (orphans
of the commands we run are re-parented to us), ``SIGTERM`` and ``SIGHUP`` raise
:class:`Terminated` (as ``SIGINT`` raises ``KeyboardInterrupt``) so that clean-up code runs, and
at the end every process below ours is killed (:func:`~qwen_tools.process.supervisor.end_all`).
A subreaper with no child has no descendant at all, so a run that started nothing (a built-in
``call``) ends without loading the supervisor.

:class:`Interrupts` is for the time an event loop runs calls: the first ``SIGINT``, ``SIGTERM``
or ``SIGHUP`` aborts the current call (its command's whole tree is ended by the tool) and is
remembered, so the command can stop and exit with ``128 + signal`` (130, 143, 129); a second one
ends the process at once, after killing every process below it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from qwen_tools.contract.abort import AbortController

__all__ = ["STOP_SIGNALS", "Interrupts", "Terminated", "exit_code", "process_lifetime"]

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Terminated(BaseException):
    """``SIGTERM`` or ``SIGHUP`` arrived (raised in the main thread, like ``KeyboardInterrupt``)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def exit_code(signum: int) -> int:
    """The shell's convention: ``128 + signal`` (130 for ``SIGINT``)."""
    return 128 + signum


def _raise_terminated(signum: int, _frame: Any) -> None:
    raise Terminated(signum)


def hard_exit(signum: int) -> None:
    """End now: kill every process below ours, then exit with ``128 + signum``."""
    with contextlib.suppress(BaseException):
        from qwen_tools.process import supervisor

        supervisor.become_subreaper()  # already one (process_lifetime): the supervisor learns it
        supervisor.end_all(descendants=True)
    with contextlib.suppress(BaseException):
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(exit_code(signum))


_SUPERVISOR = "qwen_tools.process.supervisor"


def _become_subreaper() -> bool:
    """Make this process a child subreaper (through the supervisor once it is loaded)."""
    if _SUPERVISOR in sys.modules:
        return bool(sys.modules[_SUPERVISOR].become_subreaper())
    from qwen_tools.process import procfs
    from qwen_tools.process.prctl import set_child_subreaper

    return procfs.available() and set_child_subreaper()


def _end_descendants(subreaper: bool) -> None:
    """Kill every process below ours; nothing to load or scan when there cannot be one.

    With the supervisor loaded, trees may be registered: it ends them. Otherwise a subreaper
    without a child has no descendant (every orphan below it is re-parented to it).
    """
    if subreaper and _SUPERVISOR not in sys.modules:
        from qwen_tools.process import procfs

        if not procfs.children_of_self():
            return
    from qwen_tools.process import supervisor

    if subreaper:
        supervisor.become_subreaper()  # already one: the supervisor needs to know it
    supervisor.end_all(descendants=True)


@contextlib.contextmanager
def process_lifetime() -> Iterator[None]:
    """One CLI run (see the module docstring)."""
    subreaper = _become_subreaper()
    previous: dict[int, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for stop in (signal.SIGTERM, signal.SIGHUP):
            previous[stop] = signal.signal(stop, _raise_terminated)
    try:
        yield
    finally:
        if previous:  # the clean-up is bounded; a signal now must not cut it short
            for stop in STOP_SIGNALS:
                previous.setdefault(stop, signal.getsignal(stop))
                signal.signal(stop, signal.SIG_IGN)
        try:
            _end_descendants(subreaper)
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)


class Interrupts:
    """Stop signals while an event loop runs calls (see the module docstring).

    Use as ``with interrupts.installed():`` inside the loop; point :attr:`controller` at the
    controller of the call in flight.
    """

    def __init__(self, controller: AbortController | None = None) -> None:
        self.controller = controller
        self.signum: int | None = None
        """The first stop signal received, if any."""
        self.on_signal: Callable[[int], None] | None = None

    @property
    def code(self) -> int | None:
        """The exit code the signal calls for, if one arrived."""
        return None if self.signum is None else exit_code(self.signum)

    def _handle(self, signum: int) -> None:
        if self.signum is not None:
            hard_exit(signum)
        self.signum = signum
        if self.controller is not None:
            self.controller.abort("interrupted")
        if self.on_signal is not None:
            self.on_signal(signum)

    @contextlib.contextmanager
    def installed(self) -> Iterator[Interrupts]:
        """Handle the stop signals through the running loop; restore the handlers after."""
        import asyncio

        loop = asyncio.get_running_loop()
        installed: dict[int, Any] = {}
        for stop in STOP_SIGNALS:
            previous = signal.getsignal(stop)
            try:
                loop.add_signal_handler(stop, self._handle, int(stop))
            except (NotImplementedError, RuntimeError, ValueError):  # not the main thread
                continue
            installed[stop] = previous
        try:
            yield self
        finally:
            for signum, previous in installed.items():
                loop.remove_signal_handler(signum)
                # remove_signal_handler leaves the default action; put back what was there
                if previous is not None:
                    signal.signal(signum, previous)
