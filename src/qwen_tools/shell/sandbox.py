"""Optional bubblewrap sandbox for shell commands (``tools.sandbox = "bwrap"``).

The whole filesystem is mounted read-only, then the policy's writable directories (workspace,
project temp dir, ``/tmp``) are bound back read-write; ``/dev`` and ``/proc`` are fresh, the
command gets its own PID namespace, and the network is cut unless the policy allows it
(``tools.sandboxNetwork``). Writes elsewhere fail with ``EROFS``.

Process control: the caller starts ``bwrap`` in a new session/process group as usual. We do not
pass ``--new-session``: it would move the sandboxed processes into a session of their own,
out of reach of ``killpg`` on bwrap's group (they would survive a cancel). The caller's own
``setsid`` already detaches the command from the user's terminal. ``--die-with-parent`` and the
PID namespace make sure nothing outlives bwrap even if only bwrap itself is killed.
All capabilities are dropped: bwrap run as root would otherwise keep them, and a
``mount -o remount,rw /`` inside would undo the read-only view. A command
killed by a signal makes bwrap exit with ``128 + signal`` (e.g. 137), not by the signal itself.
Daemons a command starts with ``&`` end when the command ends (the namespace goes away).

Many sessions in one process (:mod:`qwen_tools.pool`): :func:`confine_workspaces` makes every
policy built here afterwards hide a directory that holds them all (an empty ``tmpfs`` over it)
and give ``/tmp`` a private ``tmpfs``: a command then writes only its own workspace and its own
temp dir, and cannot read another session's files.

This is beyond Qwen Code 0.24.4's Linux behaviour (which runs shell commands unsandboxed).
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = [
    "INSTALL_HINT",
    "SandboxPolicy",
    "SandboxUnavailable",
    "bwrap_path",
    "confine_workspaces",
    "wrap_command",
]

INSTALL_HINT = (
    "Install bubblewrap (Debian/Ubuntu: `apt-get install bubblewrap`; Fedora: "
    "`dnf install bubblewrap`; Arch: `pacman -S bubblewrap`) and make sure unprivileged user "
    'namespaces are allowed, or remove "sandbox": "bwrap" from the "tools" settings.'
)
_BASE_ARGS = ("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc")
_ISOLATION_ARGS = ("--unshare-pid", "--die-with-parent", "--cap-drop", "ALL")


class SandboxUnavailable(Exception):
    """Settings ask for the bwrap sandbox but bwrap cannot run here."""

    def __init__(self, reason: str = "bwrap is not available") -> None:
        super().__init__(f"The bwrap sandbox cannot run: {reason}. {INSTALL_HINT}")
        self.reason = reason


@dataclass(frozen=True)
class SandboxPolicy:
    """What a sandboxed command may touch: these directories read-write, the network or not."""

    writable_dirs: tuple[str, ...]
    allow_network: bool = False
    hidden_dirs: tuple[str, ...] = ()
    """Covered by an empty ``tmpfs`` (before the writable binds, which may lie inside)."""
    private_tmp: bool = False
    """``/tmp`` is a fresh ``tmpfs`` of this command's own, not the host's."""

    @classmethod
    def for_workspace(
        cls,
        workspace_dirs: Iterable[str | os.PathLike[str]],
        *,
        project_temp_dir: str | os.PathLike[str] | None = None,
        allow_network: bool = False,
    ) -> SandboxPolicy:
        """The usual policy: workspace dirs, the project temp dir, the system temp dir and /tmp."""
        dirs = [os.fspath(d) for d in workspace_dirs]
        if project_temp_dir is not None:
            dirs.append(os.fspath(project_temp_dir))
        if _confined_root is not None:
            return cls(tuple(dict.fromkeys(dirs)), allow_network, (_confined_root,), True)
        dirs.extend((tempfile.gettempdir(), "/tmp"))
        return cls(tuple(dict.fromkeys(dirs)), allow_network)


_confined_root: str | None = None


def confine_workspaces(root: str | os.PathLike[str] | None) -> None:
    """From now on (in this process) hide ``root`` from sandboxed commands, except the
    command's own workspace and temp dir, and give each command a private ``/tmp``;
    ``None`` undoes it. For a process hosting many sessions whose directories are under ``root``.
    """
    global _confined_root
    _confined_root = None if root is None else os.path.realpath(os.fspath(root))


_probe_errors: dict[str, str] = {}


def _probe(path: str) -> bool:
    argv = [path, *_BASE_ARGS, *_ISOLATION_ARGS, "--unshare-net", "--", "true"]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        _probe_errors[path] = str(exc)
        return False
    if done.returncode != 0:
        _probe_errors[path] = done.stderr.strip() or f"exit status {done.returncode}"
    return done.returncode == 0


@functools.cache
def bwrap_path() -> str | None:
    """The path of a ``bwrap`` that can create its namespaces here, else ``None`` (probed once)."""
    path = shutil.which("bwrap")
    return path if path is not None and _probe(path) else None


def _unavailable_reason() -> str:
    path = shutil.which("bwrap")
    if path is None:
        return "bwrap was not found on PATH"
    detail = _probe_errors.get(path)
    return f"{path} cannot create its namespaces here" + (f" ({detail})" if detail else "")


def _writable_binds(dirs: Iterable[str]) -> list[str]:
    args: list[str] = []
    seen: set[str] = set()
    for directory in dirs:
        real = os.path.realpath(directory)
        if real in seen or not os.path.isdir(real):
            continue
        seen.add(real)
        args += ["--bind", real, real]
    return args


def wrap_command(argv: list[str], policy: SandboxPolicy, *, cwd: str | None = None) -> list[str]:
    """The ``bwrap`` argv that runs ``argv`` under ``policy`` (``--chdir cwd`` when given).

    Missing writable directories are skipped. Raises :class:`SandboxUnavailable` when bwrap is
    not installed or cannot create namespaces here.
    """
    path = bwrap_path()
    if path is None:
        raise SandboxUnavailable(_unavailable_reason())
    args = [path, *_BASE_ARGS]
    if policy.private_tmp:
        args += ["--tmpfs", "/tmp"]
    for hidden in sorted(os.path.realpath(d) for d in policy.hidden_dirs):
        args += ["--tmpfs", hidden]
    args += [*_writable_binds(policy.writable_dirs), *_ISOLATION_ARGS]
    if not policy.allow_network:
        args.append("--unshare-net")
    if cwd is not None:
        args += ["--chdir", os.path.realpath(cwd)]
    return [*args, "--", *argv]
