"""The descriptor actually opened is checked, under a real swapping race."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from qwen_tools.fs.confined import OutsideRootsError, open_confined, read_confined_bytes
from support.swapper import Swapper


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    ws = tmp_path / "ws"
    ws.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("SECRET needle\n")
    return ws.resolve(), outside.resolve()


def test_outside_symlink_is_refused_after_open(layout: tuple[Path, Path]) -> None:
    ws, outside = layout
    (ws / "link").symlink_to(outside / "secret.txt")
    with pytest.raises(OutsideRootsError):
        read_confined_bytes(ws / "link", [str(ws)])


def test_inside_symlink_is_followed(layout: tuple[Path, Path]) -> None:
    ws, _ = layout
    (ws / "real.txt").write_text("ok")
    (ws / "link").symlink_to(ws / "real.txt")
    assert read_confined_bytes(ws / "link", [str(ws)]) == b"ok"


def test_directory_through_outside_symlink_is_refused(layout: tuple[Path, Path]) -> None:
    ws, outside = layout
    (ws / "d").symlink_to(outside, target_is_directory=True)
    with pytest.raises(OutsideRootsError):
        open_confined(ws / "d", [str(ws)], directory=True)
    with pytest.raises(OutsideRootsError):
        read_confined_bytes(ws / "d" / "secret.txt", [str(ws)])


def test_fifo_does_not_block_and_is_not_read(layout: tuple[Path, Path]) -> None:
    ws, _ = layout
    os.mkfifo(ws / "fifo")
    with pytest.raises(OSError, match="not a regular file"):
        read_confined_bytes(ws / "fifo", [str(ws)])


def test_deleted_file_keeps_its_place(layout: tuple[Path, Path]) -> None:
    ws, _ = layout
    target = ws / "gone (deleted)"
    target.write_text("x")
    fd = open_confined(target, [str(ws)])
    os.close(fd)


def test_racing_swaps_never_leak(layout: tuple[Path, Path]) -> None:
    ws, outside = layout
    leaks = refused = ok = tries = 0
    with Swapper(ws / "x.txt", outside / "secret.txt") as swapper:
        # until the race went both ways (bounded: under load one side may take a while)
        while (ok + refused < 600 or swapper.swaps < 50 or not (ok and refused)) and (
            tries < 200_000
        ):
            tries += 1
            try:
                data = read_confined_bytes(ws / "x.txt", [str(ws)])
            except OutsideRootsError:
                refused += 1
                continue
            except FileNotFoundError:
                continue
            if b"SECRET" in data:
                leaks += 1
            ok += 1
    assert leaks == 0
    # The race really happened both ways.
    assert ok > 0
    assert refused > 0


def test_racing_directory_swaps_never_leak(layout: tuple[Path, Path]) -> None:
    ws, outside = layout
    leaks = tries = 0
    with Swapper(ws / "d", outside, directory=True) as swapper:
        while tries < 600 or swapper.swaps < 50:
            tries += 1
            try:
                fd = open_confined(ws / "d", [str(ws)], directory=True)
            except (OutsideRootsError, FileNotFoundError, NotADirectoryError):
                continue
            try:
                if "secret.txt" in os.listdir(fd):
                    leaks += 1
            finally:
                os.close(fd)
    assert leaks == 0
