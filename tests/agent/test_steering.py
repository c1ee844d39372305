"""Steering a running ``AgentLoop``: where the steered text lands in the requests the model gets.

Attacks: a text steered while the model is still sending its tool calls, or while they run,
must never sit between a call and its result (a provider rejects such a history); it comes
after every result of the batch. Texts waiting together are one user message. A cancelled
turn delivers nothing, and what waited can be taken back.
"""

from __future__ import annotations

from pathlib import Path

from qwen_tools import AbortController, Config
from qwen_tools.agent.events import AgentEvent, ModelTurn, StopReason, ToolCallStarted
from qwen_tools.agent.loop import AgentLoop
from qwen_tools.registry.registry import ToolRegistry
from support.fake_openai import FakeOpenAI, Reply, call

from .conftest import client_for


def _loop(server: FakeOpenAI, config: Config, registry: ToolRegistry) -> AgentLoop:
    return AgentLoop(
        client=client_for(server),
        registry=registry,
        config=config,
        system_prompt="SYSTEM PROMPT",
        date_reminders=False,
        environment=False,
    )


async def test_steering_comes_after_every_result_of_the_batch(
    server: FakeOpenAI, config: Config, registry: ToolRegistry, ws: Path
) -> None:
    server.script = [
        Reply(
            tool_calls=[
                call("list_directory", {"path": str(ws)}, "a"),
                call("list_directory", {"path": str(ws)}, "b"),
            ]
        ),
        Reply(content="Noted."),
    ]
    loop = _loop(server, config, registry)
    delivered: list[list[str]] = []
    loop.steering.on_deliver = delivered.append

    def steer(event: AgentEvent) -> None:
        if isinstance(event, ToolCallStarted):  # while the batch runs
            loop.steering.add(f"steer {event.request.call_id}")

    loop.subscribe(steer)
    finished = await loop.send("look")
    assert finished.reason is StopReason.GOAL
    messages = server.requests[1]["messages"]
    assert [m["role"] for m in messages[-4:]] == ["assistant", "tool", "tool", "user"]
    assert messages[-1]["content"] == [
        {"type": "text", "text": "steer a"},
        {"type": "text", "text": "\n\n"},
        {"type": "text", "text": "steer b"},
    ]
    assert delivered == [["steer a", "steer b"]]
    assert loop.steering.waiting == ()


async def test_steering_after_an_answer_asks_the_model_again(
    server: FakeOpenAI, config: Config, registry: ToolRegistry
) -> None:
    server.script = [Reply(content="First answer."), Reply(content="Second answer.")]
    loop = _loop(server, config, registry)

    def steer(event: AgentEvent) -> None:
        if isinstance(event, ModelTurn) and event.turn == 1:  # the answer has just come
            loop.steering.add("and shorter")

    loop.subscribe(steer)
    finished = await loop.send("hello")
    assert finished.text == "Second answer."
    assert len(server.requests) == 2
    tail = server.requests[1]["messages"][-2:]
    assert tail[0] == {"role": "assistant", "content": "First answer."}
    assert tail[1]["content"] == [{"type": "text", "text": "and shorter"}]


async def test_a_cancelled_turn_delivers_nothing_and_gives_the_text_back(
    server: FakeOpenAI, config: Config, registry: ToolRegistry, ws: Path
) -> None:
    server.script = [Reply(tool_calls=[call("list_directory", {"path": str(ws)}, "a")])]
    controller = AbortController()
    loop = _loop(server, config, registry)

    def steer_then_cancel(event: AgentEvent) -> None:
        if isinstance(event, ToolCallStarted):
            loop.steering.add("never sent")
            controller.abort("Cancelled by the user.")

    loop.subscribe(steer_then_cancel)
    finished = await loop.send("look", signal=controller.signal)
    assert finished.reason is StopReason.CANCELLED
    assert len(server.requests) == 1
    assert all(m["role"] != "user" or "never sent" not in str(m) for m in loop.history)
    assert loop.steering.take_back() == ["never sent"]
