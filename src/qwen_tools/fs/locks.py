"""Per-file async locks: one read-modify-write of a file at a time.

edit and write_file read a file, compute the new content and write it back; two such calls on
the same file running concurrently could each base their change on the same old content and
the second write would silently drop the first. :class:`FileLocks` hands out one
``asyncio.Lock`` per file (keyed by its resolved real path, so a symlink and its target share
a lock) and forgets it as soon as nobody holds or awaits it.

The locks serialise coroutines of one event loop; two loops (in different threads) get
separate locks for the same file, since an ``asyncio.Lock`` belongs to a single loop.
"""

from __future__ import annotations

import os
import threading
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TYPE_CHECKING

from qwen_tools.fs.write_target import realpath_retrying

if TYPE_CHECKING:
    import asyncio

__all__ = ["FileLocks"]


def _key(path: str) -> str:
    """The file's real path; under a racing swap that keeps ``realpath`` failing, the absolute
    name (the lock only orders our own writers; what is written is checked on descriptors)."""
    try:
        return realpath_retrying(path)
    except (OSError, ValueError):
        return os.path.abspath(path)


class FileLocks:
    """A registry of per-file ``asyncio.Lock`` objects, dropped when unused."""

    def __init__(self) -> None:
        self._locks: dict[tuple[int, str], tuple[asyncio.Lock, int]] = {}
        self._guard = threading.Lock()

    def lock(self, path: str) -> AbstractAsyncContextManager[None]:
        """``async with locks.lock(path):`` — hold the file's lock for the block."""
        return self._hold(_key(path))

    def __len__(self) -> int:
        """How many files currently have a lock held or awaited."""
        with self._guard:
            return len(self._locks)

    @asynccontextmanager
    async def _hold(self, real_path: str) -> AsyncIterator[None]:
        import asyncio  # deferred: importing the session must stay cheap

        key = (id(asyncio.get_running_loop()), real_path)
        with self._guard:
            lock, users = self._locks.get(key) or (asyncio.Lock(), 0)
            self._locks[key] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            with self._guard:
                lock, users = self._locks[key]
                if users <= 1:
                    del self._locks[key]
                else:
                    self._locks[key] = (lock, users - 1)
