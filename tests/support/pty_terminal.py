"""A program on a real pseudo-terminal, driven like a person would (for ``chat``'s tests).

The pty becomes the child's controlling terminal, so Ctrl-C typed into it sends ``SIGINT`` to
the child's foreground process group, as in a terminal emulator; cursor-position requests are
answered as a terminal would. :meth:`PtyTerminal.expect` waits for text to appear (its
deadline is a safety net, not a timing assertion).
"""

from __future__ import annotations

import fcntl
import os
import re
import select
import signal
import struct
import subprocess
import termios
import time
from pathlib import Path

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\x1b[=>]|\r")
CPR_REQUEST = b"\x1b[6n"
ROWS, COLUMNS = 40, 110


def _controlling_terminal() -> None:
    """In the child, after ``setsid``: make the pty its terminal, so Ctrl-C sends ``SIGINT``."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class PtyTerminal:
    """``args`` running on a pseudo-terminal; what it printed so far is in :attr:`raw`."""

    def __init__(
        self,
        args: list[str],
        env: dict[str, str],
        cwd: Path,
        size: tuple[int, int] = (ROWS, COLUMNS),
    ) -> None:
        """``size`` is (rows, columns)."""
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", *size, 0, 0))
        self.process = subprocess.Popen(
            args,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            cwd=cwd,
            start_new_session=True,
            preexec_fn=_controlling_terminal,
        )
        os.close(slave)
        self.raw = b""
        self.mark = 0
        """Where the next :meth:`expect` starts searching (in :attr:`text`)."""

    @property
    def text(self) -> str:
        """The output without colours and cursor movements."""
        return ANSI.sub("", self.raw.decode("utf-8", "replace"))

    def _read(self, wait: float) -> bool:
        ready, _, _ = select.select([self.master], [], [], wait)
        if not ready:
            return True
        try:
            chunk = os.read(self.master, 65536)
        except OSError:  # EIO: the program has exited and closed the terminal
            return False
        if not chunk:
            return False
        requests = chunk.count(CPR_REQUEST)
        self.raw += chunk
        for _ in range(requests):  # what a terminal answers: the cursor is at row 1, column 1
            os.write(self.master, b"\x1b[1;1R")
        return True

    def expect(self, pattern: str, timeout: float = 60) -> re.Match[str]:
        """Wait until ``pattern`` (a regex) appears after the previous match."""
        compiled = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while True:
            found = compiled.search(self.text, self.mark)
            if found:
                self.mark = found.end()
                return found
            if time.monotonic() > deadline or not self._read(0.1):
                found = compiled.search(self.text, self.mark)
                if found:
                    self.mark = found.end()
                    return found
                raise AssertionError(f"{pattern!r} never appeared; the screen got:\n{self.text}")

    def prompt(self) -> None:
        """Wait for an input prompt (in its box: ``│ > ``, the padding may be a cursor move)."""
        self.expect(r"(?m)^│ ?> ")

    def send(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def finish(self, timeout: float = 60) -> int:
        """Read until the program exits; its exit code."""
        deadline = time.monotonic() + timeout
        while self._read(0.1):
            if self.process.poll() is not None and not select.select([self.master], [], [], 0)[0]:
                break
            if time.monotonic() > deadline:
                raise AssertionError(f"the program did not exit; the screen got:\n{self.text}")
        return self.process.wait(timeout=max(deadline - time.monotonic(), 1))

    def close(self) -> None:
        """Kill the program (if still running) and close the terminal; closing twice is fine."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        if self.master >= 0:
            os.close(self.master)
            self.master = -1
