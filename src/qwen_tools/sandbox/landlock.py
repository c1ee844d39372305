"""Start a program that can read only what it was allowed to, enforced by the kernel (Landlock).

A check made by our code on a path name, or even on a descriptor we opened, says nothing about
what a *separate program* opens later: ripgrep walks the tree and opens files itself, and an
outside process can swap any name on its way for a symlink to a file outside the workspace.
Landlock (Linux 5.13+) closes that for good: the program runs in a domain whose file-system
rights are the ones listed here and no others, checked by the kernel on every ``open`` after
every symlink was followed, for the program and everything it starts.

:func:`spawn_confined` builds a ruleset from a :class:`ReadPolicy` (read files and list
directories beneath some trees, read some single files, read and execute the program and the
libraries its loader maps), then starts the program from a *fresh, dedicated thread* that first
sets ``no_new_privs`` and restricts itself: Landlock applies to the calling thread only and is
inherited by the children it forks, so neither the rest of our process nor any pooled thread is
ever restricted (``preexec_fn`` is not used: it is unsafe in a process with threads). Every
file-system right the running kernel knows is *handled* (so denied unless listed: no writes, no
removals, no device ioctls), as are TCP bind/connect (ABI 4) and signals and abstract sockets
out of the domain (ABI 6). :func:`program_files` lists what a program needs to start: the
binary, the ELF loader it names and the libraries the loader maps (``<loader> --list``).

Why hand-written: it is three system calls and ``prctl``; of the Python bindings on PyPI the
only one with real use (``landlock``) is a 1.0 development pre-release, the others are new and
unused, and none documents starting a program from a thread of a multi-threaded process, which
is the one thing we need. System call numbers are those of every architecture with the unified
table (x86-64, i386, arm, arm64, riscv, powerpc, s390); elsewhere, on other systems, on kernels
without Landlock or when ``QWEN_TOOLS_LANDLOCK=off`` is set, :func:`abi_version` is 0 and callers
must not rely on confinement.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import re
import stat
import struct
import subprocess
import sys
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from qwen_tools.fs.confined import fd_real_path
from qwen_tools.process.prctl import set_no_new_privs

__all__ = ["LandlockError", "ReadPolicy", "abi_version", "program_files", "spawn_confined"]

DISABLE_ENV = "QWEN_TOOLS_LANDLOCK"
"""Set to ``off`` to act as if the kernel had no Landlock (tests, diagnosis)."""

_SYSCALLS = {"create_ruleset": 444, "add_rule": 445, "restrict_self": 446}
_UNIFIED_TABLE = {
    "x86_64", "amd64", "i386", "i686", "aarch64", "arm64", "armv7l", "armv8l",
    "riscv64", "ppc64le", "ppc64", "s390x",
}  # fmt: skip
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PT_INTERP = 3
_LIST_LINE = re.compile(r"(?:=>\s*)?(/\S+)\s+\(0x[0-9a-fA-F]+\)\s*$")

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_ABI1_FS = (1 << 13) - 1  # EXECUTE … MAKE_SYM
_REFER, _TRUNCATE, _IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
_NET_BIND_TCP, _NET_CONNECT_TCP = 1 << 0, 1 << 1
_SCOPE_ABSTRACT_UNIX, _SCOPE_SIGNAL = 1 << 0, 1 << 1


class LandlockError(OSError):
    """Landlock is unavailable, or building or applying a ruleset failed."""


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


@dataclass(frozen=True, slots=True)
class ReadPolicy:
    """What a confined program may open: nothing else, for any purpose.

    ``trees``: directories beneath which files may be read and directories listed (must be
    realpath-resolved: each is checked to be what was opened). ``files``: single files that may
    be read. ``programs``: files that may be read and executed (the program, its loader and
    libraries). Paths that do not exist are skipped.
    """

    trees: tuple[str, ...]
    files: tuple[str, ...] = ()
    programs: tuple[str, ...] = ()


# -- the system calls -----------------------------------------------------------------------

_libc: list[Any] = []
_abi: list[int] = []


def _lib() -> Any:
    if not _libc:
        lib = ctypes.CDLL(None, use_errno=True)
        lib.syscall.restype = ctypes.c_long
        _libc.append(lib)
    return _libc[0]


def _syscall(name: str, *args: Any) -> int:
    result = int(_lib().syscall(ctypes.c_long(_SYSCALLS[name]), *args))
    if result < 0:
        code = ctypes.get_errno()
        raise LandlockError(code, f"landlock_{name}: {os.strerror(code)}")
    return result


def _probe_abi() -> int:
    if sys.platform != "linux" or platform.machine().lower() not in _UNIFIED_TABLE:
        return 0
    try:
        return _syscall("create_ruleset", None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    except (LandlockError, OSError, AttributeError):
        return 0  # ENOSYS (no Landlock), EOPNOTSUPP (disabled at boot), seccomp filters…


def abi_version() -> int:
    """The kernel's Landlock ABI version, or 0 when confinement is unavailable or turned off."""
    if os.environ.get(DISABLE_ENV, "").lower() in ("off", "0", "false", "no"):
        return 0
    if not _abi:
        _abi.append(_probe_abi())
    return _abi[0]


# -- what a program needs to start ----------------------------------------------------------


def _interpreter(binary: str) -> str | None:
    """The ``PT_INTERP`` of an ELF file (``None`` for a static binary or a non-ELF file)."""
    with open(binary, "rb") as fh:
        head = fh.read(64)
        if head[:4] != b"\x7fELF" or head[4] not in (1, 2) or head[5] not in (1, 2):
            return None
        wide, order = head[4] == 2, "<" if head[5] == 1 else ">"
        if wide:
            phoff, phentsize, phnum = struct.unpack_from(order + "Q14xHH", head, 32)
        else:
            phoff, phentsize, phnum = struct.unpack_from(order + "I10xHH", head, 28)
        for index in range(phnum):
            fh.seek(phoff + index * phentsize)
            entry = fh.read(phentsize)
            if struct.unpack_from(order + "I", entry)[0] != _PT_INTERP:
                continue
            offset, size = struct.unpack_from(order + ("4xQ16xQ" if wide else "I8xI"), entry, 4)
            fh.seek(offset)
            return fh.read(size).rstrip(b"\0").decode("utf-8", "surrogateescape")
    return None


def program_files(command: str) -> tuple[str, ...] | None:
    """The binary, its loader and libraries (realpaths), or ``None`` when they cannot be known."""
    binary = os.path.realpath(command)
    try:
        loader = _interpreter(binary)
    except OSError:
        return None
    if loader is None:
        return (binary,)
    try:
        listing = subprocess.run(
            [loader, "--list", binary], capture_output=True, timeout=10,
            stdin=subprocess.DEVNULL, check=True,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    libraries = [
        match.group(1)
        for line in listing.stdout.decode("utf-8", "surrogateescape").splitlines()
        if (match := _LIST_LINE.search(line)) is not None
    ]
    files = [binary, loader, *libraries]
    return tuple(dict.fromkeys(os.path.realpath(f) for f in files))


def _handled(abi: int) -> _RulesetAttr:
    fs = _ABI1_FS
    if abi >= 2:
        fs |= _REFER
    if abi >= 3:
        fs |= _TRUNCATE
    if abi >= 5:
        fs |= _IOCTL_DEV
    net = _NET_BIND_TCP | _NET_CONNECT_TCP if abi >= 4 else 0
    scoped = _SCOPE_ABSTRACT_UNIX | _SCOPE_SIGNAL if abi >= 6 else 0
    return _RulesetAttr(fs, net, scoped)


def _attr_size(abi: int) -> int:
    return 8 if abi < 4 else 16 if abi < 6 else 24


def _open_path(path: str, *, directory: bool) -> int | None:
    """An ``O_PATH`` descriptor of ``path`` (symlinks followed), ``None`` if it is not there."""
    flags = os.O_PATH | os.O_CLOEXEC | (os.O_DIRECTORY if directory else 0)
    try:
        fd = os.open(path, flags)
    except (FileNotFoundError, NotADirectoryError):
        return None
    mode = os.fstat(fd).st_mode
    if stat.S_ISDIR(mode) if directory else stat.S_ISREG(mode):
        return fd
    os.close(fd)
    return None


def _add_rule(ruleset: int, fd: int, access: int) -> None:
    attr = _PathBeneathAttr(access, fd)
    _syscall(
        "add_rule",
        ctypes.c_int(ruleset),
        ctypes.c_int(_RULE_PATH_BENEATH),
        ctypes.byref(attr),
        ctypes.c_uint32(0),
    )


def _add_rules(ruleset: int, paths: Iterable[str], access: int, *, directory: bool) -> None:
    for path in paths:
        fd = _open_path(path, directory=directory)
        if fd is None:
            continue
        try:
            if directory and fd_real_path(fd) not in (None, path):
                # Something on the way was swapped since the path was resolved: never widen.
                raise LandlockError(errno.EACCES, f"{path} moved while confining", path)
            _add_rule(ruleset, fd, access)
        finally:
            os.close(fd)


def _build(policy: ReadPolicy, abi: int) -> int:
    attr = _handled(abi)
    ruleset = _syscall(
        "create_ruleset", ctypes.byref(attr), ctypes.c_size_t(_attr_size(abi)), ctypes.c_uint32(0)
    )
    try:
        _add_rules(ruleset, policy.trees, READ_FILE | READ_DIR, directory=True)
        _add_rules(ruleset, policy.files, READ_FILE, directory=False)
        _add_rules(ruleset, policy.programs, READ_FILE | EXECUTE, directory=False)
    except BaseException:
        os.close(ruleset)
        raise
    return ruleset


def _restrict_this_thread(ruleset: int) -> None:
    try:
        set_no_new_privs()
    except OSError as exc:
        raise LandlockError(exc.errno or errno.EPERM, str(exc.strerror)) from exc
    _syscall("restrict_self", ctypes.c_int(ruleset), ctypes.c_uint32(0))


def spawn_confined(
    argv: Sequence[str], policy: ReadPolicy, **popen_kwargs: Any
) -> subprocess.Popen[bytes]:
    """``subprocess.Popen(argv, **popen_kwargs)``, the process confined to ``policy``.

    Blocks only for the fork and exec. ``subprocess.DEVNULL`` is honoured (``/dev/null`` is
    opened before the restriction, which would forbid it). Raises :class:`LandlockError`
    when Landlock is unavailable or the ruleset cannot be built or applied, and the ``Popen``
    errors otherwise; nothing is started then.
    """
    abi = abi_version()
    if abi <= 0:
        raise LandlockError(errno.ENOSYS, "Landlock is not available")
    ruleset = _build(policy, abi)
    devnull: int | None = None
    for stream in ("stdin", "stdout", "stderr"):
        if popen_kwargs.get(stream) == subprocess.DEVNULL:
            if devnull is None:
                devnull = os.open(os.devnull, os.O_RDWR | os.O_CLOEXEC)
            popen_kwargs[stream] = devnull
    outcome: list[subprocess.Popen[bytes] | BaseException] = []

    def confined_start() -> None:  # runs in a thread of its own, which ends right after
        try:
            _restrict_this_thread(ruleset)
            outcome.append(subprocess.Popen(list(argv), **popen_kwargs))
        except BaseException as exc:
            outcome.append(exc)

    try:
        thread = threading.Thread(target=confined_start, name="qwen-tools-confined-spawn")
        thread.start()
        thread.join()
    finally:
        os.close(ruleset)
        if devnull is not None:
            os.close(devnull)
    result = outcome[0]
    if isinstance(result, BaseException):
        raise result
    return result
