"""The workspace boundary: which directories the tools may treat as "inside the project".

:class:`WorkspaceContext` holds the target directory plus any additional directories, each
stored realpath-resolved. :meth:`WorkspaceContext.is_path_within_workspace` answers whether a
path, after resolving every symlink, lies in one of them. The answer is decided by where the
path really points, so a symlink inside the workspace that points outside is *outside*, and a
symlink outside that points inside is *inside*.

Paths that do not exist yet (a file about to be written) are resolved through their nearest
existing ancestor with the missing tail re-appended. A dangling symlink is followed to where
it points (the place a write through it would land), never taken as a plain missing name.
A component that cannot be resolved (ENAMETOOLONG, ELOOP, EACCES) is kept as written, so such a
path inside the workspace is judged inside and the tool's open reports the real error.

A verdict on a *name* is only advice: by the time the file is opened, another process may have
swapped it for a symlink to somewhere else. No answer is ever cached, and the tools open through
:meth:`WorkspaceContext.open` / :meth:`WorkspaceContext.open_dir`, which check the descriptor
actually opened (:mod:`qwen_tools.fs.confined`). Read-only directories (the session's saved
tool-output directory) are readable through :meth:`is_path_readable` / ``open(..., readable=True)``
but are never part of the writable workspace.
"""

from __future__ import annotations

import copy
import errno
import logging
import os
from collections.abc import Iterable
from pathlib import Path

from qwen_tools.fs.confined import open_confined, path_within

__all__ = ["WorkspaceContext"]

_log = logging.getLogger(__name__)


def _expand_home(raw: str) -> str:
    """Expand ``~`` and ``~/...`` (only those two forms) with the user's home directory."""
    if raw == "~" or raw.startswith("~/"):
        return os.path.expanduser(raw)
    return raw


_within = path_within


class WorkspaceContext:
    """The set of directories that make up the workspace (target directory first).

    Every directory is stored realpath-resolved and appears once. Containment checks are
    component-wise (``/ws-evil`` is not inside ``/ws``) and follow symlinks.

    Nothing is cached: every answer is computed from the file system at the moment it is asked,
    and the tools re-check the descriptor they open (:meth:`open`).
    """

    def __init__(
        self,
        target_dir: str | os.PathLike[str],
        additional_dirs: Iterable[str | os.PathLike[str]] = (),
    ) -> None:
        """Create the context.

        ``target_dir`` must be an existing directory (``ValueError`` otherwise); relative
        paths resolve against the current directory. Each of ``additional_dirs`` that is not
        an existing directory is skipped with a logged warning; relative ones resolve against
        the target directory.
        """
        raw_target = _expand_home(os.fspath(target_dir))
        self._target = self._validate_dir(os.path.join(os.getcwd(), raw_target))
        self._dirs: list[str] = [self._target]
        self._readonly_dirs: list[str] = []
        for extra in additional_dirs:
            try:
                self.add_directory(extra)
            except ValueError as exc:
                _log.warning("Skipping workspace directory %r: %s", os.fspath(extra), exc)

    # -- directories --------------------------------------------------------------------

    @staticmethod
    def _validate_dir(absolute: str) -> str:
        """Realpath ``absolute`` and check it is an existing directory."""
        if "\0" in absolute:
            raise ValueError("Directory path contains a NUL byte")
        try:
            resolved = os.path.realpath(absolute, strict=True)
        except OSError as exc:
            raise ValueError(f"Directory does not exist: {absolute} ({exc})") from exc
        if not os.path.isdir(resolved):
            raise ValueError(f"Path is not a directory: {absolute}")
        return resolved

    @property
    def target_dir(self) -> Path:
        """The primary (target) directory, realpath-resolved."""
        return Path(self._target)

    @property
    def directories(self) -> tuple[Path, ...]:
        """All workspace directories, realpath-resolved, target directory first."""
        return tuple(Path(d) for d in self._dirs)

    def add_directory(self, path: str | os.PathLike[str]) -> None:
        """Add a directory (``~`` expanded, relative to the target directory).

        Raises ``ValueError`` when it does not exist or is not a directory. Adding a
        directory that is already present is a no-op.
        """
        raw = _expand_home(os.fspath(path))
        resolved = self._validate_dir(os.path.join(self._target, raw))
        if resolved not in self._dirs:
            self._dirs.append(resolved)

    def add_readonly_directory(self, path: str | os.PathLike[str]) -> None:
        """Let the read tools (only) read beneath ``path`` (an existing directory).

        Used for the session's saved tool-output directory, which the model is told to read
        with ``read_file``; writes there are refused like anywhere outside the workspace.
        """
        resolved = self._validate_dir(os.path.join(self._target, os.fspath(path)))
        if resolved not in self._dirs and resolved not in self._readonly_dirs:
            self._readonly_dirs.append(resolved)

    @property
    def readonly_directories(self) -> tuple[Path, ...]:
        """Directories the read tools may read but that are not part of the workspace."""
        return tuple(Path(d) for d in self._readonly_dirs)

    def copy(self) -> WorkspaceContext:
        """The same directories (nothing resolved again), to be changed independently."""
        twin = copy.copy(self)
        twin._dirs = list(self._dirs)
        twin._readonly_dirs = list(self._readonly_dirs)
        return twin

    def roots(self, *, readable: bool = False) -> tuple[str, ...]:
        """The realpath-resolved roots a path must lie under (read-only ones with ``readable``)."""
        return (*self._dirs, *self._readonly_dirs) if readable else tuple(self._dirs)

    # -- resolution ---------------------------------------------------------------------

    def _absolute(self, path: str | os.PathLike[str]) -> str:
        raw = os.fspath(path)
        if "\0" in raw:
            raise ValueError("Path contains a NUL byte")
        return os.path.join(self._target, _expand_home(raw))

    def _resolve_str(self, absolute: str) -> tuple[str, bool]:
        """Resolve ``absolute``; the flag tells whether the path itself exists."""
        try:
            try:
                return os.path.realpath(absolute, strict=True), True
            except OSError:
                pass
            # Something along the way is missing, or cannot be resolved (a name too long, a
            # symlink loop, a directory that may not be searched). Non-strict realpath resolves
            # every component it can (following symlinks, dangling ones included, so the result
            # is where a write would land), handles ``..`` after resolving what precedes it, and
            # keeps the rest as written. So a path that fails *inside* the workspace is judged
            # inside, and the tool's own open reports the real reason (ENAMETOOLONG, ELOOP,
            # EACCES...) instead of "outside"; no such open can succeed anyway, and what is
            # opened is checked on its descriptor.
            return os.path.realpath(absolute, strict=False), False
        except RecursionError:  # a chain of symlinks deeper than Python's stack
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), absolute) from None

    def resolve(self, path: str | os.PathLike[str]) -> Path:
        """Resolve ``path`` to the absolute location it really refers to.

        ``~`` and ``~/...`` are expanded; relative paths resolve against the target directory.
        Existing paths are realpath-resolved. For a missing path, the nearest existing
        ancestor is realpath-resolved and the missing tail re-appended (a dangling symlink is
        followed to its target); a component that cannot be resolved (too long a name, a
        symlink loop, no search permission) is kept as written. Raises ``ValueError`` for a NUL
        byte and ``OSError`` when even that fails (a symlink chain too deep to follow).
        """
        return Path(self._resolve_str(self._absolute(path))[0])

    def is_path_within_workspace(self, path: str | os.PathLike[str]) -> bool:
        """Whether ``path``, once resolved, equals or lies inside a workspace directory.

        False for paths with a NUL byte. A path that cannot be fully resolved is judged by the
        part that can (see :meth:`resolve`): "outside" is only said of what resolves outside,
        and any other failure is left for the tool's own open to report.
        """
        return self._is_inside(path, self._dirs)

    def is_path_readable(self, path: str | os.PathLike[str]) -> bool:
        """Like :meth:`is_path_within_workspace`, read-only directories included."""
        return self._is_inside(path, self.roots(readable=True))

    def _is_inside(self, path: str | os.PathLike[str], roots: Iterable[str]) -> bool:
        try:
            resolved, _exists = self._resolve_str(self._absolute(path))
        except (OSError, ValueError, TypeError):
            return False
        return any(_within(resolved, d) for d in roots)

    def open(
        self, path: str | os.PathLike[str], flags: int = os.O_RDONLY, *, readable: bool = False
    ) -> int:
        """Open ``path`` (relative to the target directory) and check what was opened.

        Returns a descriptor that lies inside the workspace (or a read-only directory with
        ``readable=True``), checked on the descriptor itself, so a name swapped for an outside
        symlink after any earlier check is caught here. Raises
        :class:`~qwen_tools.fs.confined.OutsideRootsError` (a ``PermissionError``) when it is
        outside, ``ValueError`` for a NUL byte and the open's ``OSError`` otherwise.
        """
        return open_confined(self._absolute(path), self.roots(readable=readable), flags)

    def open_dir(self, path: str | os.PathLike[str], *, readable: bool = False) -> int:
        """:meth:`open` for a directory (``O_DIRECTORY``), e.g. for ``os.scandir(fd)``."""
        return open_confined(self._absolute(path), self.roots(readable=readable), directory=True)

    def get_directory_for(self, path: str | os.PathLike[str]) -> Path | None:
        """The workspace directory containing ``path`` (the deepest one), or ``None``."""
        try:
            resolved, _ = self._resolve_str(self._absolute(path))
        except (OSError, ValueError, TypeError):
            return None
        best: str | None = None
        for d in self._dirs:
            if _within(resolved, d) and (best is None or len(d) > len(best)):
                best = d
        return Path(best) if best is not None else None
