"""``SessionPool``: sessions spread over N Ray worker actors (async actors, many sessions each).

A session lives on the worker that opened it (the least loaded one, placed by the pool); every
call for it goes there. Workers are spread over the cluster's nodes (Ray's ``SPREAD``
strategy) and restarted by Ray if they die, but a dead worker's sessions are gone: calls for
them raise :class:`~.errors.SessionLost`, while the other workers' sessions go on.

Every method has a blocking form (``call``) and an awaitable one (``call_async``), for a
driver that runs many sessions at once from one event loop.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from typing import Any

from qwen_tools.config.tool_settings import ApprovalMode
from qwen_tools.execution.call_types import CompletedToolCall, ToolCallRequest
from qwen_tools.pool.coalesce import Coalescer
from qwen_tools.pool.errors import PoolError, SessionLost
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
    ) -> None:
        """Start ``workers`` actors (joining the cluster at ``address`` first when Ray is not
        initialised; ``"auto"`` finds a running one). ``num_cpus``: reserved per worker;
        ``settings``: settings every session gets; ``sandbox``: the confined bwrap sandbox
        (default: where bwrap works on the worker's node); ``base_dir``: where workers keep
        their workspaces (default: the node's temp dir; give a directory used for nothing
        else: sandboxed shells see none of it but their own workspace)."""
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
            ).remote(f"{self.name}-{index}", base_dir, dict(settings or {}), sandbox)
            for index in range(workers)
        ]
        self._coalescers = [Coalescer(_submitter(worker)) for worker in self._workers]
        self._placement: dict[str, int] = {}
        self._lost: dict[str, str] = {}
        self._shared: dict[str, Template] = {}
        self._closed = False
        ray.get([worker.info.remote() for worker in self._workers])  # all up before use

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

    def _lose_worker(self, index: int, error: BaseException) -> None:
        reason = f"its worker died ({type(error).__name__}: {str(error).splitlines()[0]})"
        for sid, placed in list(self._placement.items()):
            if placed == index:
                del self._placement[sid]
                self._lost[sid] = reason

    def _translate(self, session_id: str, index: int, exc: Exception) -> BaseException:
        from ray.exceptions import RayActorError, RayTaskError

        if isinstance(exc, SessionLost):  # raised by the worker, returned by a coalesced call
            self._placement.pop(session_id, None)
            self._lost[session_id] = exc.reason
            return SessionLost(session_id, exc.reason)
        if isinstance(exc, RayActorError):
            self._lose_worker(index, exc)
            return SessionLost(session_id, self._lost.get(session_id, "its worker died"))
        if isinstance(exc, RayTaskError):
            cause = exc.cause
            if isinstance(cause, SessionLost):
                self._placement.pop(session_id, None)
                self._lost[session_id] = cause.reason
                return SessionLost(session_id, cause.reason)
            if isinstance(cause, Exception):
                return cause
        return exc

    async def _await(self, session_id: str, ref: Any) -> Any:
        index = self._placement[session_id]
        try:
            return await ref
        except Exception as exc:
            raise self._translate(session_id, index, exc) from None

    def _get(self, session_id: str, ref: Any) -> Any:
        import ray

        index = self._placement[session_id]
        try:
            return ray.get(ref)
        except Exception as exc:
            raise self._translate(session_id, index, exc) from None

    def _worker(self, session_id: str) -> Any:
        self._check(session_id)
        return self._workers[self._placement[session_id]]

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
        opening = _Opening(self, template, approval_mode)
        for ref in opening.tries():
            with opening.trying():
                await self._await(opening.sid, ref)
                return opening.sid
        raise opening.failed()

    async def call_async(
        self,
        session_id: str,
        name: str,
        args: Mapping[str, Any] | None = None,
        *,
        call_id: str = "call_1",
    ) -> CompletedToolCall:
        """One tool call, with the result a local :meth:`Session.call` gives."""
        self._check(session_id)
        coalescer = self._coalescers[self._placement[session_id]]
        future = coalescer.call("call", session_id, name, dict(args or {}), call_id)
        result: CompletedToolCall = await self._await(session_id, future)
        return result

    async def batch_async(
        self, session_id: str, requests: Sequence[ToolCallRequest]
    ) -> list[CompletedToolCall]:
        """One batch, as :meth:`Session.run_batch`."""
        self._check(session_id)
        coalescer = self._coalescers[self._placement[session_id]]
        future = coalescer.call("batch", session_id, list(requests))
        result: list[CompletedToolCall] = await self._await(session_id, future)
        return result

    async def diff_async(self, session_id: str) -> str:
        """The workspace's changes against its template (``git diff --binary``)."""
        worker = self._worker(session_id)
        result: str = await self._await(session_id, worker.diff.remote(session_id))
        return result

    async def run_async(
        self, session_id: str, fn: Callable[..., Awaitable[Any]], *args: Any
    ) -> Any:
        """``await fn(session, workspace, *args)`` on the session's worker (``fn`` must be
        importable there, or picklable by value)."""
        worker = self._worker(session_id)
        return await self._await(session_id, worker.run.remote(session_id, fn, *args))

    async def close_async(self, session_id: str) -> None:
        """Close the session and delete its workspace (a no-op for a lost or closed one)."""
        index = self._placement.get(session_id)
        self._lost.pop(session_id, None)
        if index is None or self._closed:
            return
        with contextlib.suppress(SessionLost):
            await self._await(session_id, self._workers[index].close.remote(session_id))
        self._placement.pop(session_id, None)

    # -- the blocking API --------------------------------------------------------------------

    def open(self, template: Template, *, approval_mode: ApprovalMode | str | None = None) -> str:
        """Blocking :meth:`open_async`."""
        opening = _Opening(self, template, approval_mode)
        for ref in opening.tries():
            with opening.trying():
                self._get(opening.sid, ref)
                return opening.sid
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
        ref = self._worker(session_id).call.remote(session_id, name, dict(args or {}), call_id)
        done: CompletedToolCall = self._get(session_id, ref)
        return done

    def batch(
        self, session_id: str, requests: Sequence[ToolCallRequest]
    ) -> list[CompletedToolCall]:
        """Blocking :meth:`batch_async`."""
        ref = self._worker(session_id).batch.remote(session_id, list(requests))
        done: list[CompletedToolCall] = self._get(session_id, ref)
        return done

    def diff(self, session_id: str) -> str:
        """Blocking :meth:`diff_async`."""
        text: str = self._get(session_id, self._worker(session_id).diff.remote(session_id))
        return text

    def close(self, session_id: str) -> None:
        """Blocking :meth:`close_async`."""
        index = self._placement.get(session_id)
        self._lost.pop(session_id, None)
        if index is None or self._closed:
            return
        with contextlib.suppress(SessionLost):
            self._get(session_id, self._workers[index].close.remote(session_id))
        self._placement.pop(session_id, None)

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

    def __enter__(self) -> SessionPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()


class _Opening:
    """One open: the workers tried in turn (least loaded first) until one opens the session.

    A worker that is dead or restarting (``SessionLost``) is skipped for the next one; any
    other failure ends the open."""

    def __init__(
        self, pool: SessionPool, template: Template, approval_mode: ApprovalMode | str | None
    ) -> None:
        if pool._closed:
            raise PoolError("the pool is shut down")
        mode = approval_mode.value if isinstance(approval_mode, ApprovalMode) else approval_mode
        self.pool, self.template, self.mode = pool, template, mode
        self.sid = uuid.uuid4().hex
        self.error: SessionLost | None = None

    def tries(self) -> Iterator[Any]:
        """Each worker's ``open`` call in turn (the session placed on it meanwhile)."""
        pool = self.pool
        for index in pool._by_load():
            pool._placement[self.sid] = index
            yield pool._workers[index].open.remote(
                pool._template(self.template), self.mode, self.sid
            )

    @contextlib.contextmanager
    def trying(self) -> Iterator[None]:
        """Around the wait for one try: a lost worker is noted and skipped, anything else raised."""
        try:
            yield
        except SessionLost as exc:
            self.pool._lost.pop(self.sid, None)
            self.error = exc
        except BaseException:
            self.pool._placement.pop(self.sid, None)
            raise

    def failed(self) -> PoolError:
        """The error when no worker could open the session."""
        reason = self.error.reason if self.error is not None else "no workers"
        return PoolError(f"no worker could open a session: {reason}")


def _submitter(worker: Any) -> Any:
    def submit(items: list[tuple[str, tuple[Any, ...]]]) -> Any:
        return worker.calls.remote(items)

    return submit
