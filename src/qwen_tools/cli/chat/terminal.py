"""The terminal while a turn runs: typed keys are not echoed, Ctrl-C and Esc cancel the turn.

Between prompts the terminal stays in its normal mode with echo and line editing switched off,
but signals on, so Ctrl-C arrives as ``SIGINT``. The first one aborts the turn's
``AbortSignal`` (the model stream and the running tools stop, the session goes on); a second
one, if the turn has still not ended, cancels the turn's task outright.

While the live region shows, the terminal's input is read here: a lone Esc cancels the turn
as Ctrl-C does, text typed ahead is kept for the next prompt (:meth:`TurnTerminal.take_typed`;
Backspace and Ctrl-U edit it, and the live region shows it, :meth:`TurnTerminal.peek_typed`),
Enter sends it into the running turn and Ctrl+Q queues it for when the turn ends (as Qwen
Code's "Enter to steer · Ctrl+Q to queue", :meth:`TurnTerminal.on_submit`; flow control is
off so that Ctrl+Q reaches us) and other keys are dropped. Nothing typed during a turn is left in the terminal's buffer, so a
stale Esc can never answer a later dialog or prompt.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import select
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
        self._reading = False
        self._on_escape: Callable[[], None] | None = None
        self._on_submit: Callable[[str, bool], None] | None = None
        self._typed: list[str] = []
        """The typed text, one character per item."""
        self._decoder = codecs.getincrementaldecoder("utf-8")("ignore")

    def quiet(self) -> None:
        """Stop echoing typed keys (signals stay on)."""
        if self._saved is not None or self.fd < 0 or not os.isatty(self.fd):
            return
        import termios

        try:
            saved = termios.tcgetattr(self.fd)
            quiet = [*saved]
            quiet[0] = saved[0] & ~termios.IXON  # Ctrl+Q is a key here, not XON
            quiet[3] = saved[3] & ~(termios.ECHO | termios.ICANON) | termios.ISIG
            termios.tcsetattr(self.fd, termios.TCSANOW, quiet)
        except termios.error:
            return
        self._saved = saved
        with contextlib.suppress(RuntimeError, ValueError, OSError):
            asyncio.get_running_loop().add_reader(self.fd, self._drain)
            self._reading = True

    def restore(self) -> None:
        """Give the terminal back its settings (before a dialog, an editor, or the prompt)."""
        if self._saved is None:
            return
        import termios

        if self._reading:
            self._reading = False
            with contextlib.suppress(RuntimeError, ValueError, OSError):
                asyncio.get_running_loop().remove_reader(self.fd)
            while select.select([self.fd], [], [], 0)[0] and self._drain():
                pass  # keys typed just before a dialog or the prompt: read here, not there
        saved, self._saved = self._saved, None
        with contextlib.suppress(termios.error):
            termios.tcsetattr(self.fd, termios.TCSANOW, saved)

    def take_typed(self) -> str:
        """The text typed during the last turn (for the next prompt); forgets it."""
        typed, self._typed = "".join(self._typed), []
        return typed

    def peek_typed(self) -> str:
        """The text typed so far during this turn (shown under the spinner)."""
        return "".join(self._typed)

    def _type(self, text: str) -> None:
        for char in text:
            if char in _ERASE:
                if self._typed:
                    self._typed.pop()
            elif char == _KILL:
                self._typed.clear()
            elif char in _SUBMIT:
                self._submit(steer=char != _QUEUE)
            else:
                self._typed.append(char)

    def _submit(self, *, steer: bool) -> None:
        text = "".join(self._typed).strip()
        if text and self._on_submit is not None:
            self._typed.clear()
            self._on_submit(text, steer)

    def on_submit(self, callback: Callable[[str, bool], None]) -> None:
        """Until the turn ends, Enter calls ``callback(text, True)`` (steer) and Ctrl+Q
        ``callback(text, False)`` (queue) with the text typed ahead, which is then cleared."""
        self._on_submit = callback

    def _drain(self) -> bool:
        """Read what was typed; ``False`` when nothing more can be read."""
        try:
            data = os.read(self.fd, 4096)
        except OSError:
            data = b""
        if not data:
            if self._reading:
                self._reading = False
                with contextlib.suppress(RuntimeError, ValueError, OSError):
                    asyncio.get_running_loop().remove_reader(self.fd)
            return False
        escape, text = parse_keys(data)
        self._type(self._decoder.decode(text))
        if escape and self._on_escape is not None:
            self._on_escape()
        return True

    def on_interrupt(self, first: Callable[[], None], again: Callable[[], None]) -> None:
        """Route ``SIGINT`` and Esc: ``first`` on the first press, ``again`` on the next ones.

        (Esc is never ``again``: a second Esc does nothing more than the first.)
        """
        presses = [0]

        def handle() -> None:
            presses[0] += 1
            (first if presses[0] == 1 else again)()

        def escape() -> None:
            if presses[0] == 0:
                handle()

        self._on_escape = escape

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
        self._on_escape = None
        self._on_submit = None
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


_ERASE = "\x7f\b"
_KILL = "\x15"
_QUEUE = "\x11"
_SUBMIT = "\r\n" + _QUEUE
_EDITING = frozenset({0x7F, 0x08, 0x15, 0x0D, 0x0A, 0x11})
"""Backspace (DEL or ^H), Ctrl-U, Enter and Ctrl+Q, kept by :func:`parse_keys` for the typed
text."""


def parse_keys(data: bytes) -> tuple[bool, bytes]:
    """Whether ``data`` holds a lone Esc, and its printable text (sequences and controls out,
    except Backspace, Ctrl-U, Enter and Ctrl+Q).

    A terminal sends Esc as a lone ``ESC`` byte; arrows and function keys are ``ESC [`` or
    ``ESC O`` sequences, Alt-x is ``ESC x``: those are not Esc.
    """
    escape = False
    text = bytearray()
    index = 0
    while index < len(data):
        byte = data[index]
        index += 1
        if byte == 0x1B:
            following = data[index] if index < len(data) else None
            if following is None or following == 0x1B:
                escape = True
            elif following in (0x5B, 0x4F):  # CSI / SS3: skip to the final byte
                index += 1
                while index < len(data) and not 0x40 <= data[index] <= 0x7E:
                    index += 1
                index += 1
            else:
                index += 1  # Alt + key
        elif byte >= 0x20 or byte in _EDITING:
            text.append(byte)
    return escape, bytes(text)
