"""Named sessions (``qwen-tools call --session NAME``): a session's state kept between commands.

The state lives in ``<runtime dir>/tmp/<project hash>/sessions/<NAME>.json`` (the runtime dir is
``$QWEN_RUNTIME_DIR``, else ``~/.qwen`` or ``$QWEN_HOME``): the read cache, the "always allow"
answers, the approval mode set during a command (plan mode, by a tool; not a command's own
``--approval-mode``, which applies to that command only) and the session id (the todo list is stored
under it). Directories are created 0700, files 0600; the name is checked (letters, digits,
``.``, ``_``, ``-``; at most 128 characters; not ``.`` or ``..``).

One command holds the session for its whole run: an exclusive ``flock`` on ``<NAME>.lock``
taken before the state is loaded and released after it was saved (atomically, through
:mod:`qwen_tools.fs.atomic`), so concurrent commands on one name run one after the other and
each sees what the previous one left. A state file that cannot be read is set aside as
``<NAME>.json.bad`` and the session starts afresh (logged).
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import re
import uuid
from pathlib import Path
from typing import Any

from qwen_tools.config.session import SessionState
from qwen_tools.config.tool_settings import ApprovalMode

__all__ = ["NamedSession", "SessionNameError", "validate_session_name"]

logger = logging.getLogger("qwen_tools.session")

_NAME = re.compile(r"[A-Za-z0-9._-]{1,128}")
_VERSION = 1


class SessionNameError(ValueError):
    """A session name that could name something else than one file of the sessions directory."""


def validate_session_name(name: str) -> str:
    """``name`` if it is a valid session name; raises :class:`SessionNameError` otherwise."""
    if not _NAME.fullmatch(name) or name in (".", ".."):
        raise SessionNameError(
            f"invalid session name {name[:40]!r}: use 1 to 128 letters, digits, '.', '_' or '-'"
            " (not '.' or '..')"
        )
    return name


def _private_dir(path: Path) -> None:
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = os.lstat(path)
    if not os.path.isdir(path) or os.path.islink(path) or info.st_uid != os.geteuid():
        raise OSError(f"not a directory of ours: {path}")
    if info.st_mode & 0o077:
        os.chmod(path, 0o700)


class NamedSession:
    """The lock and the stored state of one named session (a context manager; sync)."""

    def __init__(self, directory: Path, name: str) -> None:
        self.name = validate_session_name(name)
        self.directory = directory
        self.path = directory / f"{name}.json"
        self._fd: int | None = None
        self.session_id = ""
        self.approval_mode: ApprovalMode | None = None
        self.state = SessionState()

    def acquire(self) -> NamedSession:
        """Take the session's lock (waits for another command holding it), then load it."""
        _private_dir(self.directory)
        flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(self.directory / f"{self.name}.lock", flags, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        self._load()
        return self

    def release(self) -> None:
        """Let the next command have the session (safe to call more than once)."""
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)  # closing the descriptor drops the flock

    def __enter__(self) -> NamedSession:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()

    def _load(self) -> None:
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            self.session_id = f"cli-{uuid.uuid4().hex}"
            return
        try:
            data = json.loads(raw)
            if not isinstance(data, dict) or data.get("version") != _VERSION:
                raise ValueError("unknown format")
            self._restore(data)
        except (ValueError, TypeError) as exc:
            logger.warning("session %s: unreadable state (%s); starting afresh", self.name, exc)
            os.replace(self.path, self.path.with_name(self.path.name + ".bad"))
            self.session_id = f"cli-{uuid.uuid4().hex}"
            self.state = SessionState()
            self.approval_mode = None

    def _restore(self, data: dict[str, Any]) -> None:
        session_id = data.get("sessionId")
        if not isinstance(session_id, str) or not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", session_id):
            raise ValueError("bad session id")
        self.session_id = session_id
        mode = data.get("approvalMode")
        self.approval_mode = ApprovalMode.parse(mode) if isinstance(mode, str) else None
        state = SessionState()
        allowed = data.get("alwaysAllowed", {})
        for key, target in (
            ("tools", state.always_allowed_tools),
            ("mcpServers", state.always_allowed_mcp_servers),
            ("shellRoots", state.always_allowed_shell_roots),
            ("memoryFiles", state.always_allowed_memory_files),
        ):
            target.update(v for v in allowed.get(key, []) if isinstance(v, str))
        entries = data.get("readCache", [])
        state.read_cache.import_entries([e for e in entries if isinstance(e, dict)])
        self.state = state

    def save(self, state: SessionState, approval_mode: ApprovalMode | None) -> None:
        """Store ``state`` (call while holding the lock).

        ``approval_mode``: a mode set during the command (plan mode), or ``None`` to keep the
        one stored before (if any).
        """
        mode = approval_mode or self.approval_mode
        from qwen_tools.fs.atomic import write_bytes_atomic

        data = {
            "version": _VERSION,
            "sessionId": self.session_id,
            "approvalMode": mode.value if mode is not None else None,
            "alwaysAllowed": {
                "tools": sorted(state.always_allowed_tools),
                "mcpServers": sorted(state.always_allowed_mcp_servers),
                "shellRoots": sorted(state.always_allowed_shell_roots),
                "memoryFiles": sorted(state.always_allowed_memory_files),
            },
            "readCache": state.read_cache.export_entries(),
        }
        text = json.dumps(data, ensure_ascii=True, indent=1)
        write_bytes_atomic(self.path, text.encode(), mode=0o600)
