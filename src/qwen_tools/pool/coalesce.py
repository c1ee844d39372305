"""Coalescing concurrent calls to one worker into one Ray task.

Every Ray actor call costs a fixed amount of CPU on the driver and on the worker (task
submission, serialisation, scheduling), several times what a small tool call itself costs. When
many calls are in flight at once, :class:`Coalescer` gathers the calls made for one worker
during one turn of the event loop and sends them as one ``calls`` task; the worker runs them
concurrently and returns one outcome per call (pickled apart: :func:`.channel.pack_outcome`,
``(True, result)`` or ``(False, the exception it raised)``), which is its caller's future's
result. The future raises only when the task as a
whole failed (the worker died or could not be reached): the caller can tell an exception the
worker's code raised, which says nothing about the worker, from a failure of Ray itself.
A lone call still goes at once (one loop turn later), alone.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

__all__ = ["Coalescer"]


class Coalescer:
    """Batches items (one call of the worker's each) for one worker's ``calls`` method."""

    def __init__(self, submit: Callable[[list[Any]], Any]) -> None:
        """``submit(items)`` starts the worker's ``calls`` task and returns its awaitable."""
        self._submit = submit
        self._pending: list[tuple[Any, asyncio.Future[Any]]] = []
        self._delivering: set[asyncio.Future[None]] = set()

    def call(self, item: Any) -> asyncio.Future[Any]:
        """A future for the worker's answer to ``item``, sent with the others of this turn."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        if not self._pending:
            loop.call_soon(self._flush)
        self._pending.append((item, future))
        return future

    def _flush(self) -> None:
        batch, self._pending = self._pending, []
        if not batch:
            return
        try:
            ref = self._submit([item for item, _ in batch])
        except BaseException as exc:
            for _, future in batch:
                if not future.done():
                    future.set_exception(exc)
            return
        futures = [future for _, future in batch]
        task = asyncio.get_running_loop().create_task(self._deliver(ref, futures))
        self._delivering.add(task)  # kept until done: the loop holds only weak references
        task.add_done_callback(self._delivering.discard)

    @staticmethod
    async def _deliver(ref: Any, futures: list[asyncio.Future[Any]]) -> None:
        try:
            outcomes = await ref
        except BaseException as exc:  # the whole task failed (Ray's error, not the calls')
            for future in futures:
                if not future.done():
                    future.set_exception(exc)
            return
        for future, outcome in zip(futures, outcomes, strict=True):
            if not future.done():
                future.set_result(outcome)
