"""Fixtures for the discovery tests: a workspace and a guard against leftover processes.

Every test runs with a unique ``QWEN_TOOLS_TEST_MARK`` in the environment, inherited by every
command it starts; a marked process still alive after the test is killed (by pid) and fails it.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.processes import MARK_VAR, kill_marked, wait_until_gone


@pytest.fixture(autouse=True)
def process_mark(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A unique mark for this test's processes; fails the test if any of them survives it."""
    mark = uuid.uuid4().hex
    monkeypatch.setenv(MARK_VAR, mark)
    yield mark
    survivors = wait_until_gone(mark)
    if survivors:
        kill_marked(mark)
        pytest.fail(f"processes outlived the test: {survivors}")


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """An empty, realpath-resolved workspace directory."""
    root = Path(os.path.realpath(tmp_path)) / "ws"
    root.mkdir()
    return root
