"""Crash-safe file writes: a reader (or a crash) sees the old content or the new, never a mix.

:func:`write_bytes_atomic` writes to a temporary file in the real target's directory
(``.<name>.<random>.tmp``, see :mod:`.temp_files`), flushes and ``fsync``\\ s it, gives it the
right mode (and owner), renames it over the target and finally ``fsync``\\ s the directory so
the rename itself survives a power loss.

* **Where:** the target's directory is opened as a descriptor (:mod:`.write_target`) and the
  temporary file is created (``O_EXCL|O_NOFOLLOW``) and renamed (``renameat``) relative to
  that descriptor: the rename happens in the directory that was opened, whatever happens to
  names meanwhile. That is the *real* parent: ``W/lnk/../out/f`` is resolved as the kernel
  does (``..`` from the symlink's target), never lexically.
* **Confinement:** with ``roots``, every directory opened on the way (each symlink hop's
  included) must lie inside one of them, checked on the descriptor (:mod:`.confined`), and the
  directory is checked once more just before the rename; otherwise
  :class:`~.confined.OutsideRootsError` (a ``PermissionError``) is raised and nothing is
  written. Not covered: a hard link inside to a file outside, and a directory moved out of the
  roots between that last check and the rename.
* **Symlinks** are followed hop by hop to their final target, which is the file replaced; the
  links stay links. A dangling link creates its target. More than 40 hops raise ``ELOOP``. If
  the final name is swapped for a symlink after it was looked up, the rename replaces that
  link (``rename`` never follows), so the new file still lands in the checked directory.
* **Stale temporary files** of killed writers in that directory are removed first (the rule is
  in :mod:`.temp_files`: ours, and not locked by a live writer).
* **Mode:** an existing file keeps its permission bits; a new file gets ``mode`` when given,
  else ``0o666 & ~umask`` like any newly created file. The umask is read from
  ``/proc/self/status`` where available (no process-wide side effect), else by the classic
  set-and-restore under a lock.
* **Owner:** running as root, the file keeps its owner and group. As another user, a file
  owned by someone else is rewritten in place instead (renaming would hand it to us, and the
  directory may not even be writable), as Qwen Code does; that path is not atomic, and it
  leaves the mode alone (Qwen Code's ``chmod`` there fails with ``EPERM`` after writing). A
  different group is kept when we are allowed to set it.
* **Failure:** the temporary file is removed and an ``OSError`` of the same class and errno
  raised, naming absolute paths (Qwen Code prefixes its messages with
  ``atomicWriteFile("<path>"):``; callers format their own). Parent directories are not created
  here (:func:`~.write_target.make_parent_dirs` does that, confined the same way).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import threading
from collections.abc import Iterable

from qwen_tools.fs.confined import OutsideRootsError
from qwen_tools.fs.temp_files import create_temp, release_temp, remove_stale_temps
from qwen_tools.fs.text_file import DEFAULT_TEXT_INFO, TextEncodingInfo, encode_text
from qwen_tools.fs.write_target import WriteTarget, open_write_target, verify_dir, with_path

__all__ = ["current_umask", "write_bytes_atomic", "write_text_atomic"]

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


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _fsync_directory(dir_fd: int) -> None:
    """Persist a rename; directories that cannot be synced (``O_PATH``, some file systems)
    are tolerated."""
    with contextlib.suppress(OSError):
        os.fsync(dir_fd)


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


def _write_in_place(target: WriteTarget, data: bytes) -> os.stat_result:
    """Overwrite an existing file's content; its inode, owner and mode stay as they are."""
    flags = os.O_WRONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    fd = os.open(target.name, flags, dir_fd=target.dir_fd)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", target.name)
        os.ftruncate(fd, 0)
        _write_all(fd, data)
        os.fsync(fd)
        return os.fstat(fd)
    finally:
        os.close(fd)


def _replace(
    target: WriteTarget, data: bytes, desired: int, roots: tuple[str, ...] | None, given: str
) -> os.stat_result:
    """Write ``data`` to a locked temporary file in the target's directory and rename it over."""
    remove_stale_temps(target.dir_fd)
    fd, temp = create_temp(target.dir_fd, target.name)
    renamed = False
    try:
        _write_all(fd, data)
        os.fsync(fd)
        _chmod(fd, desired)
        if target.existing is not None:
            _keep_owner(fd, target.existing)
        written = os.fstat(fd)
        if roots is not None:
            verify_dir(target.dir_fd, roots, given)
        os.replace(temp, target.name, src_dir_fd=target.dir_fd, dst_dir_fd=target.dir_fd)
        renamed = True
    finally:
        if not renamed:
            with contextlib.suppress(OSError):
                os.unlink(temp, dir_fd=target.dir_fd)
        release_temp(fd)  # the lock is held until the file has its final name
    _fsync_directory(target.dir_fd)
    return written


def _absolute_error(exc: OSError, target: WriteTarget) -> OSError:
    """``exc`` naming absolute paths in the target's directory instead of relative names."""

    def full(name: object) -> str | None:
        if name is None:
            return None
        text = os.fsdecode(name) if isinstance(name, (str, bytes)) else str(name)
        return text if os.path.isabs(text) else target.path(text)

    if exc.errno is None or exc.filename is None:
        return exc
    return with_path(exc, full(exc.filename) or "", full(exc.filename2))


def write_bytes_atomic(
    path: str | os.PathLike[str],
    data: bytes,
    *,
    mode: int | None = None,
    roots: Iterable[str | os.PathLike[str]] | None = None,
) -> os.stat_result:
    """Replace the content of ``path`` with ``data`` atomically (see the module docstring).

    ``mode`` is the permission of a *new* file (default ``0o666 & ~umask``); an existing file
    keeps its own. With ``roots`` (realpath-resolved directories) the write happens only inside
    them, checked on the directories actually opened. Returns the written file's status (for
    the read cache). Raises :class:`~.confined.OutsideRootsError` or another ``OSError`` (the
    temporary file is removed first).
    """
    given = os.fspath(path)
    allowed = None if roots is None else tuple(os.fspath(r) for r in roots)
    target = open_write_target(given, allowed)
    try:
        existing = target.existing
        if existing is not None and stat.S_ISDIR(existing.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), target.path())
        if existing is not None:
            desired = stat.S_IMODE(existing.st_mode)
        else:
            desired = mode if mode is not None else 0o666 & ~current_umask()
        euid = os.geteuid()
        foreign = existing is not None and existing.st_uid != euid and euid != 0
        try:
            if foreign and existing is not None and stat.S_ISREG(existing.st_mode):
                return _write_in_place(target, data)
            return _replace(target, data, desired, allowed, given)
        except OSError as exc:
            if isinstance(exc, OutsideRootsError):
                raise
            raise _absolute_error(exc, target) from None
    finally:
        target.close()


def write_text_atomic(
    path: str | os.PathLike[str],
    text: str,
    info: TextEncodingInfo = DEFAULT_TEXT_INFO,
    *,
    roots: Iterable[str | os.PathLike[str]] | None = None,
) -> os.stat_result:
    """Encode ``text`` as ``info`` says (:func:`~.text_file.encode_text`) and write it atomically
    (:func:`write_bytes_atomic`, confined to ``roots`` when given)."""
    return write_bytes_atomic(path, encode_text(text, info), roots=roots)
