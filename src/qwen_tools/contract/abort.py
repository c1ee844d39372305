"""Cancellation: ``AbortController`` owns an ``AbortSignal`` that tools can poll or await.

The signal is safe to trigger from any thread (e.g. a SIGINT handler) and wakes waiters on
their own event loops.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from typing import Any


class AbortError(Exception):
    """Raised by :meth:`AbortSignal.throw_if_aborted` once the signal has fired."""


class AbortSignal:
    """A one-shot cancellation flag with listeners, in the spirit of the DOM ``AbortSignal``."""

    __slots__ = ("_aborted", "_listeners", "_lock", "_reason")

    def __init__(self) -> None:
        self._aborted = False
        self._reason: str | None = None
        self._listeners: list[Callable[[], None]] = []
        self._lock = threading.Lock()

    @property
    def aborted(self) -> bool:
        """Whether the signal has fired."""
        return self._aborted

    @property
    def reason(self) -> str | None:
        """The reason given to ``abort()``, if any."""
        return self._reason

    def throw_if_aborted(self) -> None:
        """Raise :class:`AbortError` if the signal has fired."""
        if self._aborted:
            raise AbortError(self._reason or "The operation was aborted.")

    def add_listener(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback`` once when the signal fires (at once if it already has).

        Returns a function that removes the listener.
        """
        with self._lock:
            if not self._aborted:
                self._listeners.append(callback)
                return lambda: self._remove(callback)
        callback()
        return lambda: None

    def _remove(self, callback: Callable[[], None]) -> None:
        with self._lock:
            if callback in self._listeners:
                self._listeners.remove(callback)

    def _fire(self, reason: str | None) -> None:
        with self._lock:
            if self._aborted:
                return
            self._aborted = True
            self._reason = reason
            listeners, self._listeners = self._listeners, []
        for callback in listeners:
            callback()

    async def wait(self) -> None:
        """Return once the signal has fired."""
        if self._aborted:
            return
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()

        def wake() -> None:
            def resolve() -> None:
                if not future.done():
                    future.set_result(None)

            loop.call_soon_threadsafe(resolve)

        remove = self.add_listener(wake)
        try:
            await future
        finally:
            remove()

    @asynccontextmanager
    async def cancel_scope(self) -> AsyncIterator[Any]:
        """Run a block that is cancelled (not raised into) when the signal fires.

        Yields the ``anyio.CancelScope``; check ``scope.cancelled_caught`` afterwards.
        """
        import anyio

        loop = asyncio.get_running_loop()
        with anyio.CancelScope() as scope:

            def cancel() -> None:
                loop.call_soon_threadsafe(scope.cancel)

            remove = self.add_listener(cancel)
            try:
                yield scope
            finally:
                remove()

    @staticmethod
    def any(signals: Iterable[AbortSignal]) -> AbortSignal:
        """A signal that fires when any of ``signals`` fires."""
        controller = AbortController()
        for signal in signals:

            def forward(source: AbortSignal = signal) -> None:
                controller.abort(source.reason)

            signal.add_listener(forward)
        return controller.signal

    @staticmethod
    def never() -> AbortSignal:
        """A signal that never fires."""
        return AbortSignal()


class AbortController:
    """Owns an :class:`AbortSignal` and fires it with :meth:`abort`."""

    __slots__ = ("signal",)

    def __init__(self) -> None:
        self.signal = AbortSignal()

    def abort(self, reason: str | None = None) -> None:
        """Fire the signal (idempotent; the first reason wins)."""
        self.signal._fire(reason)

    def child(self) -> AbortController:
        """A controller whose signal also fires when this one fires."""
        child = AbortController()
        self.signal.add_listener(lambda: child.abort(self.signal.reason))
        return child
