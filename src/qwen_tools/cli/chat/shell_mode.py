"""``!command``: run a shell command from the chat, show its output, tell the model.

As Qwen Code's shell mode: the command runs in the workspace directory (``bash -c``, or ``sh``
without bash) with its output shown as it comes; the model is not asked, but the command and
its output are sent with the next prompt, in Qwen Code's words. Ctrl-C or Esc ends the command
(its process group).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from rich.console import Console

    from qwen_tools.cli.chat.terminal import TurnTerminal


def shell_report(command: str, output: str) -> str:
    """What the model is told (Qwen Code's text)."""
    return (
        f"I ran the following shell command:\n```sh\n{command}\n```\n\n"
        f"This produced the following result:\n```\n{output}\n```"
    )


async def run_shell_mode(command: str, cwd: Path, console: Console, terminal: TurnTerminal) -> str:
    """Run ``command``, print its output as it comes; the output (stdout and stderr)."""
    shell = shutil.which("bash") or "/bin/sh"
    process = await asyncio.create_subprocess_exec(
        shell,
        "-c",
        command,
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )

    def stop() -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)

    terminal.on_interrupt(stop, stop)
    terminal.quiet()
    lines: list[str] = []
    try:
        assert process.stdout is not None
        async for raw in process.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            lines.append(line)
            console.print(line, markup=False, highlight=False, style="dim")
        code = await process.wait()
    finally:
        terminal.end_turn()
        if process.returncode is None:
            stop()
            await process.wait()
    output = "\n".join(lines)
    if code != 0:
        console.print(f"[dim](exit code {code})[/]")
        output += f"\n(exit code {code})" if code > 0 else "\n(cancelled)"
    return output
