"""Atomic writes: mode, owner and symlinks kept, nothing left behind, never a torn file."""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from qwen_tools.fs.atomic import (
    current_umask,
    write_bytes_atomic,
    write_text_atomic,
)
from qwen_tools.fs.text_file import TextEncodingInfo

IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
NOBODY = 65534
SRC = str(Path(__file__).resolve().parents[2] / "src")


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def umask_027() -> Iterator[None]:
    previous = os.umask(0o027)
    try:
        yield
    finally:
        os.umask(previous)


def test_writes_the_bytes_and_leaves_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    target.write_bytes(b"old")
    write_bytes_atomic(target, b"new content")
    assert target.read_bytes() == b"new content"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]


def test_existing_mode_is_kept(tmp_path: Path) -> None:
    target = tmp_path / "script.sh"
    target.write_bytes(b"#!/bin/sh\n")
    target.chmod(0o750)
    write_bytes_atomic(target, b"#!/bin/sh\necho hi\n", mode=0o600)  # mode is for new files only
    assert _mode(target) == 0o750


@pytest.mark.usefixtures("umask_027")
def test_new_file_gets_the_umask_mode(tmp_path: Path) -> None:
    assert current_umask() == 0o027
    target = tmp_path / "new.txt"
    write_bytes_atomic(target, b"x")
    assert _mode(target) == 0o640


def test_new_file_takes_an_explicit_mode(tmp_path: Path) -> None:
    target = tmp_path / "secret.txt"
    write_bytes_atomic(target, b"x", mode=0o600)
    assert _mode(target) == 0o600


def test_writing_through_a_symlink_chain_keeps_the_links(tmp_path: Path) -> None:
    real = tmp_path / "real" / "file.txt"
    real.parent.mkdir()
    real.write_bytes(b"before")
    (tmp_path / "hop").symlink_to("real/file.txt")  # relative link
    link = tmp_path / "link.txt"
    link.symlink_to(tmp_path / "hop")  # absolute link to a link
    write_bytes_atomic(link, b"after")
    assert link.is_symlink()
    assert (tmp_path / "hop").is_symlink()
    assert real.read_bytes() == b"after"
    assert sorted(p.name for p in real.parent.iterdir()) == ["file.txt"]


def test_dangling_symlink_creates_its_target(tmp_path: Path) -> None:
    link = tmp_path / "link.txt"
    link.symlink_to("target.txt")
    write_bytes_atomic(link, b"made")
    assert link.is_symlink()
    assert (tmp_path / "target.txt").read_bytes() == b"made"


def test_symlink_loop_raises_eloop(tmp_path: Path) -> None:
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    with pytest.raises(OSError, match="Too many levels") as info:
        write_bytes_atomic(tmp_path / "a", b"x")
    assert info.value.errno is not None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "b"]


def test_directory_target_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "dir"
    target.mkdir()
    with pytest.raises(IsADirectoryError):
        write_bytes_atomic(target, b"x")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir"]


def test_missing_parent_is_not_created(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        write_bytes_atomic(tmp_path / "missing" / "file.txt", b"x")
    assert list(tmp_path.iterdir()) == []


@contextlib.contextmanager
def _unprivileged() -> Iterator[None]:
    """Act as ``nobody`` for the block when running as root (root ignores permissions)."""
    if not IS_ROOT:
        yield
        return
    os.seteuid(NOBODY)
    try:
        yield
    finally:
        os.seteuid(0)


def test_read_only_directory_raises_and_leaves_nothing(shared_dir: Path) -> None:
    folder = shared_dir / "ro"
    folder.mkdir()
    target = folder / "file.txt"
    target.write_bytes(b"old")
    if IS_ROOT:
        os.chown(target, NOBODY, -1)  # our own file, so the atomic path is taken
    folder.chmod(0o555)
    try:
        with _unprivileged(), pytest.raises(PermissionError):
            write_bytes_atomic(target, b"new")
        assert sorted(p.name for p in folder.iterdir()) == ["file.txt"]
        assert target.read_bytes() == b"old"
    finally:
        folder.chmod(0o755)


def _run(code: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": SRC}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_failure_mid_write_removes_the_temp_file_and_keeps_the_old_content(
    tmp_path: Path,
) -> None:
    """A write that fails after the temp file exists (file size limit: EFBIG) cleans up."""
    target = tmp_path / "file.txt"
    target.write_bytes(b"old content")
    done = _run(
        f"""
        import errno, resource, signal
        from qwen_tools.fs.atomic import write_bytes_atomic
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
        try:
            write_bytes_atomic({str(target)!r}, b"x" * 100_000)
        except OSError as exc:
            print(errno.errorcode[exc.errno])
        """
    )
    assert done.stdout.strip() == "EFBIG", done.stderr
    assert target.read_bytes() == b"old content"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file.txt"]


@pytest.mark.skipif(not IS_ROOT, reason="needs root to chown")
def test_root_keeps_the_owner_and_group(tmp_path: Path) -> None:
    target = tmp_path / "owned.txt"
    target.write_bytes(b"old")
    os.chown(target, 1234, 4321)
    write_bytes_atomic(target, b"new")
    info = target.stat()
    assert (info.st_uid, info.st_gid) == (1234, 4321)
    assert target.read_bytes() == b"new"


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A world-writable directory every user can reach (pytest's tmp dirs are private)."""
    folder = Path(tempfile.mkdtemp(prefix="qwen-tools-shared-"))
    folder.chmod(0o777)
    try:
        yield folder
    finally:
        shutil.rmtree(folder)


@pytest.mark.skipif(not IS_ROOT, reason="needs root to act as another user")
def test_file_owned_by_someone_else_is_rewritten_in_place(shared_dir: Path) -> None:
    """Like the reference: renaming would steal the file, so a non-owner writes in place."""
    target = shared_dir / "root-owned.txt"
    target.write_bytes(b"old")
    target.chmod(0o666)
    inode = target.stat().st_ino
    with _unprivileged():
        write_bytes_atomic(target, b"new from nobody")
    info = target.stat()
    assert (info.st_ino, info.st_uid, _mode(target)) == (inode, 0, 0o666)
    assert target.read_bytes() == b"new from nobody"
    assert sorted(p.name for p in shared_dir.iterdir()) == ["root-owned.txt"]


def test_write_text_atomic_encodes_with_the_info(tmp_path: Path) -> None:
    target = tmp_path / "t.txt"
    write_text_atomic(target, "a\nb\n", TextEncodingInfo("utf-16-le", True, "crlf"))
    assert target.read_bytes() == b"\xff\xfe" + "a\r\nb\r\n".encode("utf-16-le")
    write_text_atomic(target, "plain\n")
    assert target.read_bytes() == b"plain\n"


_WRITER = """
import sys
from qwen_tools.fs.atomic import write_bytes_atomic
path = sys.argv[1]
contents = [bytes([65]) * 5_000_000, bytes([66]) * 4_000_000 + b"tail"]
sys.stdout.write("ready\\n")
sys.stdout.flush()
i = 0
while True:
    write_bytes_atomic(path, contents[i % 2])
    i += 1
"""


def test_a_killed_writer_leaves_the_old_or_the_new_file_never_a_mix(tmp_path: Path) -> None:
    contents = (b"A" * 5_000_000, b"B" * 4_000_000 + b"tail")
    target = tmp_path / "big.bin"
    target.write_bytes(contents[0])
    rng = random.Random(1234)
    env = {**os.environ, "PYTHONPATH": SRC}
    for _ in range(30):
        child = subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(target)],
            env=env,
            stdout=subprocess.PIPE,
        )
        try:
            assert child.stdout is not None
            assert child.stdout.readline() == b"ready\n"
            time.sleep(rng.uniform(0.0, 0.12))
        finally:
            child.send_signal(signal.SIGKILL)
            child.wait()
            if child.stdout is not None:
                child.stdout.close()
        data = target.read_bytes()
        assert data in contents, f"torn file: {len(data)} bytes"
