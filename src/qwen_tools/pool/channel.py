"""A direct channel to a worker on the driver's own node: a Unix socket beside Ray.

A Ray actor call costs about a millisecond of CPU (driver and worker together, on this 2-core
machine), several times what a small tool call itself costs; coalescing (:mod:`.coalesce`)
spreads it over the calls of one loop turn, but with a few dozen callers it still doubles a
call's cost. A worker therefore also serves its session calls on a Unix socket,
``<worker directory>/channel/sock`` (in a directory of mode 0700: only its own user may
connect; sandboxed commands cannot see the worker's directory at all), and a driver on the
same node sends its awaitable calls there. Ray still places, starts, restarts and stops the workers, ships templates and carries
the blocking API and every call to a worker on another node.

Frames are a header (the payload's length and the request's id, two big-endian 32-bit
integers) and a pickle: a request's is an item of :meth:`PoolWorker.calls
<.worker.PoolWorker.calls>` (pickled with Ray's cloudpickle when the standard pickler cannot,
e.g. for a function given to ``run``), an answer's ``(ok, value)``. A payload that cannot be
read (an argument whose class the worker cannot import, say) fails its own call only. Both
ends gather what one loop turn produces into one write. A connection that breaks fails
the calls in flight with :class:`ChannelBroken`, which the pool treats as an unreachable
worker (:mod:`.failures`): it asks Ray whether the worker was restarted.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pickle
import shutil
import struct
from collections.abc import Awaitable, Callable
from typing import Any

from qwen_tools.pool.errors import PoolError

__all__ = [
    "MAX_PATH",
    "ChannelBroken",
    "ChannelClient",
    "Channels",
    "pack",
    "pack_outcome",
    "serve_channel",
    "unpack_outcome",
]

MAX_PATH = 107
"""The longest socket path Linux accepts (``sun_path`` holds 108 bytes with the NUL)."""

_HEADER = struct.Struct(">II")


class ChannelBroken(ConnectionError):
    """The connection to a worker broke (or could not be made) before the answer came."""


def pack(value: Any) -> bytes:
    """``value`` pickled (by Ray's cloudpickle when the standard pickler cannot)."""
    try:
        return pickle.dumps(value, protocol=5)
    except Exception:
        from ray import cloudpickle

        dumps: Any = cloudpickle.dumps  # (untyped)
        return bytes(dumps(value, protocol=5))


def pack_outcome(ok: bool, value: Any) -> bytes:
    """An outcome pickled; one whose value cannot be becomes a :class:`PoolError`."""
    try:
        return pack((ok, value))
    except Exception as exc:
        return pack((False, _failure("the answer could not be sent back", exc)))


def unpack_outcome(payload: bytes) -> tuple[bool, Any]:
    """An outcome from :func:`pack_outcome`; one that cannot be read, a :class:`PoolError`."""
    try:
        ok, value = pickle.loads(payload)
    except Exception as exc:
        return False, _failure("the worker's answer could not be read", exc)
    return bool(ok), value


def _failure(what: str, exc: BaseException) -> PoolError:
    return PoolError(f"{what}: {type(exc).__name__}: {exc}")


class _Framed(asyncio.Protocol):
    """Frames in (each handed to ``received``) and out (gathered per loop turn)."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self._buffer = bytearray()
        self._out: list[bytes] = []

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        buffer = self._buffer
        buffer += data
        start, size, head = 0, len(buffer), _HEADER.size
        while size - start >= head:
            length, frame_id = _HEADER.unpack_from(buffer, start)
            if size - start - head < length:
                break
            payload = bytes(buffer[start + head : start + head + length])
            start += head + length
            try:
                message = pickle.loads(payload)
            except Exception as exc:
                self.unreadable(frame_id, exc)
            else:
                self.received(frame_id, message)
        del buffer[:start]

    def received(self, frame_id: int, message: Any) -> None:
        raise NotImplementedError

    def unreadable(self, frame_id: int, exc: Exception) -> None:
        raise NotImplementedError

    def send(self, frame_id: int, message: Any) -> None:
        payload = pack(message)
        if not self._out:
            asyncio.get_running_loop().call_soon(self._flush)
        self._out += (_HEADER.pack(len(payload), frame_id), payload)

    def _flush(self) -> None:
        out, self._out = self._out, []
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(b"".join(out))


class _ServerSide(_Framed):
    def __init__(self, handle: Callable[[Any], Awaitable[tuple[bool, Any]]]) -> None:
        super().__init__()
        self._handle = handle
        self._tasks: set[asyncio.Task[None]] = set()

    def received(self, frame_id: int, message: Any) -> None:
        task = asyncio.get_running_loop().create_task(self._answer(frame_id, message))
        self._tasks.add(task)  # kept until done: the loop holds only weak references
        task.add_done_callback(self._tasks.discard)

    def unreadable(self, frame_id: int, exc: Exception) -> None:
        self.send(frame_id, (False, _failure("the worker could not read the call", exc)))

    async def _answer(self, request_id: int, item: Any) -> None:
        ok, value = await self._handle(item)
        try:
            self.send(request_id, (ok, value))
        except Exception as exc:  # a result or exception pickle cannot carry
            self.send(request_id, (False, _failure("the answer could not be sent back", exc)))


async def serve_channel(
    path: str, handle: Callable[[Any], Awaitable[tuple[bool, Any]]]
) -> asyncio.AbstractServer:
    """Serve ``await handle(item)`` for every request on a new socket at ``path``, whose
    directory is made anew with mode 0700 (no other user can reach the socket)."""
    directory = os.path.dirname(path)
    shutil.rmtree(directory, ignore_errors=True)
    os.mkdir(directory, 0o700)
    os.chmod(directory, 0o700)  # whatever the umask
    server = await asyncio.get_running_loop().create_unix_server(lambda: _ServerSide(handle), path)
    os.chmod(path, 0o600)
    return server


class ChannelClient(_Framed):
    """The driver's end of one worker's channel, on one event loop."""

    def __init__(self) -> None:
        super().__init__()
        self._next = 0
        self._waiting: dict[int, asyncio.Future[tuple[bool, Any]]] = {}
        self.broken: BaseException | None = None

    @classmethod
    async def connect(cls, path: str) -> ChannelClient:
        """Connect to the worker serving ``path``; :class:`ChannelBroken` if it cannot be."""
        client = cls()
        try:
            await asyncio.get_running_loop().create_unix_connection(lambda: client, path)
        except OSError as exc:
            raise ChannelBroken(f"cannot connect to {path}: {exc}") from exc
        return client

    def call(self, item: Any) -> asyncio.Future[tuple[bool, Any]]:
        """A future for the outcome ``(ok, value)`` of ``item``."""
        future: asyncio.Future[tuple[bool, Any]] = asyncio.get_running_loop().create_future()
        if self.broken is not None:
            future.set_exception(ChannelBroken(str(self.broken)))
            return future
        self._next = (self._next + 1) % 2**32
        self._waiting[self._next] = future
        try:
            self.send(self._next, item)
        except BaseException:
            del self._waiting[self._next]
            raise
        return future

    def received(self, frame_id: int, message: Any) -> None:
        future = self._waiting.pop(frame_id, None)
        if future is not None and not future.done():
            future.set_result(message)

    def unreadable(self, frame_id: int, exc: Exception) -> None:
        self.received(frame_id, (False, _failure("the worker's answer could not be read", exc)))

    def connection_lost(self, exc: Exception | None) -> None:
        self.broken = exc or ConnectionResetError("the worker closed the channel")
        waiting, self._waiting = self._waiting, {}
        for future in waiting.values():
            if not future.done():
                future.set_exception(ChannelBroken(f"the channel broke: {self.broken}"))

    def close(self) -> None:
        """Close the connection (calls in flight fail with :class:`ChannelBroken`)."""
        if self.transport is not None:
            self.transport.close()


class Channels:
    """The driver's channels: for each worker on the driver's node, its socket, and one
    connection per event loop that calls it."""

    def __init__(self, workers: int, node: str | None) -> None:
        """``node``: the driver's Ray node id (``None``: no channels, every call goes by Ray)."""
        self.node = node
        self.paths: list[str | None] = [None] * workers
        self._held: dict[int, tuple[asyncio.AbstractEventLoop, asyncio.Task[ChannelClient]]] = {}

    def route(self, index: int, route: dict[str, Any]) -> None:
        """What worker ``index`` said of itself (``node``, ``channel``): where to reach it."""
        path = route.get("channel")
        usable = self.node is not None and route.get("node") == self.node and path
        self.paths[index] = str(path) if usable else None

    async def client(self, index: int) -> ChannelClient | None:
        """The connection to worker ``index`` on this loop (made now if needed); ``None``
        when it is reached through Ray: a worker on another node, or one whose socket cannot
        be reached (until it says where its channel is again: :meth:`route`)."""
        path = self.paths[index]
        if path is None:
            return None
        loop = asyncio.get_running_loop()
        held = self._held.get(index)
        if held is None or held[0] is not loop or _unusable(held[1]):
            if held is not None and held[0] is not loop:
                _close(held[1])
            held = (loop, loop.create_task(ChannelClient.connect(path)))
            self._held[index] = held
        try:
            return await asyncio.shield(held[1])
        except ChannelBroken:
            if self.paths[index] == path:
                self.paths[index] = None
            return None

    def close(self) -> None:
        """Close every connection."""
        for _, task in self._held.values():
            _close(task)
        self._held.clear()


def _unusable(task: asyncio.Task[ChannelClient]) -> bool:
    if not task.done():
        return False
    return task.cancelled() or task.exception() is not None or task.result().broken is not None


def _close(task: asyncio.Task[ChannelClient]) -> None:
    if task.done() and not _unusable(task):
        with contextlib.suppress(Exception):  # its loop may be closed already
            task.result().close()
