"""Coalescing concurrent calls to one worker into one Ray task.

Every Ray actor call costs a fixed amount of CPU on the driver and on the worker (task
submission, serialisation, scheduling), several times what a small tool call itself costs. When
many calls are in flight at once, :class:`Coalescer` gathers the calls made for one worker
during one turn of the event loop and sends them as one ``calls`` task; the worker runs them
concurrently and returns one outcome per call (a result or the exception it raised), which goes
back to its caller. A lone call still goes at once (one loop turn later), alone.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

__all__ = ["Coalescer"]


class Coalescer:
    """Batches ``(method, args)`` items for one worker's ``calls`` method."""

    def __init__(self, submit: Callable[[list[tuple[str, tuple[Any, ...]]]], Any]) -> None:
        """``submit(items)`` starts the worker's ``calls`` task and returns its awaitable."""
        self._submit = submit
        self._pending: list[tuple[str, tuple[Any, ...], asyncio.Future[Any]]] = []
        self._delivering: set[asyncio.Future[None]] = set()

    def call(self, method: str, *args: Any) -> asyncio.Future[Any]:
        """A future for ``method(*args)`` on the worker, sent with the others of this turn."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        if not self._pending:
            loop.call_soon(self._flush)
        self._pending.append((method, args, future))
        return future

    def _flush(self) -> None:
        batch, self._pending = self._pending, []
        if not batch:
            return
        try:
            ref = self._submit([(method, args) for method, args, _ in batch])
        except BaseException as exc:
            for *_, future in batch:
                if not future.done():
                    future.set_exception(exc)
            return
        futures = [future for *_, future in batch]
        task = asyncio.get_running_loop().create_task(self._deliver(ref, futures))
        self._delivering.add(task)  # kept until done: the loop holds only weak references
        task.add_done_callback(self._delivering.discard)

    @staticmethod
    async def _deliver(ref: Any, futures: list[asyncio.Future[Any]]) -> None:
        try:
            outcomes = await ref
        except BaseException as exc:  # the whole task failed: the worker died
            for future in futures:
                if not future.done():
                    future.set_exception(exc)
            return
        for future, (ok, value) in zip(futures, outcomes, strict=True):
            if future.done():
                continue
            if ok:
                future.set_result(value)
            else:
                future.set_exception(value)
