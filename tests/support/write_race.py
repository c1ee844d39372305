"""Helpers for attacking writes: swappers, a snapshot to prove a tree untouched, a writer to kill.

:class:`DirSwapper` is :class:`~support.swapper.Swapper` for directories whose inside copy may
gain files and sub-directories while it is swapped in (a racing ``mkdir -p`` and write): the
swap is one atomic exchange and the copy swapped out is removed whole. :class:`ProcessSwapper`
is the same attack from a separate process, flipping the name with
``renameat2(RENAME_EXCHANGE)`` in parallel with the test. :func:`snapshot` records every entry
below a directory with its type, bytes, inode and modification time, so "the outside was never
modified" is a plain equality. :func:`start_writer` starts a real process that keeps replacing
a file through ``write_bytes_atomic`` with large contents, for ``kill -9`` tests.
"""

from __future__ import annotations

import ctypes
import os
import stat
import subprocess
import sys
from pathlib import Path

from support.swapper import Swapper

SRC = str(Path(__file__).resolve().parents[2] / "src")

Entry = tuple[str, int, int, int, bytes]


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> None:
    """Swap two names in one step (``renameat2(RENAME_EXCHANGE)``): neither is ever missing."""
    libc = ctypes.CDLL(None, use_errno=True)
    done = libc.renameat2(
        _AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), ctypes.c_uint(_RENAME_EXCHANGE)
    )
    if done != 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code), str(a), None, str(b))


class DirSwapper(Swapper):
    """Swap a directory name between a real inside directory and a symlink to an outside one.

    Both objects are made once; each swap is one ``renameat2(RENAME_EXCHANGE)`` of the two
    names, so the name is never missing (a racing ``mkdir -p`` cannot recreate it in between),
    whatever the writer adds to the inside directory, and the name spends as long as one as
    the other.
    """

    def __init__(self, name: Path, outside_target: Path) -> None:
        super().__init__(name, outside_target, directory=True)

    def _run(self) -> None:
        spare = self.name.parent / f".{self.name.name}.flip"
        spare.symlink_to(self.outside_target)
        while not self._stop.is_set():
            _exchange(spare, self.name)
            self.swaps += 1
        if os.path.islink(self.name):  # leave the inside directory under the name
            _exchange(spare, self.name)


_FLIPPER = """
import ctypes, os, signal, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: never outlive the test process
if os.getppid() != int(sys.argv[5]):
    os._exit(1)
name, spare, target, kind = sys.argv[1:5]
flips = 0
def stop(*_):
    sys.stdout.write(f"{flips}\\n")
    sys.stdout.flush()
    os._exit(0)
signal.signal(signal.SIGTERM, stop)
sys.stdout.write("ready\\n")
sys.stdout.flush()
while True:
    if libc.renameat2(-100, os.fsencode(spare), -100, os.fsencode(name), ctypes.c_uint(2)):
        raise OSError(ctypes.get_errno(), "renameat2")
    flips += 1
    if kind == "file" and not os.path.islink(name) and not os.path.islink(spare):
        # a write replaced the link itself (rename does not follow): put a fresh link back
        os.symlink(target, spare + ".new")
        os.replace(spare + ".new", spare)
"""


class ProcessSwapper:
    """An outside *process* flipping ``name`` between an inside object and an outside symlink.

    Both objects exist from the start and each flip is one ``renameat2(RENAME_EXCHANGE)``, so
    the name alternates as fast as the kernel allows, in parallel with the test (another CPU),
    and is never missing. ``swaps`` is known after the block.
    """

    def __init__(self, name: Path, outside_target: Path, *, directory: bool = False) -> None:
        self.name = name
        self.outside_target = outside_target
        self.directory = directory
        self.swaps = 0
        self._spare = name.parent / f".{name.name}.flip"
        self._child: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> ProcessSwapper:
        if self.directory:
            self.name.mkdir()
            (self.name / "inside.txt").write_text("inside needle\n")
        else:
            self.name.write_text("inside needle\n")
        self._spare.symlink_to(self.outside_target)
        kind = "dir" if self.directory else "file"
        args = [str(self.name), str(self._spare), str(self.outside_target), kind, str(os.getpid())]
        self._child = subprocess.Popen(
            [sys.executable, "-c", _FLIPPER, *args], stdout=subprocess.PIPE
        )
        assert self._child.stdout is not None
        if self._child.stdout.readline() != b"ready\n":
            self._stop()
            raise AssertionError("the swapping process did not start")
        return self

    def _stop(self) -> None:
        child = self._child
        if child is None:
            return
        self._child = None
        child.terminate()
        out, _ = child.communicate(timeout=30)
        self.swaps = int(out.strip() or 0)

    def __exit__(self, *exc: object) -> None:
        self._stop()


def swapper(
    kind: str, name: Path, outside_target: Path, *, directory: bool = False
) -> Swapper | ProcessSwapper:
    """``"thread"``: :class:`Swapper` (or :class:`DirSwapper`); ``"process"``: a :class:`ProcessSwapper`."""
    if kind == "process":
        return ProcessSwapper(name, outside_target, directory=directory)
    return DirSwapper(name, outside_target) if directory else Swapper(name, outside_target)


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "link"
    return "dir" if stat.S_ISDIR(mode) else "file"


def snapshot(root: Path) -> dict[str, Entry]:
    """Every entry below ``root`` (``lstat``: links not followed), keyed by relative path."""
    entries: dict[str, Entry] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in [*dirnames, *filenames]:
            path = os.path.join(dirpath, name)
            info = os.lstat(path)
            kind = _kind(info.st_mode)
            data = (
                os.readlink(path).encode()
                if kind == "link"
                else Path(path).read_bytes()
                if kind == "file"
                else b""
            )
            entries[os.path.relpath(path, root)] = (
                kind,
                info.st_ino,
                info.st_mtime_ns,
                info.st_size,
                data,
            )
    return entries


_WRITER = """
import ctypes, os, signal, sys
ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: never outlive the test process
if os.getppid() != int(sys.argv[1]):
    os._exit(1)
from qwen_tools.fs.atomic import write_bytes_atomic
path, size = sys.argv[2], int(sys.argv[3])
roots = sys.argv[4:] or None
contents = [b"A" * size, b"B" * (size - 4) + b"tail"]
sys.stdout.write("ready\\n")
sys.stdout.flush()
i = 0
while True:
    write_bytes_atomic(path, contents[i % 2], roots=roots)
    i += 1
"""


def writer_contents(size: int) -> tuple[bytes, bytes]:
    """The two contents the writer of :func:`start_writer` alternates between."""
    return b"A" * size, b"B" * (size - 4) + b"tail"


def start_writer(path: str, size: int, roots: list[str] | None = None) -> subprocess.Popen[bytes]:
    """A process replacing ``path`` again and again; it has printed ``ready`` when this returns."""
    child = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(os.getpid()), path, str(size), *(roots or [])],
        env={**os.environ, "PYTHONPATH": SRC},
        stdout=subprocess.PIPE,
    )
    assert child.stdout is not None
    if child.stdout.readline() != b"ready\n":
        child.kill()
        child.wait()
        raise AssertionError("the writer process did not start")
    return child
