"""``PoolWorker``: the body of one Ray worker actor, a :class:`~.host.SessionHost` behind async
methods. The pool makes it a Ray actor class (``ray.remote(PoolWorker)``); this module does not
import Ray when it is imported.

Each worker keeps its sessions under ``<base>/<worker name>`` and clears that directory when it
starts, so a worker Ray restarts after a crash does not inherit the dead one's workspaces (its
sessions are lost: calls for them raise :class:`~.errors.SessionLost`). Each start is an
*incarnation* (a random id): the pool notes the incarnation a session was opened on and sends
it with every call, so a restarted worker tells a session of its dead predecessor
(``SessionLost`` with ``worker_died``) from one that was merely closed.

A worker that dies without cleaning up (``SIGKILL``) takes its commands with it: a guardian
process ends them (:mod:`.guardian`; the worker notes every command it spawns in a ledger next
to its directory, ``qwen-pool-<name>.<pid>.ledger``), and the next worker started with the
same base directory reaps what a dead worker's guardian could not.
"""

from __future__ import annotations

import asyncio
import os
import pickle
import shutil
import tempfile
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from qwen_tools.execution.call_types import CompletedToolCall, ToolCallRequest
from qwen_tools.pool.channel import MAX_PATH, pack_outcome, serve_channel
from qwen_tools.pool.errors import PoolError, SessionLost
from qwen_tools.pool.guardian import Ledger, marks_of_this_process, start_guardian, sweep
from qwen_tools.pool.host import SessionHost
from qwen_tools.pool.template import Template
from qwen_tools.shell.execution import watch_spawns

__all__ = ["PoolWorker"]

_COALESCED = frozenset({"call", "batch", "diff", "run", "close"})


def _rss_kb() -> int:
    """This process's resident memory (kB), from ``/proc/self/status`` (0 where absent)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


class PoolWorker:
    """Many sessions in one worker process (one Ray async actor)."""

    def __init__(
        self,
        name: str,
        base: str | None = None,
        settings: Mapping[str, Any] | None = None,
        sandbox: bool | None = None,
        command_env: Mapping[str, str] | None = None,
    ) -> None:
        parent = Path(base or tempfile.gettempdir())
        root = parent / f"qwen-pool-{name}"
        sweep(parent)  # what dead workers (this one's last incarnation too) left running
        shutil.rmtree(root, ignore_errors=True)
        self.host = SessionHost(
            root, settings=settings, sandbox=sandbox, hide=parent, command_env=command_env
        )
        self.incarnation = uuid.uuid4().hex
        ledger = parent / f"qwen-pool-{name}.{os.getpid()}.ledger"
        self._ledger = Ledger(ledger, marks_of_this_process())
        watch_spawns(self._ledger.note)
        try:
            self._guardian: int | None = start_guardian(ledger).pid
        except OSError:  # no guardian: the next worker's sweep is left
            self._guardian = None
        channel = str(self.host.root / "channel" / "sock")
        self._channel = channel if len(channel.encode()) <= MAX_PATH else None
        self._server: asyncio.AbstractServer | None = None

    async def route(self) -> dict[str, Any]:
        """How to reach this worker: its incarnation, Ray node and channel socket (``None``:
        none, the path would be too long), serving the channel from now on (:mod:`.channel`)."""
        import ray

        if self._server is None and self._channel is not None:
            self._server = await serve_channel(self._channel, lambda item: self.one(*item))
        return {
            "incarnation": self.incarnation,
            "node": ray.get_runtime_context().get_node_id(),
            "channel": self._channel,
        }

    async def info(self) -> dict[str, Any]:
        """The worker's pid, host, Ray node id, session count, whether its shells are
        sandboxed, and its :meth:`route`."""
        import socket

        return {
            **await self.route(),
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "guardian": self._guardian,
            "sessions": len(self.host),
            "rss_kb": _rss_kb(),
            "sandboxed": self.host.sandboxed,
            "root": str(self.host.root),
        }

    async def has_template(self, template_id: str) -> bool:
        """Whether the template's archive is already here."""
        return self.host.has_template(template_id)

    async def open(
        self, template: Template, approval_mode: str | None, session_id: str
    ) -> dict[str, Any]:
        """Open a session (fetching the template's archive from the object store if needed);
        this worker's :meth:`route` (with the incarnation the session was opened on)."""
        fetch = template.kind == "tar" and not isinstance(template.data, bytes)
        if fetch and not self.host.has_template(template.id):
            template = template.with_data(await template.data)
        await self.host.open(template, approval_mode=approval_mode, session_id=session_id)
        return await self.route()  # its calls may come through the channel from now on

    async def call(
        self, session_id: str, name: str, args: Mapping[str, Any] | None, call_id: str
    ) -> CompletedToolCall:
        """One tool call on a session of this worker."""
        return await self.host.call(session_id, name, args, call_id)

    async def batch(
        self, session_id: str, requests: Sequence[ToolCallRequest]
    ) -> list[CompletedToolCall]:
        """One batch of tool calls on a session of this worker."""
        return await self.host.batch(session_id, requests)

    async def calls(self, items: list[bytes]) -> list[bytes]:
        """Several calls of this worker's session methods at once (:mod:`.coalesce`), each an
        item of :meth:`one` pickled apart (so one that cannot be read, or whose answer cannot
        be sent, fails alone): for each, its outcome pickled (:func:`.channel.pack_outcome`)."""
        return list(await asyncio.gather(*(self._packed(item) for item in items)))

    async def _packed(self, payload: bytes) -> bytes:
        try:
            item = pickle.loads(payload)
        except Exception as exc:
            failure = PoolError(f"the worker could not read the call: {type(exc).__name__}: {exc}")
            return pack_outcome(False, failure)
        return pack_outcome(*await self.one(*item))

    async def one(
        self, method: str, session_id: str, born: str, args: tuple[Any, ...]
    ) -> tuple[bool, Any]:
        """One call, ``(method, session id, incarnation the session was opened on, other
        arguments)``: whether it returned, and its result or the exception it raised."""
        if method not in _COALESCED:
            return False, ValueError(f"not a coalesced method: {method}")
        if born and born != self.incarnation:
            reason = "its worker died (Ray restarted it; sessions are not carried over)"
            return False, SessionLost(session_id, reason, worker_died=True)
        try:
            return True, await getattr(self, method)(session_id, *args)
        except Exception as exc:
            return False, exc

    async def diff(self, session_id: str) -> str:
        """The session's changes against its template."""
        return await self.host.diff(session_id)

    async def run(self, session_id: str, fn: Callable[..., Awaitable[Any]], *args: Any) -> Any:
        """``await fn(session, workspace, *args)`` in this worker."""
        return await self.host.run(session_id, fn, *args)

    async def close(self, session_id: str) -> None:
        """Close a session of this worker."""
        await self.host.close(session_id)

    async def shutdown(self) -> None:
        """Close every session and remove the worker's directory."""
        if self._server is not None:
            self._server.close()
        await self.host.aclose()
        shutil.rmtree(self.host.root, ignore_errors=True)
        self._ledger.close()  # a clean end: the guardian finds nothing to do
