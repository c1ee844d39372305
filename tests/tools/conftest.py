"""Helpers for the built-in tool tests: real workspaces in ``tmp_path``."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from qwen_tools.tools.grep.worker import close_idle_workers
from support.workspaces import git_init


@pytest.fixture(scope="session", autouse=True)
def _grep_workers_end_with_the_session() -> Iterator[None]:
    """The Python grep engine keeps idle workers for the next search: end them at the end."""
    yield
    close_idle_workers()


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
