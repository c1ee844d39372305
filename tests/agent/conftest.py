"""Shared pieces for the agent tests: a workspace, a session config and the fake model server."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from qwen_tools import ApprovalMode, Config, build_registry
from qwen_tools._model.client import ChatClient
from qwen_tools._model.model_config import ModelConfig
from qwen_tools._model.retry import RetryPolicy
from qwen_tools._registry.registry import ToolRegistry
from support.fake_openai import FakeOpenAI

FAST = RetryPolicy(
    attempts=3,
    initial_delay_s=0.001,
    max_delay_s=0.004,
    transport_initial_s=0.001,
    transport_max_s=0.002,
)
"""The reference's retry structure with millisecond delays."""


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
