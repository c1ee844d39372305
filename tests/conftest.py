"""Shared test configuration: every ``async def`` test runs under anyio on asyncio."""

from __future__ import annotations

import inspect
from typing import Any

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makeitem(collector: pytest.Collector, name: str, obj: Any) -> None:
    """Mark coroutine tests for anyio before its plugin looks at them."""
    if inspect.iscoroutinefunction(obj) and name.startswith("test"):
        pytest.mark.anyio(obj)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
