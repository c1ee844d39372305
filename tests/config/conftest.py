"""Fixtures of the config tests."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from support.ignore_trees import git
from support.settings_layout import Layout, make_layout


@pytest.fixture
def layout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Layout:
    return make_layout(tmp_path, monkeypatch)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = Path(os.path.realpath(tmp_path)) / "repo"
    root.mkdir()
    if shutil.which("git") is None and not os.environ.get("CI"):
        pytest.skip("git is not installed")
    git("init", "-q", cwd=root)
    return root


@pytest.fixture
def plain(tmp_path: Path) -> Path:
    root = Path(os.path.realpath(tmp_path)) / "plain"
    root.mkdir()
    return root
