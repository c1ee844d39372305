"""Running one shell command to completion: spawn, capture, timeout, cancellation, clean-up.

The command runs as ``bash -c <command>`` (or the argv a sandbox wraps around it) in a new session,
so it leads its own process group; stdin is ``/dev/null``; stdout and stderr are two pipes read
without blocking the event loop and fed to an :class:`~.output.OutputCapture`. The environment
is the current one minus Qwen Code's internal secrets, plus ``QWEN_CODE=1``,
``TERM=xterm-256color``, ``PAGER=cat`` and the session id.

Every command is a process tree of :mod:`qwen_tools.process` (its own cgroup where possible,
else found through /proc, our process being a child subreaper): job control, ``setsid`` and
double forks do not take a process out of it. Timeout and cancellation end the whole tree:
``SIGTERM`` to every member, then ``SIGKILL`` to every member 200 ms later (whether or not the
leader is gone, so processes that ignore ``SIGTERM`` go too); :func:`run_foreground` returns once
they have all died. When the command exits by itself, its output is read until both pipes close,
for at most 250 ms: a child it left running in the background (``sleep 300 & echo started``)
keeps the pipes open but does not hold up the result, and is left running, as in Qwen Code,
until the session ends (:func:`qwen_tools.process.supervisor.end_all`).

A spawn failure (missing working directory, missing ``bash``) is reported the way Node words it,
``spawn bash ENOENT``, with exit code 1.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import signal as signals
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from qwen_tools.contract.abort import AbortSignal
from qwen_tools.process import supervisor
from qwen_tools.shell.output import DEFAULT_MAX_BUFFERED_BYTES, OutputCapture, Stream

__all__ = [
    "INTERNAL_SECRET_ENV_VARS",
    "PipeReader",
    "ShellRun",
    "kill_process_group",
    "kill_process_tree",
    "kill_tree_now",
    "run_foreground",
    "shell_argv",
    "shell_env",
    "spawn_error_message",
    "spawn_process",
    "watch_spawns",
]

INTERNAL_SECRET_ENV_VARS = frozenset(
    {
        "QWEN_SERVER_TOKEN",
        "QWEN_DAEMON_TOKEN",
        "QWEN_CODE_EXTERNAL_TOOL_GUARD_TOKEN",
        "QWEN_CODE_PRIVATE_ACP_CAPABILITY",
    }
)
"""Variables Qwen Code never passes to the commands it runs (matched case-insensitively)."""

SIGKILL_DELAY_S = 0.2
POST_EXIT_DRAIN_S = 0.25
LIVE_UPDATE_INTERVAL_S = 0.1
_READ_SIZE = 65536


def shell_argv(command: str) -> list[str]:
    """``["bash", "-c", command]``."""
    return ["bash", "-c", command]


def shell_env(
    session_id: str | None = None, base: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment of a command: ``base`` (default ``os.environ``) sanitised, plus ours."""
    source = os.environ if base is None else base
    env = {k: v for k, v in source.items() if k.upper() not in INTERNAL_SECRET_ENV_VARS}
    env.update({"QWEN_CODE": "1", "TERM": "xterm-256color", "PAGER": "cat"})
    if session_id:
        env["QWEN_CODE_SESSION_ID"] = session_id
    return env


def spawn_error_message(executable: str, exc: OSError) -> str:
    """Node's wording for a failed spawn, e.g. ``spawn bash ENOENT``."""
    code = errno.errorcode.get(exc.errno or 0, "UNKNOWN")
    return f"spawn {executable} {code}"


class PipeReader:
    """Reads one pipe through the event loop and hands every chunk to ``sink`` until EOF."""

    def __init__(self, fd: int, sink: Callable[[bytes], None]) -> None:
        self._fd: int | None = fd
        self._sink = sink
        self._loop = asyncio.get_running_loop()
        self.eof: asyncio.Future[None] = self._loop.create_future()
        os.set_blocking(fd, False)
        self._loop.add_reader(fd, self._on_readable)

    def _on_readable(self) -> None:
        if self._fd is None:
            return
        try:
            data = os.read(self._fd, _READ_SIZE)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if data:
            self._sink(data)
        else:
            self.close()

    def close(self) -> None:
        """Stop reading and close the pipe (idempotent)."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        self._loop.remove_reader(fd)
        os.close(fd)
        if not self.eof.done():
            self.eof.set_result(None)


_spawn_watchers: list[Callable[[int], None]] = []


def watch_spawns(callback: Callable[[int], None]) -> None:
    """Call ``callback(leader pid)`` for every command this process spawns from now on (a pool
    worker notes them for its guardian: :mod:`qwen_tools.pool.guardian`)."""
    _spawn_watchers.append(callback)


async def spawn_process(
    argv: Sequence[str],
    *,
    cwd: str,
    env: Mapping[str, str],
    on_data: Callable[[bytes, Stream], None],
    stdin_fd: int | None = None,
) -> tuple[asyncio.subprocess.Process, list[PipeReader]]:
    """Start ``argv`` in its own session with both outputs piped.

    Its stdin is ``stdin_fd`` when given (the caller keeps ownership of that descriptor),
    else ``/dev/null``. Raises ``OSError`` when the process cannot be started.
    """
    launch = supervisor.prepare()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    # read-only /dev/null, as Node's "ignore" opens it
    stdin = os.open(os.devnull, os.O_RDONLY) if stdin_fd is None else stdin_fd
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            stdin=stdin,
            stdout=out_w,
            stderr=err_w,
            cwd=cwd,
            env=launch.environment(env),
            start_new_session=True,
            preexec_fn=launch.preexec,
        )
    except BaseException:
        for fd in (out_r, out_w, err_r, err_w):
            os.close(fd)
        launch.abandon()
        raise
    finally:
        if stdin_fd is None:
            os.close(stdin)
    os.close(out_w)
    os.close(err_w)
    tree = launch.started(proc.pid)
    for watcher in _spawn_watchers:
        watcher(proc.pid)
    if tree is not None:

        def leader_exited(waited: asyncio.Future[int]) -> None:
            if not waited.cancelled():  # (cancelled: the loop is closing, the leader may run)
                supervisor.settle(tree)

        asyncio.ensure_future(proc.wait()).add_done_callback(leader_exited)
    readers = [
        PipeReader(out_r, lambda data: on_data(data, "stdout")),
        PipeReader(err_r, lambda data: on_data(data, "stderr")),
    ]
    return proc, readers


def _signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


async def kill_process_tree(pid: int, exited: asyncio.Future[int]) -> None:
    """End the tree of leader ``pid``: ``SIGTERM`` to all, 200 ms for the leader, ``SIGKILL``.

    Returns once every member has died. Without tracking (not Linux), the process group.
    """
    tree = supervisor.tree_of(pid)
    if tree is not None:
        await tree.terminate(exited, SIGKILL_DELAY_S)
    else:
        _signal_group(pid, signals.SIGTERM)
        await asyncio.wait({exited}, timeout=SIGKILL_DELAY_S)
        _signal_group(pid, signals.SIGKILL)
    await asyncio.wait({exited}, timeout=5)


kill_process_group = kill_process_tree
"""The former name of :func:`kill_process_tree`."""


def kill_tree_now(pid: int) -> None:
    """``SIGKILL`` the whole tree of leader ``pid`` now, without waiting (synchronous)."""
    tree = supervisor.tree_of(pid)
    if tree is not None:
        tree.kill_now()
    _signal_group(pid, signals.SIGKILL)


async def drain(readers: Sequence[PipeReader], timeout: float = POST_EXIT_DRAIN_S) -> None:
    """Let the readers reach EOF for at most ``timeout`` seconds, then close them."""
    pending = {r.eof for r in readers if not r.eof.done()}
    if pending:
        await asyncio.wait(pending, timeout=timeout)
    for reader in readers:
        reader.close()


@dataclass(frozen=True, slots=True)
class ShellRun:
    """How one foreground command ended."""

    output: str
    exit_code: int | None
    signal: int | None
    error: str | None
    aborted: bool
    timed_out: bool
    binary: bool
    pid: int | None
    elapsed_ms: float


class _LiveOutput:
    """Calls ``on_output`` with the capture's live text at most once per interval."""

    def __init__(self, capture: OutputCapture, on_output: Callable[[str], None] | None) -> None:
        self._capture = capture
        self._on_output = on_output
        self._loop = asyncio.get_running_loop()
        self._last = float("-inf")
        self._timer: asyncio.TimerHandle | None = None
        self._sent_binary = False

    def changed(self) -> None:
        if self._on_output is None or self._sent_binary:
            return
        if self._capture.binary:
            self.flush()
            return
        wait = self._last + LIVE_UPDATE_INTERVAL_S - self._loop.time()
        if wait <= 0:
            self.flush()
        elif self._timer is None:
            self._timer = self._loop.call_later(wait, self.flush)

    def flush(self) -> None:
        self.cancel()
        if self._on_output is None or self._sent_binary:
            return
        self._last = self._loop.time()
        self._sent_binary = self._capture.binary
        self._on_output(self._capture.live_text())

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


def _exit_status(returncode: int | None) -> tuple[int | None, int | None]:
    if returncode is None:
        return None, None
    if returncode < 0:
        return None, -returncode
    return returncode, None


async def run_foreground(
    argv: Sequence[str],
    *,
    cwd: str,
    env: Mapping[str, str],
    signal: AbortSignal,
    timeout_ms: int | None = None,
    on_output: Callable[[str], None] | None = None,
    max_buffered_bytes: int = DEFAULT_MAX_BUFFERED_BYTES,
) -> ShellRun:
    """Run ``argv`` until it exits, times out (``timeout_ms``; ``None``/0 = never) or ``signal`` fires."""
    started = time.monotonic()
    capture = OutputCapture(max_buffered_bytes)
    live = _LiveOutput(capture, on_output)

    def on_data(data: bytes, stream: Stream) -> None:
        capture.feed(data, stream)
        live.changed()

    def elapsed() -> float:
        return (time.monotonic() - started) * 1000

    try:
        proc, readers = await spawn_process(argv, cwd=cwd, env=env, on_data=on_data)
    except OSError as exc:
        return ShellRun(
            output="",
            exit_code=1,
            signal=None,
            error=spawn_error_message(argv[0], exc),
            aborted=signal.aborted,
            timed_out=False,
            binary=False,
            pid=None,
            elapsed_ms=elapsed(),
        )
    exited: asyncio.Future[int] = asyncio.ensure_future(proc.wait())
    aborted = asyncio.ensure_future(signal.wait())
    timed_out = False
    try:
        timeout = timeout_ms / 1000 if timeout_ms else None
        waiters: set[asyncio.Future[Any]] = {exited, aborted}
        done, _ = await asyncio.wait(waiters, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if exited not in done:
            timed_out = aborted not in done
            await kill_process_tree(proc.pid, exited)
        await drain(readers)
    finally:
        aborted.cancel()
        live.cancel()
        for reader in readers:
            reader.close()
        if not exited.done():
            kill_tree_now(proc.pid)
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(asyncio.shield(exited), 5)
    output = capture.finish()
    if on_output is not None and not capture.binary and output:
        on_output(output)
    exit_code, sig = _exit_status(proc.returncode)
    return ShellRun(
        output=output,
        exit_code=exit_code,
        signal=sig,
        error=None,
        aborted=timed_out or signal.aborted,
        timed_out=timed_out,
        binary=capture.binary,
        pid=proc.pid,
        elapsed_ms=elapsed(),
    )
