"""Fixtures of the chat tests: a workspace, a chat started in a real pty, no process left over."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from support.chat_terminal import EXE, base_env
from support.fake_openai import FakeOpenAI
from support.processes import process_guard
from support.pty_terminal import PtyTerminal


@pytest.fixture(autouse=True)
def _no_leftovers(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    yield from process_guard(monkeypatch, timeout=5.0)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.fixture
def chat(tmp_path: Path, ws: Path) -> Iterator[Any]:
    """A factory: ``chat(server, *args)`` starts the session against ``server``."""
    started: list[PtyTerminal] = []

    def start(
        server: FakeOpenAI,
        *args: str,
        env: dict[str, str] | None = None,
        size: tuple[int, int] = (40, 110),
    ) -> PtyTerminal:
        values = {
            **base_env(tmp_path),
            **(env or {}),
            "OPENAI_API_KEY": "test-key",
            "OPENAI_MODEL": "fake-model",
            "OPENAI_BASE_URL": server.url,
        }
        terminal = PtyTerminal([str(EXE), "chat", *args], values, ws, size)
        started.append(terminal)
        return terminal

    yield start
    for terminal in started:
        terminal.close()
