"""``AgentLoop`` with real tools on a temp workspace, against the scripted fake model server."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from qwen_tools import AbortController, ApprovalMode, Config, ToolConfirmationOutcome
from qwen_tools.agent.events import (
    AgentEvent,
    Finished,
    ModelTurn,
    Retrying,
    StopReason,
    TextDelta,
    ToolCallAwaitingApproval,
    ToolCallFinished,
    ToolCallScheduled,
    ToolCallStarted,
    TurnFinished,
    TurnStarted,
)
from qwen_tools.agent.loop import AgentLoop, iter_events
from qwen_tools.registry.registry import ToolRegistry
from support.fake_openai import FakeOpenAI, Reply, call

from .conftest import DATE_REMINDER, FAST, client_for, environment_text, message_texts


def make_loop(
    server: FakeOpenAI,
    config: Config,
    registry: ToolRegistry,
    events: list[AgentEvent] | None = None,
    **options: Any,
) -> AgentLoop:
    return AgentLoop(
        client=client_for(server),
        registry=registry,
        config=config,
        system_prompt="SYSTEM PROMPT",
        on_event=events.append if events is not None else None,
        **options,
    )


async def test_multi_turn_tool_use(
    server: FakeOpenAI, config: Config, registry: ToolRegistry, ws: Path
) -> None:
    server.script = [
        Reply(content="Reading.", tool_calls=[call("read_file", {"file_path": f"{ws}/notes.txt"})]),
        Reply(tool_calls=[call("write_file", {"file_path": f"{ws}/out.txt", "content": "x\n"})]),
        Reply(content="All done."),
    ]
    events: list[AgentEvent] = []
    loop = make_loop(server, config, registry, events)
    finished = await loop.send("Copy things")
    await loop.client.aclose()
    assert (finished.reason, finished.text, finished.turns, finished.tool_calls) == (
        StopReason.GOAL,
        "All done.",
        3,
        2,
    )
    assert (ws / "out.txt").read_text() == "x\n"
    first, second, third = server.requests
    assert list(first) == ["model", "messages", "max_tokens", "stream", "stream_options", "tools"]
    system, user = first["messages"]
    assert system == {"role": "system", "content": "SYSTEM PROMPT"}
    assert user["role"] == "user" and {p["type"] for p in user["content"]} == {"text"}
    assert message_texts(user) == [environment_text(ws), DATE_REMINDER, "Copy things"]
    assert first["max_tokens"] == 32000
    names = [t["function"]["name"] for t in first["tools"]]
    assert names == sorted(names) and "read_file" in names
    assert second["messages"][2:] == [
        {
            "role": "assistant",
            "content": "Reading.",
            "tool_calls": [
                {
                    "id": "call_0_0",
                    "type": "function",
                    "function": {
                        "name": "read_file",
                        "arguments": json.dumps(
                            {"file_path": f"{ws}/notes.txt"}, separators=(",", ":")
                        ),
                    },
                }
            ],
        },
        {
            "role": "tool",
            "tool_call_id": "call_0_0",
            "content": [{"type": "text", "text": "alpha\nbeta\ngamma\n"}],
        },
    ]
    assert third["messages"][-1]["content"][0]["text"].startswith(
        "Successfully created and wrote to new file"
    )
    kinds = [type(e).__name__ for e in events]
    assert kinds[:3] == ["TurnStarted", "TextDelta", "TextDelta"]
    assert kinds[-1] == "Finished"
    assert kinds.count("TurnStarted") == 3 and kinds.count("ToolCallFinished") == 2


async def test_parallel_calls_in_one_turn(
    server: FakeOpenAI, config: Config, registry: ToolRegistry, ws: Path
) -> None:
    server.script = [
        Reply(
            tool_calls=[
                call("read_file", {"file_path": f"{ws}/notes.txt"}, "r1"),
                call("glob", {"pattern": "**/*.py"}, "g1"),
                call("read_file", {"file_path": f"{ws}/missing.txt"}, "r2"),
            ]
        ),
        Reply(content="ok"),
    ]
    loop = make_loop(server, config, registry)
    finished = await loop.send("look")
    await loop.client.aclose()
    assert finished.tool_calls == 3
    tool_messages = server.requests[1]["messages"][3:]
    assert [m["tool_call_id"] for m in tool_messages] == ["r1", "g1", "r2"]
    texts = [m["content"][0]["text"] for m in tool_messages]
    assert texts[0] == "alpha\nbeta\ngamma\n"
    assert texts[1].endswith(f"{ws}/src/app.py")
    assert texts[2].startswith("File not found")


async def test_truncated_arguments_are_retried_once_then_repaired(
    server: FakeOpenAI, config: Config, registry: ToolRegistry, ws: Path
) -> None:
    broken = '{"file_path": "' + f"{ws}/notes.txt" + '"'
    server.script = [
        Reply(tool_calls=[call("read_file", broken, "t1")]),
        Reply(tool_calls=[call("read_file", broken, "t1")]),
        Reply(content="fine"),
    ]
    events: list[AgentEvent] = []
    loop = make_loop(server, config, registry, events)
    finished = await loop.send("read it")
    await loop.client.aclose()
    assert finished.reason is StopReason.GOAL
    assert [r["max_tokens"] for r in server.requests] == [32000, 64000, 32000]
    retries = [e for e in events if isinstance(e, Retrying)]
    assert retries == [Retrying("truncated", 1, 0.0, "output truncated", True, 1)]
    assistant, tool = server.requests[2]["messages"][2:]
    assert assistant["tool_calls"][0]["function"]["arguments"] == json.dumps(
        {"file_path": f"{ws}/notes.txt"}, separators=(",", ":")
    )
    assert tool["content"][0]["text"] == "alpha\nbeta\ngamma\n"


async def test_turn_limit(server: FakeOpenAI, config: Config, registry: ToolRegistry) -> None:
    server.script = lambda _body: Reply(tool_calls=[call("glob", {"pattern": "*.txt"})])
    loop = make_loop(server, config, registry, max_turns=2)
    finished = await loop.send("loop forever")
    await loop.client.aclose()
    assert (finished.reason, finished.turns, finished.tool_calls) == (StopReason.MAX_TURNS, 2, 2)
    assert len(server.requests) == 2


async def test_api_error_ends_the_send(
    server: FakeOpenAI, config: Config, registry: ToolRegistry
) -> None:
    server.script = lambda _body: Reply(status=500, error={"error": {"message": "boom"}})
    events: list[AgentEvent] = []
    loop = make_loop(server, config, registry, events)
    finished = await loop.send("hi")
    await loop.client.aclose()
    assert (finished.reason, finished.error) == (StopReason.ERROR, "[API Error: 500 boom]")
    assert len(server.requests) == FAST.attempts * 2
    assert (
        sum(isinstance(e, Retrying) and e.kind == "http" for e in events) == FAST.attempts * 2 - 1
    )


async def test_non_streaming_loop(
    server: FakeOpenAI, config: Config, registry: ToolRegistry
) -> None:
    server.script = [Reply(content="plain answer")]
    events: list[AgentEvent] = []
    loop = make_loop(server, config, registry, events, stream=False)
    finished = await loop.send("hi")
    await loop.client.aclose()
    assert finished.text == "plain answer"
    assert server.requests[0]["stream"] is False and "stream_options" not in server.requests[0]
    assert not any(isinstance(e, TextDelta) for e in events)


async def test_cancellation_mid_stream(
    server: FakeOpenAI, config: Config, registry: ToolRegistry
) -> None:
    release = threading.Event()
    server.script = [Reply(content="partial answer that never ends", hold=release)]
    controller = AbortController()

    def on_event(event: AgentEvent) -> None:
        if isinstance(event, TextDelta):
            controller.abort()

    loop = make_loop(server, config, registry)
    loop.subscribe(on_event)
    finished = await loop.send("talk", signal=controller.signal)
    release.set()
    await loop.client.aclose()
    assert finished.reason is StopReason.CANCELLED
    assert len(loop.history) == 1  # only the user message


async def test_cancellation_mid_tool(
    server: FakeOpenAI, config: Config, registry: ToolRegistry, ws: Path
) -> None:
    marker = ws / "started.txt"
    command = f"touch {marker} && sleep 60 && echo never"
    server.script = [Reply(tool_calls=[call("run_shell_command", {"command": command}, "s1")])]
    controller = AbortController()

    def on_event(event: AgentEvent) -> None:
        if isinstance(event, ToolCallStarted):
            controller.abort("stop")

    loop = make_loop(server, config, registry)
    loop.subscribe(on_event)
    finished = await loop.send("run it", signal=controller.signal)
    await loop.client.aclose()
    assert finished.reason is StopReason.CANCELLED
    assert len(server.requests) == 1
    (done,) = finished.completed_calls
    assert done.status == "cancelled"
    tool_message = loop.history[-1]
    assert tool_message["role"] == "tool" and tool_message["tool_call_id"] == "s1"
    assert "cancel" in tool_message["content"][0]["text"].lower()


async def test_without_a_handler_approvals_are_refused(
    server: FakeOpenAI, ws: Path, tmp_path: Path
) -> None:
    from qwen_tools import build_registry

    config = Config(ws, approval_mode=ApprovalMode.DEFAULT, home_dir=tmp_path / "h")
    registry = build_registry(config)
    server.script = [
        Reply(tool_calls=[call("write_file", {"file_path": f"{ws}/x.txt", "content": "x"})]),
        Reply(content="could not"),
    ]
    loop = make_loop(server, config, registry)
    finished = await loop.send("write")
    await loop.client.aclose()
    assert not (ws / "x.txt").exists()
    (done,) = finished.completed_calls
    assert done.error_type is not None and done.error_type.value == "execution_denied"
    refusal = server.requests[1]["messages"][-1]["content"][0]["text"]
    assert refusal == done.response_text and "non-interactive" in refusal.lower()


async def test_confirmation_handler_is_asked(server: FakeOpenAI, ws: Path, tmp_path: Path) -> None:
    from qwen_tools import build_registry

    config = Config(ws, approval_mode=ApprovalMode.DEFAULT, home_dir=tmp_path / "h")
    registry = build_registry(config)
    asked: list[str] = []

    async def confirm(request: Any, details: Any) -> tuple[ToolConfirmationOutcome, None]:
        asked.append(request.name)
        return ToolConfirmationOutcome.PROCEED_ONCE, None

    server.script = [
        Reply(tool_calls=[call("write_file", {"file_path": f"{ws}/y.txt", "content": "y"})]),
        Reply(content="written"),
    ]
    events: list[AgentEvent] = []
    loop = make_loop(server, config, registry, events, confirm=confirm)
    finished = await loop.send("write")
    await loop.client.aclose()
    assert finished.text == "written" and asked == ["write_file"]
    assert (ws / "y.txt").read_text() == "y"
    assert any(isinstance(e, ToolCallAwaitingApproval) for e in events)


async def test_iter_events_and_history_encoding(
    server: FakeOpenAI, config: Config, registry: ToolRegistry, ws: Path
) -> None:
    server.script = [
        Reply(tool_calls=[call("list_directory", {"path": str(ws)})]),
        Reply(content="listed"),
    ]
    loop = make_loop(server, config, registry)
    seen = [event async for event in iter_events(loop, "list")]
    await loop.client.aclose()
    order = [type(e) for e in seen]
    assert order[0] is TurnStarted and order[-1] is Finished
    assert order.index(ModelTurn) < order.index(ToolCallScheduled) < order.index(ToolCallFinished)
    assert order.index(ToolCallFinished) < order.index(TurnFinished)
    encoded = json.loads(b"[" + bytes(loop.history.encoded()) + b"]")
    assert encoded == loop.history.messages
    assert server.requests[-1]["messages"][1:] == loop.history.messages[:-1]


@pytest.mark.parametrize("length", [0, 1, 2])
def test_history_rollback(length: int) -> None:
    from qwen_tools.agent.history import History

    history = History([{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}])
    history.truncate(length)
    history.append({"role": "user", "content": "c"})
    assert json.loads(b"[" + bytes(history.encoded()) + b"]") == history.messages
    assert len(history) == length + 1


def test_repeated_call_ids_are_sent_once() -> None:
    from qwen_tools.agent.loop import assistant_message
    from qwen_tools.model.completion import Completion, ModelToolCall
    from qwen_tools.model.json_args import parse_tool_arguments

    def make(call_id: str, name: str) -> ModelToolCall:
        return ModelToolCall(call_id, name, "{}", parse_tool_arguments("{}"))

    message = assistant_message(
        Completion(tool_calls=[make("a", "x"), make("b", "y"), make("a", "z")])
    )
    assert message is not None
    assert [(c["id"], c["function"]["name"]) for c in message["tool_calls"]] == [
        ("a", "x"),
        ("b", "y"),
    ]
    assert assistant_message(Completion()) is None
    assert assistant_message(Completion(reasoning="hmm")) == {
        "role": "assistant",
        "content": "",
        "reasoning_content": "hmm",
    }
