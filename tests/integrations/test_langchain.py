"""LangChain / LangGraph: our tools as ``BaseTool``s in a LangGraph graph driven by LangChain's
``GenericFakeChatModel``; approvals are the graph's interrupts, resumed with ``Command``."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph")

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.types import Command

from qwen_tools import InlineDataPart, Session, tool
from qwen_tools.integrations.langchain import QwenTools, langchain_tools

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n fake").decode()


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / ".qwen").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("QWEN_HOME", str(home / ".qwen"))
    monkeypatch.setenv("QWEN_CODE_SYSTEM_SETTINGS_PATH", str(tmp_path / "system.json"))
    monkeypatch.setenv("QWEN_CODE_SYSTEM_DEFAULTS_PATH", str(tmp_path / "defaults.json"))
    monkeypatch.setenv("LANGSMITH_TRACING", "false")
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("alpha\n")
    return root


def fake_model(*calls: tuple[str, dict[str, Any]]) -> GenericFakeChatModel:
    """One tool call per turn, then "done"."""
    replies: list[AIMessage] = [
        AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": f"c{i}"}])
        for i, (name, args) in enumerate(calls)
    ]
    replies.append(AIMessage(content="done"))
    messages: Iterator[AIMessage] = iter(replies)
    return GenericFakeChatModel(messages=messages)


def graph(model: GenericFakeChatModel, tools: list[Any]) -> Any:
    async def agent(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await model.ainvoke(state["messages"])]}

    builder = StateGraph(MessagesState)
    builder.add_node("agent", agent)
    builder.add_node("tools", ToolNode(tools))
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", tools_condition, {"tools": "tools", END: END})
    builder.add_edge("tools", "agent")
    return builder.compile(checkpointer=InMemorySaver())


def tool_messages(state: dict[str, Any]) -> list[ToolMessage]:
    return [m for m in state["messages"] if isinstance(m, ToolMessage)]


CONFIG: Any = {"configurable": {"thread_id": "t1"}}


async def test_read_and_error_in_a_graph(ws: Path) -> None:
    calls = (
        ("read_file", {"absolute_path": str(ws / "a.txt")}),
        ("read_file", {"absolute_path": str(ws / "nope.txt")}),
    )
    async with QwenTools(ws) as qwen:
        state = await graph(fake_model(*calls), qwen.tools).ainvoke(
            {"messages": [("user", "read")]}, CONFIG
        )
    first, second = tool_messages(state)
    assert "alpha" in first.content and first.status == "success"
    assert second.status == "error" and "File not found" in str(second.content)
    assert state["messages"][-1].content == "done"


async def test_interrupt_for_approval_then_always_carries_over(ws: Path) -> None:
    calls = (
        ("run_shell_command", {"command": "touch one.txt"}),
        ("run_shell_command", {"command": "touch two.txt"}),
    )
    async with Session(ws) as session:
        app = graph(fake_model(*calls), langchain_tools(session))
        state = await app.ainvoke({"messages": [("user", "touch")]}, CONFIG)
        (pending,) = state["__interrupt__"]
        assert pending.value["tool"] == "run_shell_command"
        assert pending.value["confirmation"]["rootCommands"] == ["touch"]
        assert not (ws / "one.txt").exists()
        state = await app.ainvoke(Command(resume="always"), CONFIG)
        assert "__interrupt__" not in state  # the second touch was not asked about
    assert (ws / "one.txt").exists() and (ws / "two.txt").exists()
    assert state["messages"][-1].content == "done"


async def test_a_denied_call_tells_the_model_our_text(ws: Path) -> None:
    args = {"file_path": str(ws / "new.txt"), "content": "x"}
    async with QwenTools(ws) as qwen:
        app = graph(fake_model(("write_file", args)), qwen.tools)
        state = await app.ainvoke({"messages": [("user", "write")]}, CONFIG)
        assert state["__interrupt__"][0].value["confirmation"]["type"] == "edit"
        state = await app.ainvoke(Command(resume={"approved": False}), CONFIG)
    (message,) = tool_messages(state)
    assert message.status == "error"
    assert message.content == "[Operation Cancelled] Reason: User did not allow tool call"
    assert not (ws / "new.txt").exists()


async def test_images_and_live_output(ws: Path) -> None:
    @tool
    async def snapshot(update_output: Any) -> list[Any]:
        """Take a picture."""
        update_output("half")
        return ["a picture", InlineDataPart("image/png", PNG)]

    async with QwenTools(ws, tools=[snapshot]) as qwen:
        app = graph(fake_model(("snapshot", {})), qwen.tools)
        custom: list[Any] = []
        async for mode, chunk in app.astream(
            {"messages": [("user", "look")]}, CONFIG, stream_mode=["custom", "values"]
        ):
            if mode == "custom":
                custom.append(chunk)
            else:
                state = chunk
    assert custom == [{"qwen_tool_output": {"tool": "snapshot", "call_id": "c0", "output": "half"}}]
    (message,) = tool_messages(state)
    assert {"type": "text", "text": "a picture"} in message.content
    assert {"type": "image", "base64": PNG, "mime_type": "image/png"} in message.content


async def test_outside_a_graph_approval_is_refused(ws: Path) -> None:
    args = {"file_path": str(ws / "new.txt"), "content": "x"}
    async with QwenTools(ws) as qwen:
        (write,) = [t for t in qwen.tools if t.name == "write_file"]
        message = await write.ainvoke(
            {"type": "tool_call", "name": "write_file", "args": args, "id": "w1"}
        )
    assert message.status == "error"
    assert message.content == (
        'Qwen Code requires permission to use "write_file", but that permission was declined '
        "(non-interactive mode cannot prompt for confirmation)."
    )
    assert not (ws / "new.txt").exists()


async def test_a_resumed_node_does_not_run_finished_calls_again(ws: Path) -> None:
    """The tools node runs again from its start when resumed: a call that had finished in it
    before the interrupt keeps its result and does not run a second time."""
    runs: list[str] = []

    @tool
    def count(label: str) -> str:
        """Count a run.

        Args:
            label: what to record.
        """
        runs.append(label)
        return f"counted {label}"

    both = AIMessage(
        content="",
        tool_calls=[
            {"name": "count", "args": {"label": "x"}, "id": "k1"},
            {
                "name": "write_file",
                "args": {"file_path": str(ws / "n.txt"), "content": "n"},
                "id": "w1",
            },
        ],
    )
    model = GenericFakeChatModel(messages=iter([both, AIMessage(content="done")]))
    async with QwenTools(ws, tools=[count]) as qwen:
        app = graph(model, qwen.tools)
        state = await app.ainvoke({"messages": [("user", "go")]}, CONFIG)
        assert "__interrupt__" in state
        state = await app.ainvoke(Command(resume="once"), CONFIG)
    assert runs == ["x"]
    assert (ws / "n.txt").read_text() == "n"
    assert "counted x" in [m.content for m in tool_messages(state)]
