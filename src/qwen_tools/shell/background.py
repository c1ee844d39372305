"""Background shells: commands started with ``is_background: true`` that outlive the tool call.

Each shell gets an id ``bg_<8 hex>``, runs in its own process group, and streams its output
(stdout and stderr as they come, ANSI stripped, nothing after binary output is detected) to
``<dir>/shell-<id>.output``. A sibling ``shell-<id>.status`` file (JSON, mode 0600, replaced
atomically) mirrors its state as Qwen Code 0.24.4 writes it: ``id``, ``status``
(``running|completed|failed|cancelled``), ``command``, ``cwd``, ``startTime``, ``updatedAt``,
then ``pid``, ``endTime``, ``exitCode`` (completed) or ``error`` (failed: ``exited with code N``,
``terminated by signal N`` or the spawn error) when known.

:class:`BackgroundShellRegistry` lives on the session (``config.session.background_shells``):
:meth:`~BackgroundShellRegistry.list`, :meth:`~BackgroundShellRegistry.get`,
:meth:`~BackgroundShellRegistry.stop` (``SIGTERM`` then ``SIGKILL`` to the shell's whole process
tree, see :mod:`qwen_tools.process`; status ``cancelled``) and
:meth:`~BackgroundShellRegistry.stop_all`. The shells are supervised by tasks of the event loop
that started them; when that loop shuts down, they are killed and marked ``cancelled``: a
background shell lives as long as its session, never longer. At most 32 finished shells are
remembered (the oldest are forgotten first).

This module imports ``asyncio`` only when a shell is started, so creating a session stays cheap.
"""

from __future__ import annotations

import builtins
import json
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    import asyncio

    from qwen_tools.shell.execution import PipeReader

__all__ = ["BackgroundShell", "BackgroundShellRegistry", "BackgroundStatus", "status_path_for"]

BackgroundStatus = Literal["running", "completed", "failed", "cancelled"]

MAX_RETAINED_TERMINAL_SHELLS = 32
POST_EXIT_DRAIN_S = 1.0


def status_path_for(output_path: str) -> str:
    """The status file next to an output file (``.output`` → ``.status``)."""
    stem = output_path.removesuffix(".output")
    return f"{stem}.status" if stem != output_path else f"{output_path}.status"


def _iso(epoch: float) -> str:
    from datetime import UTC, datetime  # imported when a shell's status is written

    moment = datetime.fromtimestamp(epoch, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class BackgroundShell:
    """One background shell and its current state."""

    id: str
    command: str
    cwd: str
    output_path: str
    start_time: float = field(default_factory=time.time)
    pid: int | None = None
    status: BackgroundStatus = "running"
    end_time: float | None = None
    exit_code: int | None = None
    error: str | None = None
    _stop_requested: bool = field(default=False, repr=False)
    _exited: asyncio.Future[int] | None = field(default=None, repr=False)
    _task: asyncio.Task[None] | None = field(default=None, repr=False)

    @property
    def status_path(self) -> str:
        """Where the JSON status file is."""
        return status_path_for(self.output_path)

    def status_json(self) -> str:
        """The status file's content (``JSON.stringify(payload, null, 2)``)."""
        payload: dict[str, Any] = {
            "id": self.id,
            "status": self.status,
            "command": self.command,
            "cwd": self.cwd,
            "startTime": _iso(self.start_time),
            "updatedAt": _iso(time.time()),
        }
        if self.pid is not None:
            payload["pid"] = self.pid
        if self.end_time is not None:
            payload["endTime"] = _iso(self.end_time)
        if self.exit_code is not None:
            payload["exitCode"] = self.exit_code
        if self.error is not None:
            payload["error"] = self.error
        return json.dumps(payload, indent=2, ensure_ascii=False)


def _write_status(entry: BackgroundShell) -> None:
    import tempfile  # imported when a background shell writes its status

    target = entry.status_path
    try:
        fd, temp = tempfile.mkstemp(dir=os.path.dirname(target), prefix=".status-")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(entry.status_json())
        os.chmod(temp, 0o600)
        os.replace(temp, target)
    except OSError:
        pass  # a status file that cannot be written must not break the shell


def _returncode(exited: asyncio.Future[int]) -> int | None:
    if not exited.done() or exited.cancelled() or exited.exception() is not None:
        return None
    return exited.result()


class _OutputFile:
    """The output file of one shell: sniffed, decoded per stream, ANSI stripped, flushed."""

    def __init__(self, path: str) -> None:
        from qwen_tools.shell.output import ChunkSniffer

        self._handle: IO[str] | None = open(path, "w", encoding="utf-8", newline="")  # noqa: SIM115
        self._sniffer = ChunkSniffer()

    def write(self, data: bytes, stream: Literal["stdout", "stderr"]) -> None:
        from qwen_tools.shell.output import strip_ansi

        if self._handle is None or not self._sniffer.accept(data):
            return
        text = strip_ansi(self._sniffer.decode(data, stream))
        if text:
            self._handle.write(text)
            self._handle.flush()

    def close(self) -> None:
        if self._handle is None:
            return
        if not self._sniffer.binary:
            for stream in ("stdout", "stderr"):
                rest = self._sniffer.decode(b"", stream, final=True)
                if rest:
                    self._handle.write(rest)
        self._handle.close()
        self._handle = None


class BackgroundShellRegistry:
    """The background shells of one session."""

    def __init__(self) -> None:
        self._entries: dict[str, BackgroundShell] = {}

    def list(self) -> builtins.list[BackgroundShell]:
        """Every remembered shell, oldest first."""
        return [*self._entries.values()]

    def get(self, shell_id: str) -> BackgroundShell | None:
        """The shell with this id, if remembered."""
        return self._entries.get(shell_id)

    async def start(
        self,
        command: str,
        *,
        argv: Sequence[str],
        cwd: str,
        env: Mapping[str, str],
        output_dir: str | os.PathLike[str],
    ) -> BackgroundShell:
        """Spawn ``argv`` and return its entry at once; output goes to a file in ``output_dir``.

        A spawn failure does not raise: the entry is returned already ``failed`` (no pid).
        """
        import asyncio

        from qwen_tools.shell.execution import spawn_error_message, spawn_process

        os.makedirs(output_dir, exist_ok=True)
        import secrets  # imported when a background shell starts, not at startup

        shell_id = f"bg_{secrets.token_hex(4)}"
        output_path = os.path.join(os.fspath(output_dir), f"shell-{shell_id}.output")
        entry = BackgroundShell(id=shell_id, command=command, cwd=cwd, output_path=output_path)
        sink = _OutputFile(output_path)
        try:
            proc, readers = await spawn_process(argv, cwd=cwd, env=env, on_data=sink.write)
        except OSError as exc:
            sink.close()
            self._register(entry)
            self._settle(entry, None, spawn_error_message(argv[0], exc))
            return entry
        entry.pid = proc.pid
        entry._exited = asyncio.ensure_future(proc.wait())
        self._register(entry)
        entry._task = asyncio.ensure_future(self._supervise(entry, entry._exited, readers, sink))
        return entry

    def _register(self, entry: BackgroundShell) -> None:
        self._entries[entry.id] = entry
        _write_status(entry)

    async def _supervise(
        self,
        entry: BackgroundShell,
        exited: asyncio.Future[int],
        readers: Sequence[PipeReader],
        sink: _OutputFile,
    ) -> None:
        import asyncio

        from qwen_tools.shell.execution import drain

        try:
            await asyncio.shield(exited)
            await drain(readers, POST_EXIT_DRAIN_S)
        except asyncio.CancelledError:
            entry._stop_requested = True
            self._kill_now(entry)
            await asyncio.wait({exited}, timeout=1)
            raise
        finally:
            for reader in readers:
                reader.close()
            sink.close()
            self._settle(entry, _returncode(exited), None)

    def _settle(self, entry: BackgroundShell, returncode: int | None, error: str | None) -> None:
        if entry.status != "running":
            return
        entry.end_time = time.time()
        if entry._stop_requested:
            entry.status = "cancelled"
        elif error is not None:
            entry.status, entry.error = "failed", error
        elif returncode is not None and returncode < 0:
            entry.status, entry.error = "failed", f"terminated by signal {-returncode}"
        elif returncode:
            entry.status, entry.error = "failed", f"exited with code {returncode}"
        else:
            entry.status, entry.exit_code = "completed", returncode or 0
        _write_status(entry)
        self._prune()

    def _prune(self) -> None:
        finished = sorted(
            (e for e in self._entries.values() if e.status != "running"),
            key=lambda e: (e.end_time or e.start_time, e.start_time),
        )
        for entry in finished[: max(0, len(finished) - MAX_RETAINED_TERMINAL_SHELLS)]:
            del self._entries[entry.id]

    @staticmethod
    def _kill_now(entry: BackgroundShell) -> None:
        from qwen_tools.shell.execution import kill_tree_now

        if entry.pid is not None and (entry._exited is None or _returncode(entry._exited) is None):
            kill_tree_now(entry.pid)

    async def stop(self, shell_id: str) -> bool:
        """Kill a running shell's process group and wait until it is ``cancelled``.

        Returns ``False`` when no running shell has this id.
        """
        import asyncio

        from qwen_tools.shell.execution import kill_process_tree

        entry = self._entries.get(shell_id)
        if entry is None or entry.status != "running":
            return False
        entry._stop_requested = True
        if entry.pid is not None and entry._exited is not None:
            await kill_process_tree(entry.pid, entry._exited)
        if entry._task is not None:
            await asyncio.wait({entry._task}, timeout=POST_EXIT_DRAIN_S + 1)
        self._settle(entry, None, None)
        return True

    async def stop_all(self) -> None:
        """Stop every running shell (e.g. when the session ends)."""
        import asyncio

        running = [e.id for e in self._entries.values() if e.status == "running"]
        await asyncio.gather(*(self.stop(shell_id) for shell_id in running))
