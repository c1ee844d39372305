"""Opening files and directories so that what was *opened* is checked, not a name.

A containment check on a path name ("is ``W/x.txt`` inside the workspace?") says nothing about
the object a later ``open()`` reaches: between the two, another process can replace ``W/x.txt``
(or any directory on the way) by a symlink to a file outside. The functions here close that
window by checking the opened descriptor itself:

* the path is opened (following symlinks, as any open does) with ``O_NONBLOCK`` so that a FIFO
  or a device never hangs the open, and ``O_CLOEXEC``;
* the descriptor's real location is read back from the kernel (``/proc/self/fd/N``) and must
  lie inside one of the allowed roots; otherwise the descriptor is closed and
  :class:`OutsideRootsError` raised;
* where ``/proc`` is not mounted, the portable fallback realpath-resolves the name after the
  open and requires that it is inside *and* names the same inode (``st_dev``/``st_ino``) as the
  descriptor, so a swap between the open and the check is detected rather than trusted.

:class:`ConfinedOpener` is the same check for callers that open many paths (tree walks,
read_many_files), with the roots prepared once.

What this does not cover (documented in the README): a hard link inside the workspace to a
file outside is the same inode under an inside name, so it is inside by every test the kernel
offers; only the workspace's owner can create one.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

__all__ = [
    "ConfinedOpener",
    "OutsideRootsError",
    "confined_fd",
    "fd_real_path",
    "open_confined",
    "path_within",
    "read_confined_bytes",
]

_DELETED = " (deleted)"
_PROC_FD = "/proc/self/fd"


class OutsideRootsError(PermissionError):
    """The opened object lies outside every allowed root (after following every symlink)."""

    def __init__(self, path: str, real: str | None) -> None:
        super().__init__(errno.EACCES, "outside the allowed directories", path)
        self.real = real


def path_within(real: str, root: str) -> bool:
    """Component-wise containment of two normalised absolute paths (``root`` itself included)."""
    if real == root:
        return True
    prefix = root if root.endswith(os.sep) else root + os.sep
    return real.startswith(prefix)


def _inside(real: str, roots: Iterable[str]) -> bool:
    return any(path_within(real, os.fspath(r)) for r in roots)


def fd_real_path(fd: int) -> str | None:
    """Where the kernel says descriptor ``fd`` lives, or ``None`` when it cannot tell.

    A file deleted after it was opened reads back as ``<path> (deleted)``; the suffix is removed
    only when the descriptor's link count really is 0, so a file *named* ``x (deleted)`` keeps
    its name.
    """
    try:
        real = os.readlink(f"{_PROC_FD}/{fd}")
    except OSError:
        return None
    if not real.startswith("/"):
        return None  # pipe:[…], socket:[…], anon_inode:… : not a file-system path
    if real.endswith(_DELETED):
        try:
            if os.fstat(fd).st_nlink == 0:
                real = real[: -len(_DELETED)]
        except OSError:
            return None
    return real


def _check_fd(fd: int, path: str, roots: tuple[str, ...]) -> None:
    """Raise :class:`OutsideRootsError` unless open descriptor ``fd`` lies inside ``roots``."""
    real = fd_real_path(fd)
    if real is not None:
        if not _inside(real, roots):
            raise OutsideRootsError(path, real)
        return
    # No /proc: resolve the name now and require that it names the very inode we hold.
    try:
        resolved = os.path.realpath(path, strict=True)
        held = os.fstat(fd)
        named = os.stat(resolved)
    except OSError as exc:
        raise OutsideRootsError(path, None) from exc
    if (held.st_dev, held.st_ino) != (named.st_dev, named.st_ino) or not _inside(resolved, roots):
        raise OutsideRootsError(path, resolved)


def open_confined(
    path: str | os.PathLike[str],
    roots: Iterable[str | os.PathLike[str]],
    flags: int = os.O_RDONLY,
    *,
    directory: bool = False,
) -> int:
    """Open ``path`` and return the descriptor, guaranteed to lie inside one of ``roots``.

    ``roots`` must be realpath-resolved absolute directories. ``directory=True`` adds
    ``O_DIRECTORY``. The descriptor is opened non-blocking (a FIFO opens without a writer and
    reads return at once); for a regular file or a directory the flag is cleared again before
    returning, so ordinary reads behave as usual, unless ``flags`` itself holds
    ``O_NONBLOCK`` (readers of regular files and directories, which the flag does not affect,
    save two system calls that way). Raises :class:`OutsideRootsError` (a
    ``PermissionError``) when the opened object is outside, and the ``OSError`` of the open
    otherwise (``ENOENT``, ``ELOOP``, ``ENAMETOOLONG``…).
    """
    name = os.fspath(path)
    allowed = tuple(os.fspath(r) for r in roots)
    extra = os.O_NONBLOCK | os.O_CLOEXEC | (os.O_DIRECTORY if directory else 0)
    fd = os.open(name, flags | extra)
    try:
        _check_fd(fd, name, allowed)
        if not flags & os.O_NONBLOCK:  # a caller asking for O_NONBLOCK keeps it (no fstat)
            mode = os.fstat(fd).st_mode
            if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
                os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


class ConfinedOpener:
    """:func:`open_confined` with the roots prepared once, for callers that open many paths.

    A tree walk opens every directory it lists, and read_many_files every file it reads
    (thousands per call); this does the same check with the common case (``/proc`` mounted,
    the object inside) reduced to one ``open`` and one ``readlink``. Anything else goes
    through the very check :func:`open_confined` makes. The descriptors stay non-blocking
    (``O_NONBLOCK`` is always added and never cleared): regular files and directories ignore
    the flag, and a FIFO or device is never waited on.
    """

    __slots__ = ("_flags", "_prefixes", "_roots")

    def __init__(
        self,
        roots: Iterable[str | os.PathLike[str]],
        flags: int = os.O_RDONLY,
        *,
        directory: bool = False,
    ) -> None:
        self._roots = tuple(os.fspath(r) for r in roots)
        self._prefixes = tuple(r if r.endswith(os.sep) else r + os.sep for r in self._roots)
        self._flags = flags | os.O_NONBLOCK | os.O_CLOEXEC | (os.O_DIRECTORY if directory else 0)

    def open(self, path: str) -> int:
        """A descriptor of ``path``, checked to lie inside the roots.

        Raises :class:`OutsideRootsError` when it lies outside, and the open's ``OSError``
        otherwise (``ENOENT``, ``ENOTDIR``, ``EACCES``...).
        """
        fd = os.open(path, self._flags)
        try:
            real: str | None = os.readlink(f"{_PROC_FD}/{fd}")
        except OSError:
            real = None
        if real is not None and (real in self._roots or real.startswith(self._prefixes)):
            return fd
        try:
            _check_fd(fd, path, self._roots)  # the general check decides (and raises)
        except BaseException:
            os.close(fd)
            raise
        return fd


@contextmanager
def confined_fd(
    path: str | os.PathLike[str],
    roots: Iterable[str | os.PathLike[str]],
    flags: int = os.O_RDONLY,
) -> Iterator[int]:
    """:func:`open_confined` as a context manager that closes the descriptor."""
    fd = open_confined(path, roots, flags)
    try:
        yield fd
    finally:
        os.close(fd)


def read_confined_bytes(
    path: str | os.PathLike[str],
    roots: Iterable[str | os.PathLike[str]],
    limit: int | None = None,
) -> bytes:
    """The bytes of the regular file at ``path`` (at most ``limit``), opened inside ``roots``.

    Raises ``IsADirectoryError`` for a directory and ``OSError(EINVAL)`` for anything that is not
    a regular file (FIFO, socket, device), so a hostile name cannot make a read block.
    """
    with confined_fd(path, roots) as fd:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), os.fspath(path))
        if not stat.S_ISREG(mode):
            raise OSError(errno.EINVAL, "not a regular file", os.fspath(path))
        chunks: list[bytes] = []
        remaining = limit
        while remaining is None or remaining > 0:
            size = 1 << 20 if remaining is None else min(1 << 20, remaining)
            chunk = os.read(fd, size)
            if not chunk:
                break
            chunks.append(chunk)
            if remaining is not None:
                remaining -= len(chunk)
        return b"".join(chunks)
