"""``SessionPool``: sessions spread over N Ray worker actors (async actors, many sessions each).

A session lives on the worker that opened it (the least loaded one, placed by the pool); every
call for it goes there. Workers are spread over the cluster's nodes (Ray's ``SPREAD``
strategy) and restarted by Ray if they die, but a dead worker's sessions are gone: calls for
them raise :class:`~.errors.SessionLost`, while the other workers' sessions go on.

Every method has a blocking form (``call``) and an awaitable one (``call_async``), for a
driver that runs many sessions at once from one event loop. The awaitable calls to a worker on
the driver's own node go through its Unix-socket channel (:mod:`.channel`), the others as Ray
tasks, those of one loop turn together (:mod:`.coalesce`).
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from qwen_tools.config.tool_settings import ApprovalMode
from qwen_tools.execution.call_types import CompletedToolCall, ToolCallRequest
from qwen_tools.pool.channel import Channels, pack, unpack_outcome
from qwen_tools.pool.coalesce import Coalescer
from qwen_tools.pool.errors import PoolError, SessionLost, WorkerUnavailable
from qwen_tools.pool.failures import describe, probe, probe_async, verdict
from qwen_tools.pool.opening import Opening
from qwen_tools.pool.template import Template
from qwen_tools.pool.worker import PoolWorker

__all__ = ["SessionPool"]


class SessionPool:
    """N worker actors on a Ray cluster; open, call, diff and close sessions by id."""

    def __init__(
        self,
        workers: int = 2,
        *,
        address: str | None = None,
        num_cpus: float = 0.5,
        settings: Mapping[str, Any] | None = None,
        sandbox: bool | None = None,
        base_dir: str | None = None,
        max_concurrency: int = 10_000,
        channel: bool = True,
        command_env: Mapping[str, str] | None = None,
    ) -> None:
        """Start ``workers`` actors (joining the cluster at ``address`` first when Ray is not
        initialised; ``"auto"`` finds a running one). ``num_cpus``: reserved per worker;
        ``settings``: settings every session gets; ``sandbox``: the confined bwrap sandbox
        (default: where bwrap works on the worker's node); ``base_dir``: where workers keep
        their workspaces (default: the node's temp dir; give a directory used for nothing
        else: sandboxed shells see none of it but their own workspace); ``channel``: send the
        awaitable calls to workers on this node through their sockets (:mod:`.channel`);
        ``command_env``: the environment of the sessions' commands (default: the worker's
        plain variables, none of its secrets; :mod:`.command_env`)."""
        import ray

        if workers < 1:
            raise ValueError("a pool needs at least one worker")
        if not ray.is_initialized():
            ray.init(address=address)
        self.name = uuid.uuid4().hex[:8]
        remote = ray.remote(PoolWorker)
        self._workers: list[Any] = [
            remote.options(
                num_cpus=num_cpus,
                max_restarts=-1,
                max_concurrency=max_concurrency,
                scheduling_strategy="SPREAD",
            ).remote(
                f"{self.name}-{index}",
                base_dir,
                dict(settings or {}),
                sandbox,
                None if command_env is None else dict(command_env),
            )
            for index in range(workers)
        ]
        self._coalescers = [Coalescer(_submitter(worker)) for worker in self._workers]
        self._placement: dict[str, int] = {}
        self._born: dict[str, str] = {}
        """The incarnation of its worker each session was opened on (see :mod:`.worker`)."""
        self._lost: dict[str, str] = {}
        self._shared: dict[str, Template] = {}
        self._closed = False
        infos = ray.get([worker.info.remote() for worker in self._workers])  # all up before use
        self._channels = Channels(workers, _node() if channel else None)
        for index, info in enumerate(infos):
            self._channels.route(index, info)

    @property
    def workers(self) -> list[Any]:
        """The worker actor handles (``ray.get(w.info.remote())``: pid, node, sessions)."""
        return list(self._workers)

    def worker_of(self, session_id: str) -> int:
        """The index of the worker hosting ``session_id``."""
        self._check(session_id)
        return self._placement[session_id]

    def info(self) -> list[dict[str, Any]]:
        """Each worker's pid, host, session count and whether it sandboxes shells."""
        import ray

        return list(ray.get([worker.info.remote() for worker in self._workers]))

    def _check(self, session_id: str) -> None:
        if self._closed:
            raise PoolError("the pool is shut down")
        if session_id in self._lost:
            raise SessionLost(session_id, self._lost[session_id])
        if session_id not in self._placement:
            raise SessionLost(session_id, "no such session in this pool (closed, or never opened)")

    def _by_load(self) -> list[int]:
        """Worker indices, least loaded first (where a new session goes, then the fallbacks)."""
        counts = [0] * len(self._workers)
        for index in self._placement.values():
            counts[index] += 1
        return sorted(range(len(self._workers)), key=lambda index: counts[index])

    def _forget(self, session_id: str, reason: str) -> None:
        self._placement.pop(session_id, None)
        self._born.pop(session_id, None)
        self._lost[session_id] = reason

    def _lose_worker(self, index: int, born: str, reason: str) -> None:
        """Every session opened on incarnation ``born`` of worker ``index`` is lost."""
        for sid, placed in list(self._placement.items()):
            if placed == index and self._born.get(sid) == born:
                self._forget(sid, reason)

    def _raised(self, session_id: str, index: int, born: str, exc: BaseException) -> BaseException:
        """What the caller gets for an exception the worker's code raised for this call."""
        if isinstance(exc, SessionLost):
            if exc.worker_died:
                self._lose_worker(index, born, exc.reason)
            self._forget(session_id, exc.reason)
            return SessionLost(session_id, exc.reason, exc.worker_died)
        return exc

    def _failed(
        self,
        session_id: str,
        index: int,
        born: str,
        exc: BaseException,
        now: dict[str, Any] | BaseException | None,
    ) -> BaseException:
        """What the caller gets when the call's transport failed (Ray, or the channel):
        ``SessionLost`` only for a worker found dead (``ActorDiedError``, or a new incarnation
        in its route ``now``), ``WorkerUnavailable`` for one that could not be reached, else
        the error itself (see :mod:`.failures`)."""
        if isinstance(now, dict):
            self._channels.route(index, now)
        restarted = isinstance(now, dict) and bool(born) and now.get("incarnation") != born
        died = isinstance(now, BaseException) and verdict(now) == "dead"
        kind = "dead" if restarted or died else verdict(exc)
        if kind == "dead":
            reason = f"its worker died ({describe(exc)})"
            self._lose_worker(index, born, reason)
            self._forget(session_id, reason)
            return SessionLost(session_id, reason, worker_died=True)
        if kind == "unsure":
            return WorkerUnavailable(session_id, describe(exc))
        return exc

    def _item(self, method: str, session_id: str, *args: Any) -> tuple[int, str, Any]:
        self._check(session_id)
        index, born = self._placement[session_id], self._born.get(session_id, "")
        return index, born, (method, session_id, born, args)

    async def _session_call(self, method: str, session_id: str, *args: Any) -> Any:
        """``method`` of the session's worker: through its channel, or as a Ray task with the
        other calls of this loop turn for that worker."""
        index, born, item = self._item(method, session_id, *args)
        try:
            client = await self._channels.client(index)
            if client is None:
                ok, value = unpack_outcome(await self._coalescers[index].call(pack(item)))
            else:
                ok, value = await client.call(item)
        except Exception as exc:
            now = await probe_async(self._workers[index]) if verdict(exc) == "unsure" else None
            raise self._failed(session_id, index, born, exc, now) from None
        if not ok:
            raise self._raised(session_id, index, born, value)
        return value

    def _session_call_blocking(self, method: str, session_id: str, *args: Any) -> Any:
        """:meth:`_session_call`, blocking (one ``calls`` task of its own)."""
        import ray

        index, born, item = self._item(method, session_id, *args)
        worker = self._workers[index]
        try:
            (answer,) = ray.get(worker.calls.remote([pack(item)]))
            ok, value = unpack_outcome(answer)
        except Exception as exc:
            now = probe(worker) if verdict(exc) == "unsure" else None
            raise self._failed(session_id, index, born, exc, now) from None
        if not ok:
            raise self._raised(session_id, index, born, value)
        return value

    def _template(self, template: Template) -> Template:
        if template.kind != "tar":
            return template
        shared = self._shared.get(template.id)
        if shared is None:
            shared = self._shared[template.id] = template.shared()
        return shared

    # -- the awaitable API -------------------------------------------------------------------

    async def open_async(
        self, template: Template, *, approval_mode: ApprovalMode | str | None = None
    ) -> str:
        """Open a session from ``template`` on the least loaded worker; its id.

        A worker that is dead or restarting is skipped for the next one."""
        opening = Opening(self, template, approval_mode)
        for ref in opening.tries():
            with opening.trying():
                return opening.opened(await ref)
        raise opening.failed()

    async def call_async(
        self,
        session_id: str,
        name: str,
        args: Mapping[str, Any] | None = None,
        *,
        call_id: str = "call_1",
    ) -> CompletedToolCall:
        """One tool call, with the result a local :meth:`Session.call` gives.

        Raises :class:`SessionLost` when the session's worker died (or the session was
        closed), :class:`WorkerUnavailable` when Ray could not reach a worker that lives."""
        done: CompletedToolCall = await self._session_call(
            "call", session_id, name, dict(args or {}), call_id
        )
        return done

    async def batch_async(
        self, session_id: str, requests: Sequence[ToolCallRequest]
    ) -> list[CompletedToolCall]:
        """One batch, as :meth:`Session.run_batch`."""
        done: list[CompletedToolCall] = await self._session_call(
            "batch", session_id, list(requests)
        )
        return done

    async def diff_async(self, session_id: str) -> str:
        """The workspace's changes against its template (``git diff --binary``)."""
        text: str = await self._session_call("diff", session_id)
        return text

    async def run_async(
        self, session_id: str, fn: Callable[..., Awaitable[Any]], *args: Any
    ) -> Any:
        """``await fn(session, workspace, *args)`` on the session's worker (``fn`` must be
        importable there, or picklable by value)."""
        return await self._session_call("run", session_id, fn, *args)

    async def close_async(self, session_id: str) -> None:
        """Close the session and delete its workspace (a no-op for a lost or closed one)."""
        self._lost.pop(session_id, None)
        if session_id not in self._placement or self._closed:
            return
        with contextlib.suppress(SessionLost):
            await self._session_call("close", session_id)
        self._lost.pop(session_id, None)
        self._placement.pop(session_id, None)
        self._born.pop(session_id, None)

    # -- the blocking API --------------------------------------------------------------------

    def open(self, template: Template, *, approval_mode: ApprovalMode | str | None = None) -> str:
        """Blocking :meth:`open_async`."""
        import ray

        opening = Opening(self, template, approval_mode)
        for ref in opening.tries():
            with opening.trying():
                return opening.opened(ray.get(ref))
        raise opening.failed()

    def call(
        self,
        session_id: str,
        name: str,
        args: Mapping[str, Any] | None = None,
        *,
        call_id: str = "call_1",
    ) -> CompletedToolCall:
        """Blocking :meth:`call_async`."""
        done: CompletedToolCall = self._session_call_blocking(
            "call", session_id, name, dict(args or {}), call_id
        )
        return done

    def batch(
        self, session_id: str, requests: Sequence[ToolCallRequest]
    ) -> list[CompletedToolCall]:
        """Blocking :meth:`batch_async`."""
        done: list[CompletedToolCall] = self._session_call_blocking(
            "batch", session_id, list(requests)
        )
        return done

    def diff(self, session_id: str) -> str:
        """Blocking :meth:`diff_async`."""
        text: str = self._session_call_blocking("diff", session_id)
        return text

    def close(self, session_id: str) -> None:
        """Blocking :meth:`close_async`."""
        self._lost.pop(session_id, None)
        if session_id not in self._placement or self._closed:
            return
        with contextlib.suppress(SessionLost):
            self._session_call_blocking("close", session_id)
        self._lost.pop(session_id, None)
        self._placement.pop(session_id, None)
        self._born.pop(session_id, None)

    def shutdown(self) -> None:
        """Close every session and end the workers (Ray itself keeps running)."""
        import ray

        if self._closed:
            return
        self._closed = True
        for worker in self._workers:
            with contextlib.suppress(Exception):  # a dead worker has nothing left to close
                ray.get(worker.shutdown.remote(), timeout=60)
            ray.kill(worker, no_restart=True)
        self._placement.clear()
        self._born.clear()
        self._channels.close()

    def __enter__(self) -> SessionPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()


def _node() -> str | None:
    """The Ray node the driver runs on (``None`` where it cannot say, e.g. a Ray Client)."""
    import ray

    try:
        return str(ray.get_runtime_context().get_node_id())
    except Exception:
        return None


def _submitter(worker: Any) -> Any:
    def submit(items: list[Any]) -> Any:
        return worker.calls.remote(items)

    return submit
