"""The terminal while a turn runs: typed keys are not echoed, Ctrl-C cancels the turn.

Between prompts the terminal stays in its normal mode with echo and line editing switched off
(keys typed ahead wait for the next prompt instead of scribbling over the live region), but
signals on, so Ctrl-C arrives as ``SIGINT``. The first one aborts the turn's ``AbortSignal``
(the model stream and the running tools stop, the session goes on); a second one, if the turn
has still not ended, cancels the turn's task outright.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Callable
from typing import Any


class TurnTerminal:
    """Owns the terminal settings and the ``SIGINT`` handler for the duration of a turn."""

    def __init__(self, fd: int | None = None) -> None:
        if fd is None:
            try:
                fd = sys.stdin.fileno()
            except (AttributeError, ValueError, OSError):
                fd = -1
        self.fd = fd
        self._saved: list[Any] | None = None
        self._handler_installed = False

    def quiet(self) -> None:
        """Stop echoing typed keys (signals stay on)."""
        if self._saved is not None or self.fd < 0 or not os.isatty(self.fd):
            return
        import termios

        try:
            saved = termios.tcgetattr(self.fd)
            quiet = [*saved]
            quiet[3] = saved[3] & ~(termios.ECHO | termios.ICANON) | termios.ISIG
            termios.tcsetattr(self.fd, termios.TCSANOW, quiet)
        except termios.error:
            return
        self._saved = saved

    def restore(self) -> None:
        """Give the terminal back its settings (before a dialog, an editor, or the prompt)."""
        if self._saved is None:
            return
        import termios

        saved, self._saved = self._saved, None
        with contextlib.suppress(termios.error):
            termios.tcsetattr(self.fd, termios.TCSANOW, saved)

    def on_interrupt(self, first: Callable[[], None], again: Callable[[], None]) -> None:
        """Route ``SIGINT``: ``first`` on the first press, ``again`` on the next ones."""
        presses = [0]

        def handle() -> None:
            presses[0] += 1
            (first if presses[0] == 1 else again)()

        loop = asyncio.get_running_loop()
        try:
            loop.add_signal_handler(signal.SIGINT, handle)
        except (NotImplementedError, RuntimeError, ValueError):  # not the main thread
            return
        self._handler_installed = True

    def end_turn(self) -> None:
        """Restore the terminal; a stray ``SIGINT`` until the next turn is ignored.

        (The prompt reads Ctrl-C as a key; a signal arriving just before it starts must not
        end the session.)
        """
        self.restore()
        if self._handler_installed:
            with contextlib.suppress(RuntimeError):
                asyncio.get_running_loop().add_signal_handler(signal.SIGINT, _ignore)

    def close(self) -> None:
        """Restore the terminal and Python's own ``SIGINT`` behaviour (the session is over)."""
        self.restore()
        if self._handler_installed:
            self._handler_installed = False
            with contextlib.suppress(RuntimeError):
                asyncio.get_running_loop().remove_signal_handler(signal.SIGINT)


def _ignore() -> None:
    return None
