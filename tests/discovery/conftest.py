"""Fixtures for the discovery tests: a workspace and a guard against leftover processes.

Every test runs with a unique ``QWEN_TOOLS_TEST_MARK`` in the environment, inherited by every
command it starts; a marked process still alive after the test is killed (by pid) and fails it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.processes import process_guard


@pytest.fixture(autouse=True)
def process_mark(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A unique mark for this test's processes; fails the test if any of them survives it."""
    yield from process_guard(monkeypatch)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """An empty, realpath-resolved workspace directory."""
    root = Path(os.path.realpath(tmp_path)) / "ws"
    root.mkdir()
    return root
