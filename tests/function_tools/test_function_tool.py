"""``@tool``: return values the model can read, live output, timeouts and cancellation.

Every call runs through a real :class:`~qwen_tools.Session`, so the model-facing text is the
one the whole flow produces.
"""

from __future__ import annotations

import base64
import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
from pydantic import BaseModel

from qwen_tools import (
    AbortController,
    AbortSignal,
    InlineDataPart,
    Session,
    ToolErrorType,
    UpdateOutput,
    check_cancelled,
    tool,
)

PNG_BYTES = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / ".qwen").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("QWEN_HOME", str(home / ".qwen"))
    monkeypatch.setenv("QWEN_CODE_SYSTEM_SETTINGS_PATH", str(tmp_path / "system.json"))
    monkeypatch.setenv("QWEN_CODE_SYSTEM_DEFAULTS_PATH", str(tmp_path / "defaults.json"))
    root = tmp_path / "ws"
    root.mkdir()
    return root


class Point(BaseModel):
    x: int
    y: int


@dataclass
class Pair:
    left: str
    right: list[int]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"a": 1, "b": [True, None]}, {"a": 1, "b": [True, None]}),
        (0, 0),
        (2.5, 2.5),
        (False, False),
        ([1, 2, 3], [1, 2, 3]),
        (Point(x=1, y=2), {"x": 1, "y": 2}),
        (Pair("l", [1]), {"left": "l", "right": [1]}),
        ([Point(x=3, y=4)], [{"x": 3, "y": 4}]),
    ],
)
async def test_json_able_returns_reach_the_model_as_json(
    ws: Path, value: Any, expected: Any
) -> None:
    @tool
    def give() -> Any:
        """Give the value."""
        return value

    async with Session(ws, tools=[give]) as session:
        done = await session.call("give", {})
    assert done.status == "success"
    assert json.loads(done.response_text) == expected


async def test_strings_parts_and_none_are_unchanged(ws: Path) -> None:
    @tool
    def text() -> str:
        """Text."""
        return "plain text"

    @tool
    def nothing() -> None:
        """Nothing."""

    async with Session(ws, tools=[text, nothing]) as session:
        assert (await session.call("text", {})).response_text == "plain text"
        done = await session.call("nothing", {})
        assert done.response_text == "(nothing completed with no output)"


async def test_image_bytes_become_an_inline_image(ws: Path) -> None:
    @tool
    def picture() -> list[Any]:
        """A captioned picture."""
        return ["a square", PNG_BYTES]

    @tool
    def bare() -> bytes:
        """Only a picture."""
        return PNG_BYTES

    async with Session(ws, tools=[picture, bare]) as session:
        for name in ("picture", "bare"):
            done = await session.call(name, {})
            assert done.status == "success"
            (image,) = done.response.parts
            assert isinstance(image, InlineDataPart) and image.mime_type == "image/png"
            assert base64.b64decode(image.data) == PNG_BYTES
        assert (await session.call("picture", {})).response_text == "a square"


async def test_live_output_by_name_or_annotation_sync_and_async(ws: Path) -> None:
    @tool
    async def named(update_output: Any) -> str:
        """Async, by name."""
        update_output("a1")
        update_output("a2")
        return "ok"

    @tool
    def annotated(progress: UpdateOutput, steps: int) -> str:
        """Sync in a worker thread, by annotation.

        Args:
            steps: how many steps.
        """
        for i in range(steps):
            progress(f"step {i}")
        return "ok"

    assert set(annotated.schema.parameters_json_schema["properties"]) == {"steps"}
    async with Session(ws, tools=[named, annotated]) as session:
        seen: list[Any] = []
        await session.call("named", {}, on_output=seen.append)
        assert seen == ["a1", "a2"]
        seen.clear()
        done = await session.call("annotated", {"steps": 3}, on_output=seen.append)
        assert done.status == "success"
        assert seen == ["step 0", "step 1", "step 2"]


async def test_timeout_of_an_async_tool(ws: Path) -> None:
    finished = False

    @tool(timeout=0.2)
    async def slow() -> str:
        """Never ends by itself."""
        nonlocal finished
        await anyio.sleep(3600)
        finished = True
        return "late"

    async with Session(ws, tools=[slow]) as session:
        done = await session.call("slow", {})
    assert done.status == "error" and done.error_type is ToolErrorType.EXECUTION_TIMEOUT
    assert done.response_text == "Tool slow timed out after 0.2 seconds"
    assert not finished


async def test_timeout_of_a_sync_tool_abandons_its_thread_and_says_so(ws: Path) -> None:
    release = threading.Event()
    returned = threading.Event()

    @tool(timeout=0.2)
    def stuck() -> str:
        """Blocks until the test releases it."""
        release.wait()
        returned.set()
        return "late"

    try:
        async with Session(ws, tools=[stuck]) as session:
            done = await session.call("stuck", {})
        assert done.status == "error" and done.error_type is ToolErrorType.EXECUTION_TIMEOUT
        assert done.response_text.startswith("Tool stuck timed out after 0.2 seconds")
        assert "still running" in str(done.display)
        assert not returned.is_set()
    finally:
        release.set()
    assert returned.wait(10)


async def test_a_sync_tool_notices_cancellation_at_its_next_check(ws: Path) -> None:
    started = threading.Event()
    stopped = threading.Event()

    @tool
    def loop() -> str:
        """Works until cancelled, checking between steps."""
        started.set()
        try:
            while True:
                check_cancelled()
                stopped.wait(0.01)
        finally:
            stopped.set()

    controller = AbortController()
    async with Session(ws, tools=[loop]) as session, anyio.create_task_group() as tg:

        async def cancel_when_started() -> None:
            await anyio.to_thread.run_sync(started.wait)
            controller.abort()

        tg.start_soon(cancel_when_started)
        done = await session.call("loop", {}, signal=controller.signal)
    assert done.status == "cancelled"
    assert stopped.is_set()  # the function itself ended, at its check


async def test_a_sync_tool_sees_the_signal_parameter(ws: Path) -> None:
    @tool
    def polite(signal: AbortSignal) -> str:
        """Stops when asked."""
        signal.throw_if_aborted()
        return "ran"

    async with Session(ws, tools=[polite]) as session:
        assert (await session.call("polite", {})).response_text == "ran"


async def test_an_abandoned_sync_tool_is_reported(ws: Path) -> None:
    started = threading.Event()
    release = threading.Event()
    returned = threading.Event()

    @tool(abandon_on_cancel=True)
    def blocking() -> str:
        """Blocks and never checks."""
        started.set()
        release.wait()
        returned.set()
        return "late"

    controller = AbortController()
    try:
        async with Session(ws, tools=[blocking]) as session, anyio.create_task_group() as tg:

            async def cancel_when_started() -> None:
                await anyio.to_thread.run_sync(started.wait)
                controller.abort()

            tg.start_soon(cancel_when_started)
            done = await session.call("blocking", {}, signal=controller.signal)
        assert done.status == "cancelled"
        assert done.response_text.startswith("[Operation Cancelled] Reason: User intentionally")
        assert "abandoned" in str(done.display) and "still running" in str(done.display)
        assert not returned.is_set()
    finally:
        release.set()
    assert returned.wait(10)


async def test_an_async_tool_is_cancelled_at_its_next_await(ws: Path) -> None:
    started = anyio.Event()
    finished = False

    @tool
    async def waits() -> str:
        """Waits forever."""
        nonlocal finished
        started.set()
        await anyio.sleep(3600)
        finished = True
        return "late"

    controller = AbortController()
    async with Session(ws, tools=[waits]) as session, anyio.create_task_group() as tg:

        async def cancel_when_started() -> None:
            await started.wait()
            controller.abort()

        tg.start_soon(cancel_when_started)
        done = await session.call("waits", {}, signal=controller.signal)
    assert done.status == "cancelled" and not finished


def test_check_cancelled_outside_a_call_does_nothing() -> None:
    check_cancelled()
