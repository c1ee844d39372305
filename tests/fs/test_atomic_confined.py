"""Atomic writes confined to allowed roots, checked on the directory actually opened.

Attacks: a symlink (static or swapped in by a racing thread) that would carry the write, its
temporary file or a ``mkdir -p`` outside; ``..`` after a symlink (the temp file must go in the
real parent, not the lexically normalised one); a writer killed with ``kill -9`` mid-write (its
temp file is removed by the next write in that directory, never a live writer's).
"""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from qwen_tools.fs.atomic import write_bytes_atomic
from qwen_tools.fs.confined import OutsideRootsError
from qwen_tools.fs.write_target import make_parent_dirs
from support.write_race import SRC, snapshot, start_writer, swapper, writer_contents

IS_ROOT = os.geteuid() == 0
RACE_TRIES = 300


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    """``(ws, outside)``: realpath-resolved siblings; ``outside/secret.txt`` exists."""
    base = Path(os.path.realpath(tmp_path))
    ws, outside = base / "ws", base / "outside"
    ws.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("top secret\n")
    return ws, outside


def _temps(directory: Path) -> list[str]:
    return sorted(n for n in os.listdir(directory) if n.startswith(".") and n.endswith(".tmp"))


# -- where the write lands ----------------------------------------------------------------


def test_temp_file_goes_in_the_real_parent_not_the_lexical_one(
    layout: tuple[Path, Path],
) -> None:
    """``W/lnk/../../out/f.txt`` with ``W/lnk -> W/a/b`` is ``W/out/f.txt`` for the kernel."""
    ws, _ = layout
    (ws / "a" / "b").mkdir(parents=True)
    (ws / "lnk").symlink_to(ws / "a" / "b")
    (ws / "out").mkdir()
    path = f"{ws}/lnk/../../out/f.txt"  # lexically <tmp>/out/f.txt, which does not exist
    for roots in (None, [str(ws)]):
        write_bytes_atomic(path, b"inside", roots=roots)
        assert (ws / "out" / "f.txt").read_bytes() == b"inside"
        assert not (ws.parent / "out").exists()
        assert os.listdir(ws / "out") == ["f.txt"]


def test_outside_symlink_target_is_refused(layout: tuple[Path, Path]) -> None:
    ws, outside = layout
    (ws / "x.txt").symlink_to(outside / "secret.txt")
    (ws / "dangling.txt").symlink_to(outside / "new.txt")
    before = snapshot(outside)
    for name in ("x.txt", "dangling.txt"):
        with pytest.raises(OutsideRootsError):
            write_bytes_atomic(ws / name, b"pwned", roots=[str(ws)])
    assert snapshot(outside) == before
    assert sorted(os.listdir(ws)) == ["dangling.txt", "x.txt"]


def test_inside_symlink_chain_is_written_and_the_links_stay(layout: tuple[Path, Path]) -> None:
    ws, _ = layout
    (ws / "sub").mkdir()
    (ws / "sub" / "real.txt").write_bytes(b"old")
    (ws / "hop").symlink_to("sub/real.txt")
    (ws / "link").symlink_to(ws / "hop")
    (ws / "sub" / "dangling").symlink_to("made.txt")
    write_bytes_atomic(ws / "link", b"new", roots=[str(ws)])
    write_bytes_atomic(ws / "sub" / "dangling", b"made", roots=[str(ws)])
    assert (ws / "link").is_symlink() and (ws / "hop").is_symlink()
    assert (ws / "sub" / "real.txt").read_bytes() == b"new"
    assert (ws / "sub" / "made.txt").read_bytes() == b"made"
    assert sorted(os.listdir(ws / "sub")) == ["dangling", "made.txt", "real.txt"]


def test_a_chain_through_an_outside_link_is_refused(layout: tuple[Path, Path]) -> None:
    """Every hop is looked up in a checked directory: a link outside is never consulted."""
    ws, outside = layout
    (ws / "real.txt").write_bytes(b"old")
    (outside / "hop").symlink_to(ws / "real.txt")
    (ws / "link").symlink_to(outside / "hop")
    with pytest.raises(OutsideRootsError):
        write_bytes_atomic(ws / "link", b"new", roots=[str(ws)])
    assert (ws / "real.txt").read_bytes() == b"old"


def test_a_long_name_gets_a_temp_name_that_fits(layout: tuple[Path, Path]) -> None:
    ws, _ = layout
    name = "n" * 250  # valid (NAME_MAX is 255), but ".<name>.<random>.tmp" would not be
    write_bytes_atomic(ws / name, b"long", roots=[str(ws)])
    assert (ws / name).read_bytes() == b"long"
    assert os.listdir(ws) == [name]
    too_long = ws / ("n" * 256)
    with pytest.raises(OSError) as info:
        write_bytes_atomic(too_long, b"x", roots=[str(ws)])
    assert info.value.errno == errno.ENAMETOOLONG
    assert info.value.filename == str(too_long)
    assert os.listdir(ws) == [name]


# -- mkdir -p ------------------------------------------------------------------------------


def test_parent_dirs_are_made_where_the_kernel_resolves_them(layout: tuple[Path, Path]) -> None:
    ws, outside = layout
    (ws / "a" / "b").mkdir(parents=True)
    (ws / "lnk").symlink_to(ws / "a" / "b")
    make_parent_dirs(f"{ws}/lnk/../../new/deep/f.txt", [str(ws)])
    assert (ws / "new" / "deep").is_dir()
    assert not (ws.parent / "new").exists()
    (ws / "out").symlink_to(outside)
    before = snapshot(outside)
    with pytest.raises(OutsideRootsError):
        make_parent_dirs(f"{ws}/out/made/f.txt", [str(ws)])
    assert snapshot(outside) == before


# -- races ---------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["thread", "process"])
def test_racing_file_swaps_never_write_outside(layout: tuple[Path, Path], kind: str) -> None:
    ws, outside = layout
    before = snapshot(outside)
    outcomes = {"written": 0, "refused": 0}
    with swapper(kind, ws / "x.txt", outside / "secret.txt") as racer:
        for i in range(RACE_TRIES):
            try:
                write_bytes_atomic(ws / "x.txt", f"mine {i}\n".encode(), roots=[str(ws)])
                outcomes["written"] += 1
            except OutsideRootsError:
                outcomes["refused"] += 1
    assert racer.swaps > 0
    assert snapshot(outside) == before, outcomes


@pytest.mark.parametrize("kind", ["thread", "process"])
def test_racing_directory_swaps_never_write_or_mkdir_outside(
    layout: tuple[Path, Path], kind: str
) -> None:
    ws, outside = layout
    before = snapshot(outside)
    with swapper(kind, ws / "d", outside, directory=True) as racer:
        for i in range(RACE_TRIES):
            target = ws / "d" / ("sub" if i % 2 else "") / "new.txt"
            try:
                make_parent_dirs(target, [str(ws)])
                write_bytes_atomic(target, b"mine\n", roots=[str(ws)])
            except (OutsideRootsError, FileNotFoundError, NotADirectoryError):
                pass  # refused, or the directory was moved away mid-write
    assert racer.swaps > 0
    assert snapshot(outside) == before


# -- killed writers ------------------------------------------------------------------------

_SIZE = 20_000_000


def _kill_leaving_a_temp(target: Path, roots: list[str] | None) -> str:
    """Start writers and ``kill -9`` each while its temp file exists, until one is left."""
    for _ in range(50):
        child = start_writer(str(target), _SIZE, roots)
        try:
            for _ in range(100_000):
                if _temps(target.parent):
                    break
                time.sleep(0.001)
        finally:
            child.send_signal(signal.SIGKILL)
            child.wait()
            assert child.stdout is not None
            child.stdout.close()
        left = _temps(target.parent)
        if left:
            assert target.read_bytes() in writer_contents(_SIZE)
            return left[0]
    raise AssertionError("no kill ever left a temporary file")


def test_a_killed_writers_temp_file_is_removed_by_the_next_write(
    layout: tuple[Path, Path],
) -> None:
    ws, _ = layout
    (ws / "a" / "b").mkdir(parents=True)
    (ws / "lnk").symlink_to(ws / "a" / "b")
    (ws / "out").mkdir()
    (ws.parent / "out").mkdir()  # the lexical parent, outside: must never see a temp file
    target = ws / "out" / "big.bin"
    target.write_bytes(writer_contents(_SIZE)[0])
    lexical = Path(f"{ws}/lnk/../../out/big.bin")
    left = _kill_leaving_a_temp(lexical, [str(ws)])
    assert left.startswith(".big.bin.")
    assert os.listdir(ws.parent / "out") == []
    write_bytes_atomic(ws / "out" / "other.txt", b"x", roots=[str(ws)])
    assert sorted(os.listdir(ws / "out")) == ["big.bin", "other.txt"]
    assert target.read_bytes() in writer_contents(_SIZE)


_HOLDER = """
import os, sys
from qwen_tools.fs.temp_files import create_temp
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
temp_fd, name = create_temp(fd, "f.txt")
print(name, flush=True)
sys.stdin.read()
"""


def test_a_live_writers_temp_file_is_kept(layout: tuple[Path, Path]) -> None:
    ws, _ = layout
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(ws)],
        env={**os.environ, "PYTHONPATH": SRC},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    try:
        assert holder.stdout is not None
        name = holder.stdout.readline().decode().strip()
        assert name.startswith(".f.txt.") and name.endswith(".tmp")
        write_bytes_atomic(ws / "g.txt", b"x", roots=[str(ws)])
        assert sorted(os.listdir(ws)) == sorted([name, "g.txt"])
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
        for stream in (holder.stdin, holder.stdout):
            if stream is not None:
                stream.close()
    write_bytes_atomic(ws / "g.txt", b"y", roots=[str(ws)])
    assert os.listdir(ws) == ["g.txt"]


def test_only_our_unlocked_temp_files_are_removed(layout: tuple[Path, Path]) -> None:
    ws, outside = layout
    ours = ".gone.txt.0123456789abcdef.tmp"
    (ws / ours).write_bytes(b"stale")
    kept = [
        ".f.txt.tmp",
        ".f.txt.abcdefgh.tmp",  # a mkstemp-style name (another program, or an older version)
        "f.txt.0123456789abcdef.tmp",
        ".f.txt.0123456789ABCDEF.tmp",
    ]
    for name in kept:
        (ws / name).write_bytes(b"not ours")
    (ws / ".d.0123456789abcdef.tmp").mkdir()
    (ws / ".l.0123456789abcdef.tmp").symlink_to(outside / "secret.txt")
    kept += [".d.0123456789abcdef.tmp", ".l.0123456789abcdef.tmp"]
    if IS_ROOT:
        (ws / ".other.0123456789abcdef.tmp").write_bytes(b"another user's")
        os.chown(ws / ".other.0123456789abcdef.tmp", 65534, 65534)
        kept.append(".other.0123456789abcdef.tmp")
    before = snapshot(outside)
    write_bytes_atomic(ws / "new.txt", b"x", roots=[str(ws)])
    assert sorted(os.listdir(ws)) == sorted([*kept, "new.txt"])
    assert snapshot(outside) == before


def test_a_killed_confined_writer_never_leaves_a_torn_file(layout: tuple[Path, Path]) -> None:
    """The temp file, lock and cleanup do not weaken the old-or-new guarantee."""
    ws, _ = layout
    size = 4_000_000
    target = ws / "big.bin"
    target.write_bytes(writer_contents(size)[0])
    for i in range(20):
        child = start_writer(str(target), size, [str(ws)])
        try:
            time.sleep((i % 7) * 0.01)
        finally:
            child.send_signal(signal.SIGKILL)
            child.wait()
            assert child.stdout is not None
            child.stdout.close()
        assert target.read_bytes() in writer_contents(size), f"torn file after kill {i}"
