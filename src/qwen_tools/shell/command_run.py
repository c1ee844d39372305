"""Running a command to its end: its own process group, stdin, caps, timeout, abort.

:func:`run_command` starts an argv (no shell) in a new session, so the command leads its own
process group, with a sanitised copy of the environment (Qwen Code's internal secrets removed,
nothing added) unless ``env`` is given. Its stdin is ``/dev/null`` or a pipe that receives
``input_data`` and is then closed. stdout and stderr are read through the event loop; each keeps
at most ``max_stream_bytes`` bytes, and going past that ends the run (or, with
``kill_on_overflow=False``, only stops keeping what comes after).

The run ends when the leader exits (its pipes are then read to their end for at most half a
second, so a background child holding them open does not hold the result up), when the timeout
expires, when the abort signal fires, or when a stream goes over its cap. In the last three
cases the whole tree gets ``SIGTERM``, then ``SIGKILL`` 200 ms later
(:func:`~qwen_tools.shell.execution.kill_process_group`).

A command that cannot be started is reported as Node reports it: ``spawn <program> <ERRNO>``,
with exit code ``-errno``. The discovery and call commands (:mod:`qwen_tools.discovery`) and the
hook commands (:mod:`qwen_tools.hooks`) run through here.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal as signals
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from qwen_tools.contract.abort import AbortSignal
from qwen_tools.shell.execution import (
    INTERNAL_SECRET_ENV_VARS,
    PipeReader,
    kill_process_group,
    spawn_error_message,
    spawn_process,
)
from qwen_tools.shell.output import Stream

__all__ = ["MAX_STREAM_BYTES", "CommandRun", "child_env", "run_command", "signal_name"]

MAX_STREAM_BYTES = 10 * 1024 * 1024
"""The per-stream cap (10 MiB), as Qwen Code applies it to the discovery command."""

POST_EXIT_GRACE_S = 0.5


def child_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """``base`` (default ``os.environ``) without Qwen Code's internal secret variables."""
    source = os.environ if base is None else base
    return {k: v for k, v in source.items() if k.upper() not in INTERNAL_SECRET_ENV_VARS}


def signal_name(number: int) -> str:
    """A signal as Node names it (``SIGKILL``); the number if it has no name."""
    try:
        return signals.Signals(number).name
    except ValueError:
        return str(number)


@dataclass(frozen=True, slots=True)
class CommandRun:
    """How one command ended, with what it printed (UTF-8, bad bytes replaced)."""

    stdout: str
    stderr: str
    exit_code: int | None
    """The exit status; ``None`` when a signal ended the process; ``-errno`` on spawn failure."""
    signal: int | None
    """The number of the signal that ended the process, if one did."""
    spawn_error: str | None = None
    """``spawn <program> <ERRNO>`` when the process could not be started."""
    timed_out: bool = False
    aborted: bool = False
    overflow: bool = False
    """A stream went over the cap and the process group was killed."""
    pid: int | None = None

    @property
    def succeeded(self) -> bool:
        """Exit code 0, no signal, and nothing ended it early."""
        return (
            self.exit_code == 0
            and self.signal is None
            and self.spawn_error is None
            and not (self.timed_out or self.aborted or self.overflow)
        )


class _Capture:
    """Bytes of one stream, up to a limit."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.chunks: list[bytes] = []
        self.size = 0

    def feed(self, data: bytes) -> bool:
        """Keep ``data`` (cut at the limit); ``False`` once the limit is passed."""
        room = self.limit - self.size
        if len(data) > room:
            if room > 0:
                self.chunks.append(data[:room])
                self.size = self.limit
            return False
        self.chunks.append(data)
        self.size += len(data)
        return True

    def text(self) -> str:
        return b"".join(self.chunks).decode("utf-8", errors="replace")


class _PipeWriter:
    """Writes ``data`` to a pipe through the event loop, then closes it (EPIPE ends it early)."""

    def __init__(self, fd: int, data: bytes) -> None:
        self._fd: int | None = fd
        self._view = memoryview(data)
        self._loop = asyncio.get_running_loop()
        os.set_blocking(fd, False)
        if self._view:
            self._loop.add_writer(fd, self._on_writable)
        else:
            self.close()

    def _on_writable(self) -> None:
        if self._fd is None:
            return
        try:
            written = os.write(self._fd, self._view[:65536])
        except (BlockingIOError, InterruptedError):
            return
        except OSError:  # the command closed its stdin (EPIPE): stop feeding it
            self.close()
            return
        self._view = self._view[written:]
        if not self._view:
            self.close()

    def close(self) -> None:
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        self._loop.remove_writer(fd)
        os.close(fd)


async def _spawn(
    argv: Sequence[str],
    cwd: str,
    env: Mapping[str, str],
    input_data: bytes | None,
    captures: dict[str, _Capture],
    overflowed: asyncio.Future[None],
) -> tuple[asyncio.subprocess.Process, list[PipeReader], _PipeWriter | None]:
    def on_data(data: bytes, stream: Stream) -> None:
        if not captures[stream].feed(data) and not overflowed.done():
            overflowed.set_result(None)

    if input_data is None:
        proc, readers = await spawn_process(argv, cwd=cwd, env=env, on_data=on_data)
        return proc, readers, None
    in_r, in_w = os.pipe()
    try:
        proc, readers = await spawn_process(argv, cwd=cwd, env=env, on_data=on_data, stdin_fd=in_r)
    except BaseException:
        os.close(in_w)
        raise
    finally:
        os.close(in_r)
    return proc, readers, _PipeWriter(in_w, input_data)


async def run_command(
    argv: Sequence[str],
    *,
    cwd: str,
    env: Mapping[str, str] | None = None,
    input_data: bytes | None = None,
    timeout_s: float | None = None,
    signal: AbortSignal | None = None,
    max_stream_bytes: int = MAX_STREAM_BYTES,
    kill_on_overflow: bool = True,
) -> CommandRun:
    """Run ``argv`` to its end (see the module docstring); never raises for the command's sake.

    ``timeout_s`` ``None`` or 0 means no time limit.
    """
    captures = {"stdout": _Capture(max_stream_bytes), "stderr": _Capture(max_stream_bytes)}
    loop = asyncio.get_running_loop()
    overflowed: asyncio.Future[None] = loop.create_future()
    try:
        proc, readers, writer = await _spawn(
            argv, cwd, child_env() if env is None else env, input_data, captures, overflowed
        )
    except OSError as exc:
        return CommandRun(
            stdout="",
            stderr="",
            exit_code=-(exc.errno or 0),
            signal=None,
            spawn_error=spawn_error_message(argv[0], exc),
        )
    exited: asyncio.Future[int] = asyncio.ensure_future(proc.wait())
    aborted = asyncio.ensure_future((signal or AbortSignal.never()).wait())
    timed_out = was_aborted = False
    try:
        waiters: set[asyncio.Future[Any]] = {exited, aborted}
        if kill_on_overflow:
            waiters.add(overflowed)
        done, _ = await asyncio.wait(
            waiters, timeout=timeout_s or None, return_when=asyncio.FIRST_COMPLETED
        )
        if exited not in done:
            was_aborted = aborted in done
            timed_out = not done
            await kill_process_group(proc.pid, exited)
        pending = {r.eof for r in readers if not r.eof.done()}
        if pending:
            await asyncio.wait(pending, timeout=POST_EXIT_GRACE_S)
    finally:
        aborted.cancel()
        if writer is not None:
            writer.close()
        for reader in readers:
            reader.close()
        if not exited.done():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signals.SIGKILL)
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(asyncio.shield(exited), 5)
    code = proc.returncode
    return CommandRun(
        stdout=captures["stdout"].text(),
        stderr=captures["stderr"].text(),
        exit_code=code if code is None or code >= 0 else None,
        signal=-code if code is not None and code < 0 else None,
        timed_out=timed_out,
        aborted=was_aborted,
        overflow=overflowed.done() and kill_on_overflow,
        pid=proc.pid,
    )
