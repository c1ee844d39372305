"""Fixtures for the shell tests: a workspace, a config, and a guard against leftover processes.

Every test runs with a unique ``QWEN_TOOLS_TEST_MARK`` in the environment, which every command it
starts inherits. After the test, any live process still carrying the mark is killed (by pid) and
the test fails: no process may outlive a test.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from qwen_tools import Config
from qwen_tools.config.tool_settings import ApprovalMode, ToolSettings
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


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """The Qwen home of the test config (project temp dirs live under it)."""
    path = Path(os.path.realpath(tmp_path)) / "home" / ".qwen"
    path.mkdir(parents=True)
    return path


@pytest.fixture
def config(ws: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> Config:
    """A YOLO config on the workspace, with its temp dirs under ``home``."""
    monkeypatch.delenv("QWEN_RUNTIME_DIR", raising=False)
    return Config(ws, home_dir=home, approval_mode=ApprovalMode.YOLO, settings=ToolSettings())
