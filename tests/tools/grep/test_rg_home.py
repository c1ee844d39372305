"""rg's private HOME (holding the copy of git's global excludes) is never left behind for good."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from qwen_tools.tools.grep import rg_sandbox as _rg_sandbox


def dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_a_killed_process_home_is_removed_by_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    stale = tmp_path / f"qwen-tools-rg-home-{dead_pid()}-abc"
    (stale / "xdg" / "git").mkdir(parents=True)
    alive = tmp_path / f"qwen-tools-rg-home-{os.getppid()}-def"
    alive.mkdir()
    other = tmp_path / "qwen-tools-rg-home-notapid"
    other.mkdir()
    home = _rg_sandbox._make_home()
    assert Path(home).parent == tmp_path
    assert Path(home).name.startswith(f"qwen-tools-rg-home-{os.getpid()}-")
    assert not stale.exists()
    assert alive.exists()
    assert other.exists()
    _rg_sandbox._remove_home(home, os.getpid())
    assert not Path(home).exists()


def test_the_copy_follows_the_global_excludes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(_rg_sandbox, "_home", [])
    monkeypatch.setattr(_rg_sandbox, "_home_excludes", [])
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    (tmp_path / ".gitconfig").write_text("[core]\n\texcludesFile = ~/global-ignore\n")
    (tmp_path / "global-ignore").write_text("*.secret\n")
    _, env = _rg_sandbox.rg_confinement(sys.executable, (str(tmp_path),), True)
    copy = Path(env["XDG_CONFIG_HOME"]) / "git" / "ignore"
    assert copy.read_text() == "*.secret\n"
    assert not (Path(env["HOME"]) / ".gitconfig").exists()
    _rg_sandbox.rg_confinement(sys.executable, (str(tmp_path),), False)
    assert not copy.exists()  # --no-ignore-vcs: no global excludes either
    _rg_sandbox._remove_home(env["HOME"], os.getpid())
