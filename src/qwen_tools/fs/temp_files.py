"""The temporary files of atomic writes: their names, their lock, and removing stale ones.

A write creates ``.<name>.<16 lowercase hex digits>.tmp`` next to the file it replaces (the
name part is shortened, at a character boundary where possible, so that the whole temp name
fits in ``NAME_MAX``), exclusively and without following symlinks, in a directory given as a
descriptor. The writer holds an exclusive ``flock`` on it from creation to the rename, so:

**The stale rule.** Before writing, :func:`remove_stale_temps` removes from that directory
every entry that

* has exactly our name shape (the 16 hex digits tell it from ``mkstemp``'s 8 characters, so
  neither other programs' temp files nor those of older versions of this package match),
* is a regular file (never a symlink or a directory) owned by our effective user, and
* is not locked: a writer that is alive holds its lock, and the kernel drops the lock when the
  writer dies, however it dies (``kill -9`` included). Temp files of live writers of this
  process are known by inode and skipped even where ``flock`` is emulated per process (NFS).

A writer locks its new file and then checks that the name still names it; a cleaner locks
before it unlinks and checks the same. Whichever locks first wins: a cleaner never removes a
file a writer holds, and a writer whose fresh file was taken as stale just creates another.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import re
import stat
import threading

__all__ = ["create_temp", "is_temp_name", "release_temp", "remove_stale_temps", "temp_name"]

_NAME_MAX = 255
_SUFFIX_CHARS = 16
_TEMP_RE = re.compile(r"\..+\.[0-9a-f]{16}\.tmp", re.DOTALL)
_live: set[tuple[int, int]] = set()
_live_guard = threading.Lock()


def is_temp_name(name: str) -> bool:
    """Whether ``name`` has the shape of our temporary files."""
    return _TEMP_RE.fullmatch(name) is not None


def temp_name(name: str, name_max: int = _NAME_MAX) -> str:
    """A fresh temporary name for ``name`` that fits in ``name_max`` bytes."""
    import secrets  # imported when a temp file is made, not at startup

    random = secrets.token_hex(_SUFFIX_CHARS // 2)
    room = name_max - len(f"..{random}.tmp")
    encoded = os.fsencode(name)
    if len(encoded) > room:
        cut = encoded[:room]
        # do not split a UTF-8 sequence: drop its continuation bytes and the lead byte
        while cut and len(encoded) > len(cut) and (encoded[len(cut)] & 0xC0) == 0x80:
            cut = cut[:-1]
        name = os.fsdecode(cut) or "f"
    return f".{name}.{random}.tmp"


def _same_file(a: os.stat_result, b: os.stat_result) -> bool:
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def _lock(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            return False
        raise
    return True


def _name_max(dir_fd: int) -> int:
    try:
        return min(os.fpathconf(dir_fd, "PC_NAME_MAX"), _NAME_MAX)
    except (OSError, ValueError):
        return _NAME_MAX


def create_temp(dir_fd: int, name: str) -> tuple[int, str]:
    """Create and lock a temporary file for ``name`` in directory ``dir_fd`` (mode ``0o600``).

    Returns ``(fd, temp_name)``; the file stays locked until the descriptor is closed (close
    it with :func:`release_temp`). Raises the ``OSError`` of the creation.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    name_max = _name_max(dir_fd)
    for _ in range(100):
        temp = temp_name(name, name_max)
        try:
            fd = os.open(temp, flags, 0o600, dir_fd=dir_fd)
        except FileExistsError:
            continue
        try:
            held = os.fstat(fd)
            if _lock(fd) and _same_file(held, os.stat(temp, dir_fd=dir_fd, follow_symlinks=False)):
                with _live_guard:
                    _live.add((held.st_dev, held.st_ino))
                return fd, temp
        except FileNotFoundError:
            pass  # a cleaner took it for a dead writer's file before we locked it
        except BaseException:
            os.close(fd)
            with contextlib.suppress(OSError):
                os.unlink(temp, dir_fd=dir_fd)
            raise
        os.close(fd)
    raise FileExistsError(errno.EEXIST, "could not create a temporary file", name)


def release_temp(fd: int) -> None:
    """Close a descriptor from :func:`create_temp` (dropping its lock)."""
    try:
        info = os.fstat(fd)
        with _live_guard:
            _live.discard((info.st_dev, info.st_ino))
    finally:
        os.close(fd)


def _remove_if_stale(dir_fd: int, name: str, euid: int) -> None:
    try:
        info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        return
    if not stat.S_ISREG(info.st_mode) or info.st_uid != euid:
        return
    with _live_guard:
        if (info.st_dev, info.st_ino) in _live:
            return
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(name, flags, dir_fd=dir_fd)
    except OSError:
        return
    try:
        if not _same_file(os.fstat(fd), info) or not _lock(fd):
            return
        if _same_file(os.stat(name, dir_fd=dir_fd, follow_symlinks=False), info):
            os.unlink(name, dir_fd=dir_fd)
    except OSError:
        return
    finally:
        os.close(fd)


def remove_stale_temps(dir_fd: int) -> None:
    """Remove the stale temporary files of ours in directory ``dir_fd`` (see the module doc).

    Best effort: a directory that cannot be listed, or an entry that cannot be checked, is
    left alone.
    """
    try:
        with os.scandir(dir_fd) as entries:
            names = [e.name for e in entries if e.name.endswith(".tmp") and is_temp_name(e.name)]
    except OSError:
        return
    euid = os.geteuid()
    for name in names:
        _remove_if_stale(dir_fd, name, euid)
