"""A confined program reads only what its policy lists, whatever symlinks it meets; we don't.

Real processes (``cat``, ``sh``) under a real Landlock ruleset. Skipped where the kernel has no
Landlock (the grep tests check the fallback there).
"""

from __future__ import annotations

import os
import subprocess
import threading
from pathlib import Path

import pytest

from qwen_tools.sandbox import landlock
from qwen_tools.sandbox.landlock import LandlockError, ReadPolicy, program_files, spawn_confined

pytestmark = pytest.mark.skipif(landlock.abi_version() == 0, reason="no Landlock here")


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    root = Path(os.path.realpath(tmp_path))
    inside, outside = root / "inside", root / "outside"
    inside.mkdir()
    outside.mkdir()
    (inside / "ok.txt").write_text("inside\n")
    (outside / "secret.txt").write_text("SECRET\n")
    (inside / "link.txt").symlink_to(outside / "secret.txt")
    (inside / "dirlink").symlink_to(outside, target_is_directory=True)
    return inside, outside


def run(argv: list[str], inside: Path) -> subprocess.CompletedProcess[bytes]:
    programs = program_files(argv[0])
    assert programs is not None
    policy = ReadPolicy((str(inside),), ("/etc/ld.so.cache",), programs)
    process = spawn_confined(
        argv, policy, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    out, err = process.communicate(timeout=60)
    return subprocess.CompletedProcess(argv, process.returncode, out, err)


def test_reads_inside_only(layout: tuple[Path, Path]) -> None:
    inside, outside = layout
    assert run(["/bin/cat", str(inside / "ok.txt")], inside).stdout == b"inside\n"
    for path in (outside / "secret.txt", inside / "link.txt", inside / "dirlink" / "secret.txt"):
        denied = run(["/bin/cat", str(path)], inside)
        assert denied.returncode != 0
        assert b"Permission denied" in denied.stderr
        assert b"SECRET" not in denied.stdout


def test_no_writes_even_inside(layout: tuple[Path, Path]) -> None:
    inside, _ = layout
    result = run(["/bin/sh", "-c", f"echo x > {inside}/new.txt"], inside)
    assert result.returncode != 0
    assert not (inside / "new.txt").exists()


def test_only_the_child_is_confined(layout: tuple[Path, Path]) -> None:
    inside, outside = layout
    run(["/bin/cat", str(inside / "ok.txt")], inside)
    assert (outside / "secret.txt").read_text() == "SECRET\n"  # this thread
    seen: list[str] = []
    other = threading.Thread(target=lambda: seen.append((outside / "secret.txt").read_text()))
    other.start()
    other.join()
    assert seen == ["SECRET\n"]


def test_turned_off(layout: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    inside, _ = layout
    monkeypatch.setenv(landlock.DISABLE_ENV, "off")
    assert landlock.abi_version() == 0
    with pytest.raises(LandlockError):
        run(["/bin/cat", str(inside / "ok.txt")], inside)
