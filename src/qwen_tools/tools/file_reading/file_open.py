"""A file the read tools opened through a checked open, and reading it whole.

The read tools open each file once, read-only and non-blocking, through
:class:`qwen_tools.fs.confined.ConfinedOpener` over the workspace's readable roots, which
checks where the opened descriptor really lies. Everything afterwards (the type sniff, the
read, the read cache's fingerprint) uses that descriptor, never the name again, so a name
swapped for an outside symlink after the check cannot change what is read.
"""

from __future__ import annotations

import os

__all__ = ["OpenedFile", "read_all"]

_CHUNK = 1 << 20


class OpenedFile:
    """A file opened for reading through the workspace's checked open, and its status.

    The descriptor is known to lie inside the readable roots (checked on the descriptor, not
    on the name), so everything read from it, type sniffing included, is the checked file.
    """

    __slots__ = ("fd", "info", "path")

    def __init__(self, path: str, fd: int, info: os.stat_result) -> None:
        self.path, self.fd, self.info = path, fd, info

    def close(self) -> None:
        """Close the descriptor."""
        os.close(self.fd)

    def __enter__(self) -> OpenedFile:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def read_all(fd: int) -> bytes:
    """Every byte of the open regular file ``fd``, from its start (its position is unused)."""
    chunks: list[bytes] = []
    offset = 0
    while chunk := os.pread(fd, _CHUNK, offset):
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)
