"""Compression of the conversation in the agent loop, against the scripted fake model server.

The model's window is tiny (4,000 tokens, so compression starts at 3,400) and each scripted
answer reports the usage the test needs. A summary request is told apart from the loop's own
requests by its system prompt; what the model received is read from the server's request log.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from qwen_tools import ApprovalMode, Config, build_registry
from qwen_tools.agent.compression_texts import (
    ACKNOWLEDGEMENT,
    COMPRESSION_PROMPT,
    DIRECTIVE,
    RESUME_TRAILER,
    CompressionStatus,
)
from qwen_tools.agent.events import AgentEvent, HistoryCompressed, StopReason
from qwen_tools.agent.loop import AgentLoop
from qwen_tools.model.client import ChatClient
from qwen_tools.registry.registry import ToolRegistry
from support.fake_openai import FakeOpenAI, Reply, call

from .conftest import FAST, model_for

SUMMARY = "<analysis>scratch work</analysis>\n<state_snapshot>SUMMARY-XYZ</state_snapshot>"
SUMMARY_IN_HISTORY = f"<state_snapshot>SUMMARY-XYZ</state_snapshot>\n\n{RESUME_TRAILER}"


def usage(prompt: int, completion: int = 20) -> dict[str, int]:
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + 1}


def is_summary_request(body: dict[str, Any]) -> bool:
    return str(body["messages"][0]["content"]).startswith(COMPRESSION_PROMPT)


def make_loop(
    server: FakeOpenAI, config: Config, registry: ToolRegistry, events: list[AgentEvent]
) -> AgentLoop:
    client = ChatClient(model_for(server, context_window=4000, transport_retries=1), policy=FAST)
    return AgentLoop(
        client=client,
        registry=registry,
        config=config,
        system_prompt="SYSTEM PROMPT",
        on_event=events.append,
    )


def assert_pairs_whole(messages: list[dict[str, Any]]) -> None:
    """Each tool result follows the assistant message that made its call, and each call has one."""
    open_calls: set[str] = set()
    for message in messages:
        if message["role"] == "tool":
            assert message["tool_call_id"] in open_calls, message
            open_calls.discard(message["tool_call_id"])
        else:
            assert not open_calls, f"calls left without results: {open_calls}"
            open_calls = {c["id"] for c in message.get("tool_calls") or ()}
    assert not open_calls


async def test_the_request_after_compression_carries_the_summary_and_the_open_call(
    server: FakeOpenAI, config: Config, registry: ToolRegistry, ws: Path
) -> None:
    server.script = [
        Reply(tool_calls=[call("read_file", {"file_path": f"{ws}/notes.txt"})], usage=usage(900)),
        Reply(
            content="Now the app.",
            tool_calls=[call("read_file", {"file_path": f"{ws}/src/app.py"}, "call_app")],
            usage=usage(3500),
        ),
        Reply(content=SUMMARY, usage=usage(1400, 60)),
        Reply(content="All done.", usage=usage(500)),
    ]
    events: list[AgentEvent] = []
    loop = make_loop(server, config, registry, events)
    finished = await loop.send("Read my files")
    await loop.client.aclose()
    assert (finished.reason, finished.text) == (StopReason.GOAL, "All done.")
    assert [is_summary_request(r) for r in server.requests] == [False, False, True, False]

    asked = server.requests[2]
    assert "tools" not in asked and asked["stream"] is False
    assert asked["messages"][-1] == {"role": "user", "content": DIRECTIVE}
    summarised = asked["messages"][1:-1]  # the whole history, both calls with their results
    assert [m["role"] for m in summarised] == ["user", "assistant", "tool", "assistant", "tool"]
    assert "alpha" in json.dumps(summarised[2]) and "print('hi')" in json.dumps(summarised[4])

    after = server.requests[3]["messages"]
    assert [m["role"] for m in after] == ["system", "user", "assistant", "tool"]
    assert after[0] == {"role": "system", "content": "SYSTEM PROMPT"}
    opening = after[1]["content"]
    assert opening[-1] == {"type": "text", "text": SUMMARY_IN_HISTORY}
    assert all(p["text"].startswith("<system-reminder>") for p in opening[:-1]) and opening[:-1]
    assert after[2]["content"] == ACKNOWLEDGEMENT
    assert [c["id"] for c in after[2]["tool_calls"]] == ["call_app"]
    assert after[3]["tool_call_id"] == "call_app" and "print('hi')" in json.dumps(after[3])
    assert_pairs_whole(after[1:])
    text = json.dumps(after)
    assert "alpha" not in text and "Read my files" not in text and "scratch work" not in text

    (compressed,) = [e.compression for e in events if isinstance(e, HistoryCompressed)]
    assert compressed.status is CompressionStatus.COMPRESSED and compressed.trigger == "auto"
    result = compressed.before - 3520  # 3,500 reported + 20 answered + the new tool result
    assert 0 < result < 20 and compressed.before_estimated
    # 0.24.4's arithmetic: before - (1,400 asked - 1,000 prompt - the open result) + 60 answered
    assert compressed.after == compressed.before - (1400 - 1000 - result) + 60
    assert compressed.text() == (
        f"Chat history compressed from ~{compressed.before} to ~{compressed.after} tokens."
    )


async def test_a_new_prompt_follows_the_summary_and_the_setting_moves_the_threshold(
    server: FakeOpenAI, ws: Path, tmp_path: Path
) -> None:
    (ws / ".qwen").mkdir()
    (ws / ".qwen" / "settings.json").write_text('{"context": {"autoCompactThreshold": 0.5}}')
    env = {
        "HOME": str(tmp_path / "home"),
        "QWEN_HOME": str(tmp_path / "home" / ".qwen"),
        "QWEN_CODE_SYSTEM_SETTINGS_PATH": str(tmp_path / "system-settings.json"),
        "QWEN_CODE_SYSTEM_DEFAULTS_PATH": str(tmp_path / "system-defaults.json"),
    }
    config = Config.load(ws, env=env, approval_mode=ApprovalMode.YOLO)

    server.script = [
        Reply(content="First answer.", usage=usage(1900)),  # under 2,000: not yet
        Reply(content="Second answer.", usage=usage(2100)),
        Reply(content=SUMMARY, usage=usage(1500, 50)),
        Reply(content="Third answer.", usage=usage(300)),
    ]
    events: list[AgentEvent] = []
    loop = make_loop(server, config, build_registry(config), events)
    for prompt in ("one", "two", "three"):
        await loop.send(prompt)
    await loop.client.aclose()
    assert [is_summary_request(r) for r in server.requests] == [False, False, True, False]
    summarised = json.dumps(server.requests[2]["messages"])
    assert "Second answer." in summarised and '"three"' not in summarised
    after = server.requests[3]["messages"]
    assert [m["role"] for m in after] == ["system", "user", "assistant", "user"]
    assert after[1]["content"][-1]["text"] == SUMMARY_IN_HISTORY
    assert after[3]["content"][-1] == {"type": "text", "text": "three"}
    assert "First answer." not in json.dumps(after)
    assert len(loop.history) == 4  # summary, acknowledgement, "three", its answer


async def test_a_failed_summary_keeps_the_history_and_is_tried_three_times_at_most(
    server: FakeOpenAI, config: Config, registry: ToolRegistry, ws: Path
) -> None:
    turns = [
        Reply(tool_calls=[call("read_file", {"file_path": f"{ws}/notes.txt"})], usage=usage(3600))
        for _ in range(5)
    ] + [Reply(content="Finished anyway.", usage=usage(3700))]

    def answer(body: dict[str, Any]) -> Reply:
        if is_summary_request(body):
            return Reply(status=400, error={"error": {"message": "summary refused"}})
        return turns.pop(0)

    server.script = answer
    events: list[AgentEvent] = []
    loop = make_loop(server, config, registry, events)
    finished = await loop.send("Keep reading")
    await loop.client.aclose()
    assert (finished.reason, finished.text) == (StopReason.GOAL, "Finished anyway.")
    failures = [e.compression for e in events if isinstance(e, HistoryCompressed)]
    assert [f.status for f in failures] == [CompressionStatus.API_ERROR] * 3
    assert [f.failures for f in failures] == [1, 2, 3]
    assert "summary refused" in str(failures[0].error)
    assert failures[0].text() == "Could not compress chat history due to an API error."
    assert sum(map(is_summary_request, server.requests)) == 3
    last = server.requests[-1]["messages"]  # nothing was lost: six turns, five calls answered
    assert [m["role"] for m in last[1:]] == ["user"] + ["assistant", "tool"] * 5
    assert "Keep reading" in json.dumps(last[1])


async def test_manual_compression_with_instructions_and_nothing_to_compress(
    server: FakeOpenAI, config: Config, registry: ToolRegistry
) -> None:
    server.script = [
        Reply(content="Hello there.", usage=usage(3000)),
        Reply(content=SUMMARY, usage=usage(1800, 40)),
    ]
    events: list[AgentEvent] = []
    loop = make_loop(server, config, registry, events)
    empty = await loop.compression.compress(loop.history)
    assert (empty.status, empty.text()) == (CompressionStatus.NOOP, "Nothing to compress.")
    await loop.send("hi")
    result = await loop.compression.compress(loop.history, instructions="  keep the names  ")
    await loop.client.aclose()
    assert result.status is CompressionStatus.COMPRESSED and result.trigger == "manual"
    assert (result.before, result.after) == (3000, 2240)  # 3,000 - (1,800 - 1,000) + 40
    assert result.text() == "Chat history compressed from 3000 to ~2240 tokens."
    system = server.requests[1]["messages"][0]["content"]
    assert system == COMPRESSION_PROMPT + "\n\nAdditional Instructions:\nkeep the names"
    assert [m["role"] for m in loop.history] == ["user", "assistant"]
    assert not [e for e in events if isinstance(e, HistoryCompressed)]  # only auto is an event


async def test_parallel_calls_stay_with_their_results_and_bad_summaries_change_nothing(
    server: FakeOpenAI, config: Config, registry: ToolRegistry, ws: Path
) -> None:
    reads = [
        call("read_file", {"file_path": f"{ws}/notes.txt"}, "call_a"),
        call("read_file", {"file_path": f"{ws}/src/app.py"}, "call_b"),
    ]
    server.script = [
        Reply(content="Hi.", usage=usage(100)),
        Reply(tool_calls=reads, usage=usage(3500)),
        Reply(content=SUMMARY, usage=usage(1500, 50)),
        Reply(content="Read both.", usage=usage(400)),
        Reply(content="<analysis>only a draft</analysis>", usage=usage(900, 30)),
        Reply(content=SUMMARY, usage=usage(100, 500)),  # bigger than what it replaces
    ]
    events: list[AgentEvent] = []
    loop = make_loop(server, config, registry, events)
    await loop.send("hello")
    await loop.send("read both")
    after = server.requests[3]["messages"]
    assert [m["role"] for m in after] == ["system", "user", "assistant", "tool", "tool"]
    assert [c["id"] for c in after[2]["tool_calls"]] == ["call_a", "call_b"]
    assert [m["tool_call_id"] for m in after[3:]] == ["call_a", "call_b"]
    assert_pairs_whole(after[1:])

    kept = loop.history.messages
    empty = await loop.compression.compress(loop.history)
    assert empty.status is CompressionStatus.EMPTY_SUMMARY and loop.history.messages == kept
    assert empty.text() == (
        "Could not compress chat history because the compression summary was empty."
    )
    inflated = await loop.compression.compress(loop.history)
    await loop.client.aclose()
    assert inflated.status is CompressionStatus.INFLATED and loop.history.messages == kept
    assert inflated.text() == "Compression was not beneficial for this history size."
