"""Driving ``qwen-tools chat`` in a pseudo-terminal: the program, its environment, what it sent."""

from __future__ import annotations

import os
import select
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyte

from support.cli_env import isolated_env
from support.processes import MARK_VAR
from support.pty_terminal import PtyTerminal

EXE = Path(sys.executable).with_name("qwen-tools")


def base_env(tmp_path: Path) -> dict[str, str]:
    return isolated_env(tmp_path, TERM="xterm-256color", **{MARK_VAR: os.environ[MARK_VAR]})


def user_texts(request: dict[str, Any]) -> list[str]:
    texts = []
    for message in request["messages"]:
        if message["role"] == "user":
            content = message["content"]
            texts.append(content if isinstance(content, str) else content[-1]["text"])
    return texts


class ScreenTerminal(PtyTerminal):
    """A :class:`PtyTerminal` whose screen is emulated (pyte) as the output comes, so that
    cursor-position requests get the real position, as from a terminal emulator (the plain
    harness always answers row 1, which makes prompt_toolkit fill and scroll the screen)."""

    def __init__(self, args: list[str], env: dict[str, str], cwd: Path, size: tuple[int, int]):
        super().__init__(args, env, cwd, size)
        rows, columns = size
        self.screen = pyte.Screen(columns, rows)
        self.screen.write_process_input = self._answer
        self._stream = pyte.ByteStream(self.screen)

    def _answer(self, data: str) -> None:
        os.write(self.master, data.encode())

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
        self.raw += chunk
        self._stream.feed(chunk)  # cursor-position requests are answered by the screen
        return True

    def wait_screen(self, check: Callable[[list[str]], bool], timeout: float = 60) -> pyte.Screen:
        """Read until ``check(rows of text)`` holds on the screen (the deadline is a safety
        net, not a timing assertion)."""
        deadline = time.monotonic() + timeout
        while not check(self.screen.display):
            if not self._read(0.1) or time.monotonic() > deadline:
                if check(self.screen.display):
                    break
                shown = "\n".join(self.screen.display)
                raise AssertionError(f"the screen never matched; it shows:\n{shown}")
        return self.screen


def screen(term: PtyTerminal, size: tuple[int, int]) -> pyte.Screen:
    """What a VT100 terminal of ``size`` (rows, columns) shows after all ``term`` printed."""
    rows, columns = size
    shown = pyte.Screen(columns, rows)
    pyte.ByteStream(shown).feed(term.raw)
    return shown


def input_box(rows: list[str]) -> list[str]:
    """The rows of the last input box on the screen, its borders included (``[]``: none)."""
    tops = [i for i, row in enumerate(rows) if row.startswith("╭")]
    if not tops:
        return []
    top = tops[-1]
    bottom = next((i for i in range(top, len(rows)) if rows[i].startswith("╰")), None)
    return [] if bottom is None else rows[top : bottom + 1]
