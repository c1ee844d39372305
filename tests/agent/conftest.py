"""Shared pieces for the agent tests: a workspace, a session config and the fake model server."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from qwen_tools import ApprovalMode, Config, build_registry
from qwen_tools.agent.environment import platform_name
from qwen_tools.model.client import ChatClient
from qwen_tools.model.model_config import ModelConfig
from qwen_tools.model.retry import RetryPolicy
from qwen_tools.registry.registry import ToolRegistry
from support.fake_openai import FakeOpenAI

FAST = RetryPolicy(
    attempts=3,
    initial_delay_s=0.001,
    max_delay_s=0.004,
    transport_initial_s=0.001,
    transport_max_s=0.002,
)
"""The reference's retry structure with millisecond delays."""

_DATE = re.compile(r"\b(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day, [A-Z][a-z]+ \d{1,2}, \d{4}\b")


def undated(text: str) -> str:
    """``text`` with each date (``Sunday, November 22, 2026``) replaced by ``<DATE>``."""
    return _DATE.sub("<DATE>", text)


def environment_text(ws: Path) -> str:
    """The environment reminder for the ``ws`` fixture's workspace (date as ``<DATE>``)."""
    return (
        "<system-reminder>\n"
        "Session details, collected when this conversation started.\n"
        "Date: <DATE>.\n"
        f"Operating system: {platform_name()}\n"
        f"Working directory: {ws}\n"
        "Files and folders in the workspace (first entries, breadth-first):\n\n"
        "Showing up to 20 items:\n\n"
        f"{ws}/\n"
        "├───notes.txt\n"
        "└───src/\n"
        "    └───app.py\n"
        "</system-reminder>"
    )


DATE_REMINDER = (
    "<system-reminder>\nCurrent date: <DATE>. This is the authoritative date; it takes "
    "precedence over any date given earlier in the conversation.\n</system-reminder>"
)
"""The current-date reminder (date as ``<DATE>``)."""


def message_texts(message: dict[str, object]) -> list[str]:
    """The text parts of a request message, dates as ``<DATE>``."""
    content = message["content"]
    assert isinstance(content, list)
    return [undated(part["text"]) for part in content]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = Path(os.path.realpath(tmp_path)) / "ws"
    root.mkdir()
    (root / "notes.txt").write_text("alpha\nbeta\ngamma\n")
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("print('hi')\n")
    return root


@pytest.fixture
def config(ws: Path, tmp_path: Path) -> Config:
    return Config(ws, approval_mode=ApprovalMode.YOLO, home_dir=tmp_path / "home" / ".qwen")


@pytest.fixture
def registry(config: Config) -> ToolRegistry:
    return build_registry(config)


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


def model_for(server: FakeOpenAI, **extra: object) -> ModelConfig:
    """A model config pointing at ``server``."""
    return ModelConfig(model="fake-model", api_key="sk-test", base_url=server.url, **extra)  # type: ignore[arg-type]


def client_for(server: FakeOpenAI, *, transport_retries: int = 1) -> ChatClient:
    """A client for ``server`` with fast retries."""
    return ChatClient(model_for(server, transport_retries=transport_retries), policy=FAST)
