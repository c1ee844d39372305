"""Helpers for the built-in tool tests: real workspaces in ``tmp_path``."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest


def git_init(path: Path) -> None:
    """Make ``path`` a git repository (no commits), isolated from the user's git config."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(path)}
    env["GIT_CONFIG_NOSYSTEM"] = "1"
    subprocess.run(
        ["git", "-c", "init.defaultBranch=main", "init", "-q", str(path)],
        check=True,
        env=env,
        stdout=subprocess.DEVNULL,
    )


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """An empty, realpath-resolved workspace directory."""
    root = Path(os.path.realpath(tmp_path)) / "ws"
    root.mkdir()
    return root


@pytest.fixture
def git_ws(ws: Path) -> Path:
    """The workspace, made a git repository."""
    git_init(ws)
    return ws


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A directory next to the workspace (outside it), holding ``secret.txt``."""
    root = Path(os.path.realpath(tmp_path)) / "outside"
    root.mkdir()
    (root / "secret.txt").write_text("top secret\n")
    return root
