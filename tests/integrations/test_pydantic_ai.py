"""pydantic-ai: our tools as a toolset under a scripted ``FunctionModel``; approvals round trip.

The model is pydantic-ai's own ``FunctionModel``: it calls the tools the test scripts and then
answers with what the last tool returned, so each test reads what the model was given.
"""

from __future__ import annotations

import base64
from collections.abc import AsyncIterable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pydantic_ai")

from pydantic_ai import Agent, BinaryContent, DeferredToolRequests
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel

from qwen_tools import InlineDataPart, Session, ToolConfirmationOutcome, tool
from qwen_tools.integrations.pydantic_ai import QwenToolOutput, QwenToolset, approval_results

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n fake").decode()


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
    (root / "a.txt").write_text("alpha\n")
    return root


def scripted(*calls: tuple[str, dict[str, Any]]) -> tuple[FunctionModel, list[Any]]:
    """A model that makes ``calls`` one per turn, then answers; ``seen`` gets each tool's reply."""
    queue: Iterator[tuple[str, dict[str, Any]]] = iter(calls)
    seen: list[Any] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        last = messages[-1]
        if isinstance(last, ModelRequest):
            for part in last.parts:
                media = isinstance(part, UserPromptPart) and not isinstance(part.content, str)
                if media or isinstance(part, ToolReturnPart | RetryPromptPart):
                    seen.append(part)
        nxt = next(queue, None)
        if nxt is None:
            return ModelResponse(parts=[TextPart("done")])
        name, args = nxt
        return ModelResponse(parts=[ToolCallPart(name, args, tool_call_id=f"c{len(seen)}")])

    return FunctionModel(respond), seen


async def test_read_file_from_a_directory(ws: Path) -> None:
    model, seen = scripted(("read_file", {"absolute_path": str(ws / "a.txt")}))
    agent = Agent(model, toolsets=[QwenToolset(ws)])
    async with agent:
        result = await agent.run("read it")
    assert result.output == "done"
    assert isinstance(seen[0], ToolReturnPart) and "alpha" in str(seen[0].content)


async def test_an_error_is_our_text_for_the_model(ws: Path) -> None:
    model, seen = scripted(("read_file", {"absolute_path": str(ws / "missing.txt")}))
    async with Session(ws) as session:
        result = await Agent(model, toolsets=[QwenToolset(session)]).run("read it")
    assert result.output == "done"
    (reply,) = seen
    assert "File not found" in str(reply.content)
    assert reply.outcome == "failed" if isinstance(reply, ToolReturnPart) else True


async def test_approval_round_trip_once_then_deny(ws: Path) -> None:
    target = ws / "new.txt"
    model, seen = scripted(
        ("write_file", {"file_path": str(target), "content": "one"}),
        ("write_file", {"file_path": str(ws / "other.txt"), "content": "two"}),
    )
    agent = Agent(model, toolsets=[QwenToolset(ws)], output_type=[str, DeferredToolRequests])
    async with agent:
        result = await agent.run("write")
        requests = result.output
        assert isinstance(requests, DeferredToolRequests)
        (call,) = requests.approvals
        prompt = requests.metadata[call.tool_call_id]
        assert prompt["confirmation"]["type"] == "edit" and prompt["tool"] == "write_file"
        assert not target.exists()  # nothing ran before the answer
        result = await agent.run(
            message_history=result.all_messages(),
            deferred_tool_results=approval_results({call.tool_call_id: "once"}),
        )
        assert target.read_text() == "one"
        requests = result.output
        assert isinstance(requests, DeferredToolRequests)  # "once" did not cover the next edit
        (call,) = requests.approvals
        result = await agent.run(
            message_history=result.all_messages(),
            deferred_tool_results=approval_results({call.tool_call_id: "deny"}),
        )
    assert result.output == "done"
    assert not (ws / "other.txt").exists()
    assert "User did not allow tool call" in str(seen[-1].content)


async def test_always_allow_carries_over(ws: Path) -> None:
    model, seen = scripted(
        ("run_shell_command", {"command": "touch first.txt"}),
        ("run_shell_command", {"command": "touch second.txt"}),
        ("run_shell_command", {"command": "rm first.txt"}),
    )
    agent = Agent(model, toolsets=[QwenToolset(ws)], output_type=[str, DeferredToolRequests])
    async with agent:
        result = await agent.run("shell")
        requests = result.output
        assert isinstance(requests, DeferredToolRequests)
        (call,) = requests.approvals
        assert requests.metadata[call.tool_call_id]["confirmation"]["rootCommands"] == ["touch"]
        result = await agent.run(
            message_history=result.all_messages(),
            deferred_tool_results=approval_results({call.tool_call_id: "always"}),
        )
        # the second touch was not asked about; "always" for touch does not cover rm
        assert (ws / "first.txt").exists() and (ws / "second.txt").exists()
        requests = result.output
        assert isinstance(requests, DeferredToolRequests)
        (call,) = requests.approvals
        assert requests.metadata[call.tool_call_id]["confirmation"]["rootCommands"] == ["rm"]
        assert (ws / "first.txt").exists()
    assert [type(part) for part in seen] == [ToolReturnPart, ToolReturnPart]


async def test_images_and_live_output(ws: Path) -> None:
    """Under pydantic-ai's ``TestModel`` (which streams): progress events, then the image."""

    @tool
    async def snapshot(update_output: Any) -> list[Any]:
        """Take a picture."""
        update_output("50%")
        update_output("100%")
        return ["a picture", InlineDataPart("image/png", PNG)]

    agent = Agent(TestModel(call_tools=["snapshot"]), toolsets=[QwenToolset(ws, tools=[snapshot])])
    events: list[str] = []

    async def handle(ctx: Any, stream: AsyncIterable[Any]) -> None:
        async for event in stream:
            if isinstance(event, QwenToolOutput):
                events.append(event.output)

    async with agent:
        result = await agent.run("look", event_stream_handler=handle)
    assert events == ["50%", "100%"]
    given = [
        item
        for message in result.all_messages()
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, ToolReturnPart | UserPromptPart)
        for item in (part.content if isinstance(part.content, list) else [part.content])
    ]
    images = [item for item in given if isinstance(item, BinaryContent)]
    assert images and images[0].media_type == "image/png"
    assert images[0].data == base64.b64decode(PNG)
    assert "a picture" in given


async def test_the_sessions_own_handler_can_ask_instead(ws: Path) -> None:
    """``approvals="session"``: the session's ``confirm`` handler answers inside the call."""
    asked: list[str] = []

    async def confirm(request: Any, details: Any) -> tuple[ToolConfirmationOutcome, None]:
        asked.append(details.title)
        return ToolConfirmationOutcome.PROCEED_ONCE, None

    args = {"file_path": str(ws / "new.txt"), "content": "x"}
    model, _seen = scripted(("write_file", args))
    async with Session(ws, confirm=confirm) as session:
        toolset = QwenToolset(session, approvals="session")
        agent = Agent(model, toolsets=[toolset], output_type=[str, DeferredToolRequests])
        result = await agent.run("write")
    assert result.output == "done"  # no deferred request: the handler answered
    assert asked and asked[0].startswith("Confirm")
    assert (ws / "new.txt").read_text() == "x"
