"""Where an atomic write lands: the real parent directory of the real target, opened and checked.

A name is only a route: between any check of ``W/x.txt`` and the write, another process can
replace ``W/x.txt``, or any directory on the way, by a symlink to somewhere else. So a write
does not work on names. :func:`open_write_target` opens the parent directory of the path as a
descriptor, checked to lie inside the allowed roots (:func:`~.confined.open_confined`: the
kernel's own answer for the descriptor, not a check of the name), and looks the last
component up *in that descriptor* without following it. A symlink there is followed one hop
at a time, each hop's directory opened and checked the same way, so a chain that passes
through a directory outside the roots is refused even if it ends inside. The result is the
real target's directory as a checked descriptor plus a name in it that is not a symlink (or
does not exist yet); the temporary file and the rename then use that descriptor
(``openat``/``renameat``), so they happen in the directory that was checked whatever happens
to names meanwhile.

:func:`make_parent_dirs` is a confined ``mkdir -p``: it resolves the parent as the kernel
would (``..`` after a symlink goes up from the symlink's target, not lexically), opens the
deepest existing directory checked, and creates each missing directory with ``mkdirat`` below
that descriptor, opening it with ``O_NOFOLLOW`` before going further down.

Without ``roots`` (the package's own files: settings, todos, saved outputs) the same walk runs
unchecked, so the temporary file still goes in the real parent.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass

from qwen_tools.fs.confined import OutsideRootsError, fd_real_path, open_confined, path_within

__all__ = [
    "MAX_SYMLINK_HOPS",
    "WriteTarget",
    "make_parent_dirs",
    "open_write_target",
    "realpath_retrying",
    "verify_dir",
]

MAX_SYMLINK_HOPS = 40
_O_PATH = getattr(os, "O_PATH", 0)


@dataclass
class WriteTarget:
    """The real target of a write: a name (not a symlink) in an open directory."""

    dir_fd: int
    """The directory, opened (and checked when roots were given)."""
    directory: str
    """Where the kernel says that directory is (for messages)."""
    name: str
    """The final component, looked up in ``dir_fd``."""
    existing: os.stat_result | None
    """Its ``lstat`` when it exists (never a symlink), else ``None``."""

    def path(self, name: str | None = None) -> str:
        """``name`` (default: the target's) as an absolute path in the directory."""
        return os.path.join(self.directory, self.name if name is None else name)

    def close(self) -> None:
        """Close the directory descriptor."""
        os.close(self.dir_fd)


def with_path(exc: OSError, path: str, path2: str | None = None) -> OSError:
    """``exc`` (same class and errno) naming ``path`` (and ``path2``) instead."""
    return type(exc)(exc.errno, exc.strerror, path, None, path2)


def _open_dir(path: str, roots: tuple[str, ...] | None) -> int:
    """Open directory ``path``; checked inside ``roots`` unless ``roots`` is ``None``.

    A directory we may search and write but not list still opens (``O_PATH``).
    """
    if roots is None:
        try:
            return os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except PermissionError:
            if not _O_PATH:
                raise
            return os.open(path, _O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        return open_confined(path, roots, directory=True)
    except OutsideRootsError:
        raise
    except PermissionError:
        if not _O_PATH:
            raise
        # O_NONBLOCK tells open_confined to leave the flags alone (fcntl fails on O_PATH)
        return open_confined(path, roots, _O_PATH | os.O_NONBLOCK, directory=True)


def _open_child_dir(name: str, dir_fd: int) -> int:
    """Open sub-directory ``name`` of ``dir_fd`` without following a symlink there."""
    flags = os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        return os.open(name, os.O_RDONLY | flags, dir_fd=dir_fd)
    except PermissionError:
        if not _O_PATH:
            raise
        return os.open(name, _O_PATH | flags, dir_fd=dir_fd)


def _real_dir(fd: int, fallback: str) -> str:
    return fd_real_path(fd) or os.path.realpath(fallback)


def _absolute(path: str | os.PathLike[str]) -> str:
    name = os.fspath(path)
    return name if os.path.isabs(name) else os.path.join(os.getcwd(), name)


def open_write_target(
    path: str | os.PathLike[str], roots: tuple[str, ...] | None = None
) -> WriteTarget:
    """Follow ``path`` to its real target, hop by hop, in checked directory descriptors.

    Raises :class:`~.confined.OutsideRootsError` when a directory on the way lies outside
    ``roots``, ``IsADirectoryError`` for a path ending in ``/``, ``.`` or ``..`` that names a
    directory, ``OSError(ELOOP)`` after :data:`MAX_SYMLINK_HOPS` links, and any other
    ``OSError`` of the walk (naming the full path). The caller closes the result.
    """
    given = os.fspath(path)
    current = _absolute(path)
    for _ in range(MAX_SYMLINK_HOPS + 1):
        parent, name = os.path.split(current)
        if name in ("", ".", ".."):
            os.close(_open_dir(current, roots))
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), given)
        dir_fd = _open_dir(parent, roots)
        try:
            directory = _real_dir(dir_fd, parent)
            try:
                info: os.stat_result | None = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
            except FileNotFoundError:
                info = None
            except OSError as exc:
                raise with_path(exc, os.path.join(directory, name)) from None
            if info is None or not stat.S_ISLNK(info.st_mode):
                return WriteTarget(dir_fd, directory, name, info)
            try:
                current = os.path.join(directory, os.readlink(name, dir_fd=dir_fd))
            except OSError as exc:
                if exc.errno != errno.EINVAL:  # EINVAL: no longer a link, look again
                    raise with_path(exc, os.path.join(directory, name)) from None
        except BaseException:
            os.close(dir_fd)
            raise
        os.close(dir_fd)
    raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), given)


def verify_dir(dir_fd: int, roots: tuple[str, ...], path: str) -> None:
    """Check again, on the descriptor, that the directory still lies inside ``roots``.

    Catches a checked directory that was moved out of the roots since it was opened. Where
    ``/proc`` is missing there is nothing more to ask, and the check at open time stands.
    """
    real = fd_real_path(dir_fd)
    if real is not None and not any(path_within(real, root) for root in roots):
        raise OutsideRootsError(path, real)


def realpath_retrying(path: str) -> str:
    """``realpath`` (non-strict), retried when a racing swap makes its ``readlink`` fail.

    (Python's ``realpath`` raises ``EINVAL`` when a name it saw as a symlink is a regular file
    by the time it reads the link.)
    """
    for _ in range(MAX_SYMLINK_HOPS):
        try:
            return os.path.realpath(path)
        except OSError as exc:
            if exc.errno != errno.EINVAL:
                raise
    return os.path.realpath(path)


def make_parent_dirs(
    path: str | os.PathLike[str], roots: tuple[str, ...] | list[str] | None = None
) -> None:
    """Create the missing parent directories of ``path`` where the kernel resolves them.

    Every directory created is made below a descriptor checked inside ``roots`` and opened
    with ``O_NOFOLLOW`` before the next one is made in it. Raises
    :class:`~.confined.OutsideRootsError` when the existing part lies outside ``roots``, and the
    ``OSError`` of the ``mkdir``/``open`` naming the directory concerned.
    """
    allowed = None if roots is None else tuple(roots)
    parent = os.path.dirname(_absolute(path))
    try:
        os.close(_open_dir(parent, allowed))
        return
    except FileNotFoundError:
        pass
    base = realpath_retrying(parent)  # the existing part resolved, the missing tail appended
    missing: list[str] = []
    while True:
        try:
            fd = _open_dir(base, allowed)
            break
        except FileNotFoundError:
            base, component = os.path.split(base)
            if not component:
                raise
            missing.append(component)
    try:
        for component in reversed(missing):
            made = os.path.join(base, component)
            try:
                os.mkdir(component, 0o777, dir_fd=fd)
            except FileExistsError:
                pass
            except OSError as exc:
                raise with_path(exc, made) from None
            try:
                child = _open_child_dir(component, fd)
            except OSError as exc:
                raise with_path(exc, made) from None
            os.close(fd)
            fd, base = child, made
    finally:
        os.close(fd)
