"""Crash-safe file writes: a reader (or a crash) sees the old content or the new, never a mix.

:func:`write_bytes_atomic` writes to a temporary file in the target's directory
(``.<name>.<random>.tmp``), flushes and ``fsync``\\ s it, gives it the right mode (and owner),
renames it over the target with ``os.replace`` and finally ``fsync``\\ s the directory so the
rename itself survives a power loss.

* **Symlinks** are followed hop by hop to their final target, which is the file replaced; the
  links stay links. A dangling link creates its target. More than 40 hops raise ``ELOOP``.
* **Mode:** an existing file keeps its permission bits; a new file gets ``mode`` when given,
  else ``0o666 & ~umask`` like any newly created file. The umask is read from
  ``/proc/self/status`` where available (no process-wide side effect), else by the classic
  set-and-restore under a lock.
* **Owner:** running as root, the file keeps its owner and group. As another user, a file
  owned by someone else is rewritten in place instead (renaming would hand it to us, and the
  directory may not even be writable), as Qwen Code does; that path is not atomic, and it
  leaves the mode alone (Qwen Code's ``chmod`` there fails with ``EPERM`` after writing). A
  different group is kept when we are allowed to set it.
* **Failure:** the temporary file is removed and the ``OSError`` re-raised unchanged (Qwen
  Code prefixes its messages with ``atomicWriteFile("<path>"):``; callers format their own).
  Parent directories are not created here.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
import threading

from .text_file import DEFAULT_TEXT_INFO, TextEncodingInfo, encode_text

__all__ = ["current_umask", "resolve_symlink_chain", "write_bytes_atomic", "write_text_atomic"]

_MAX_SYMLINK_HOPS = 40
_umask_lock = threading.Lock()


def current_umask() -> int:
    """The process umask, read without changing it when the platform allows."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    with _umask_lock:
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


def resolve_symlink_chain(path: str) -> str:
    """Follow ``path`` through symlinks to the final target (which may not exist yet).

    Raises ``OSError(ELOOP)`` after 40 hops, and any other ``lstat``/``readlink`` error.
    """
    current = path
    for _ in range(_MAX_SYMLINK_HOPS):
        try:
            info = os.lstat(current)
        except FileNotFoundError:
            return current
        if not stat.S_ISLNK(info.st_mode):
            return current
        link = os.readlink(current)
        if os.path.isabs(link):
            current = link
        else:
            parent = os.path.realpath(os.path.dirname(current) or ".")
            current = os.path.normpath(os.path.join(parent, link))
    raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), path)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _fsync_directory(directory: str) -> None:
    """Persist a rename; filesystems that cannot sync a directory are tolerated."""
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _chmod(fd: int, mode: int) -> None:
    try:
        os.fchmod(fd, mode)
    except OSError as exc:
        if exc.errno not in (errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
            raise


def _keep_owner(fd: int, existing: os.stat_result) -> None:
    """Give the temporary file the existing file's owner (root) or group (when permitted)."""
    current = os.fstat(fd)
    if (current.st_uid, current.st_gid) == (existing.st_uid, existing.st_gid):
        return
    if os.geteuid() == 0:
        os.fchown(fd, existing.st_uid, existing.st_gid)
        return
    if current.st_gid != existing.st_gid:
        # Not a member of that group: the file takes ours.
        with contextlib.suppress(OSError):
            os.fchown(fd, -1, existing.st_gid)


def _write_in_place(target: str, data: bytes) -> None:
    """Overwrite an existing file's content; its inode, owner and mode stay as they are."""
    fd = os.open(target, os.O_WRONLY | os.O_TRUNC)
    try:
        _write_all(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def write_bytes_atomic(
    path: str | os.PathLike[str], data: bytes, *, mode: int | None = None
) -> None:
    """Replace the content of ``path`` with ``data`` atomically (see the module docstring).

    ``mode`` is the permission of a *new* file (default ``0o666 & ~umask``); an existing file
    keeps its own. Raises ``OSError`` (the temporary file is removed first).
    """
    target = resolve_symlink_chain(os.fspath(path))
    try:
        existing: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        existing = None
    if existing is not None and stat.S_ISDIR(existing.st_mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), target)
    if existing is not None:
        desired = stat.S_IMODE(existing.st_mode)
    else:
        desired = mode if mode is not None else 0o666 & ~current_umask()
    euid = os.geteuid()
    foreign = existing is not None and existing.st_uid != euid and euid != 0
    if foreign and existing is not None and stat.S_ISREG(existing.st_mode):
        _write_in_place(target, data)
        return
    directory, name = os.path.split(target)
    fd, temp = tempfile.mkstemp(dir=directory or ".", prefix=f".{name}.", suffix=".tmp")
    try:
        try:
            _write_all(fd, data)
            os.fsync(fd)
            _chmod(fd, desired)
            if existing is not None:
                _keep_owner(fd, existing)
        finally:
            os.close(fd)
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    _fsync_directory(directory or ".")


def write_text_atomic(
    path: str | os.PathLike[str], text: str, info: TextEncodingInfo = DEFAULT_TEXT_INFO
) -> None:
    """Encode ``text`` as ``info`` says (:func:`~.text_file.encode_text`) and write it atomically."""
    write_bytes_atomic(path, encode_text(text, info))
