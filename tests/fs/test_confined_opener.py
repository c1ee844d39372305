"""``ConfinedOpener``: the many-paths form of the confined open checks what it opened too."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from qwen_tools.fs.confined import ConfinedOpener, OutsideRootsError
from support.swapper import Swapper


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    ws = tmp_path / "ws"
    (ws / "sub").mkdir(parents=True)
    (ws / "sub" / "in.txt").write_text("inside")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("SECRET")
    return ws.resolve(), outside.resolve()


def test_inside_is_opened_outside_refused(layout: tuple[Path, Path]) -> None:
    ws, outside = layout
    (ws / "in-link").symlink_to(ws / "sub")
    (ws / "out-link").symlink_to(outside)
    (ws / "file-link").symlink_to(outside / "secret.txt")
    dirs = ConfinedOpener([ws], directory=True)
    files = ConfinedOpener([str(ws)])
    for path in (ws, ws / "sub", ws / "in-link"):
        os.close(dirs.open(str(path)))
    os.close(files.open(str(ws / "sub" / "in.txt")))
    for opener, path in ((dirs, ws / "out-link"), (files, ws / "file-link")):
        with pytest.raises(OutsideRootsError):
            opener.open(str(path))
    with pytest.raises(NotADirectoryError):
        dirs.open(str(ws / "sub" / "in.txt"))
    with pytest.raises(FileNotFoundError):
        files.open(str(ws / "missing"))


def test_a_root_is_not_a_prefix_of_its_sibling(tmp_path: Path) -> None:
    ws = (tmp_path / "ws").resolve()
    ws.mkdir()
    sibling = tmp_path / "ws-evil"
    sibling.mkdir()
    (ws / "link").symlink_to(sibling)
    with pytest.raises(OutsideRootsError):
        ConfinedOpener([ws], directory=True).open(str(ws / "link"))


def test_a_deleted_directory_keeps_its_place(layout: tuple[Path, Path]) -> None:
    ws, outside = layout
    gone = outside / "gone"
    gone.mkdir()
    fd = os.open(gone, os.O_RDONLY | os.O_DIRECTORY)
    try:
        gone.rmdir()
        with pytest.raises(OutsideRootsError):  # "/…/outside/gone (deleted)" is still outside
            ConfinedOpener([ws], directory=True).open(f"/proc/self/fd/{fd}")
    finally:
        os.close(fd)


def test_descriptors_never_block(layout: tuple[Path, Path]) -> None:
    ws, _ = layout
    os.mkfifo(ws / "fifo")
    fd = ConfinedOpener([ws]).open(str(ws / "fifo"))  # no writer: would block without O_NONBLOCK
    os.close(fd)


def test_racing_directory_swaps_never_leak(layout: tuple[Path, Path]) -> None:
    ws, outside = layout
    opener = ConfinedOpener([ws], directory=True)
    leaks = opened = tries = 0
    with Swapper(ws / "d", outside, directory=True) as swapper:
        while tries < 600 or swapper.swaps < 50:
            tries += 1
            try:
                fd = opener.open(str(ws / "d"))
            except (OutsideRootsError, FileNotFoundError, NotADirectoryError):
                continue
            try:
                opened += 1
                if "secret.txt" in os.listdir(fd):
                    leaks += 1
            finally:
                os.close(fd)
    assert leaks == 0
    assert opened > 0
