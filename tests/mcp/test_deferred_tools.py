"""Deferred tools: an agent with MCP servers is offered ``tool_search`` / ``tool_call`` (0.24.4's
names, parameters and texts), not the MCP tools; a tool reached through the bridge keeps its own
permissions. Real loop, real MCP server, scripted model over real HTTP."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from qwen_tools import Session
from qwen_tools.agent.session import AgentSession
from qwen_tools.config.tool_settings import ApprovalMode
from qwen_tools.mcp.tool_bridge import enable_deferred_tools
from qwen_tools.model.model_config import ModelConfig
from qwen_tools.model.retry import RetryPolicy
from support.fake_openai import FakeOpenAI, Reply, call

FAST = RetryPolicy(attempts=1, initial_delay_s=0.001, max_delay_s=0.002)


@pytest.fixture
def model_server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


def _model(server: FakeOpenAI) -> ModelConfig:
    return ModelConfig(model="fake-model", api_key="sk-test", base_url=server.url)


def _offered(request: dict[str, Any]) -> set[str]:
    return {t["function"]["name"] for t in request.get("tools", [])}


def _tool_texts(request: dict[str, Any]) -> list[str]:
    texts = []
    for message in request["messages"]:
        if message["role"] == "tool":
            content = message["content"]
            texts.append(content if isinstance(content, str) else content[0]["text"])
    return texts


async def test_the_agent_reaches_mcp_tools_through_the_bridge(
    config_for: Any, servers: Any, model_server: FakeOpenAI
) -> None:
    config = config_for({"demo": servers.stdio("demo", trust=True)})
    model_server.script = [
        Reply(tool_calls=[call("tool_search", {"query": "select:demo__echo"}, "s1")]),
        Reply(
            tool_calls=[
                call("tool_call", {"name": "demo__echo", "arguments": {"text": "hi"}}, "c1")
            ]
        ),
        Reply(content="done"),
    ]
    async with (
        Session(config=config, mcp="connect") as session,
        AgentSession(session.config, session.registry, _model(model_server), policy=FAST) as agent,
    ):
        finished = await agent.new_loop().send("Echo hi")
    assert finished.text == "done"
    first, second, third = model_server.requests
    offered = _offered(first)
    assert {"tool_search", "tool_call", "read_file"} <= offered
    assert not any(name.startswith("demo__") for name in offered)
    assert "read_mcp_resource" not in offered
    opening = [p["text"] for p in first["messages"][1]["content"]]
    reminder = next(t for t in opening if "tool_search" in t)
    assert reminder.startswith(
        "<system-reminder>\nThe following tools are reachable through `tool_search` and "
        "`tool_call`. Review a schema with `select:<name>` or a keyword query, then invoke it "
        "with `tool_call`.\n\nThe names and quoted descriptions below are tool metadata"
    )
    assert '### Bundled\n- "list_mcp_resources": ' in reminder
    assert '### MCP servers\n#### demo\n- "demo__add": "Add two integers."' in reminder
    assert reminder.endswith("\n</system-reminder>")

    (schemas,) = _tool_texts(second)
    assert schemas.startswith('<functions>\n<function>{"name":"demo__echo",')
    assert schemas.endswith("</function>\n</functions>")
    declared = json.loads(schemas.removeprefix("<functions>\n<function>").split("</function>")[0])
    assert declared["parametersJsonSchema"]["required"] == ["text"]
    assert _tool_texts(third)[-1] == "Echo: hi"


async def test_bridge_keeps_permissions_and_refuses_what_it_should(
    config_for: Any, servers: Any
) -> None:
    config = config_for({"demo": servers.stdio("demo")})  # not trusted: its tools ask
    async with Session(config=config, mcp="connect") as session:
        enable_deferred_tools(session.registry)
        asked = await session.call(
            "tool_call", {"name": "demo__add", "arguments": {"a": 1, "b": 2}}
        )
        assert asked.status == "error"
        assert asked.response_text == (
            'Qwen Code requires permission to use "demo__add", but that permission was declined '
            "(non-interactive mode cannot prompt for confirmation)."
        )
        visible = await session.call("tool_call", {"name": "read_file", "arguments": {}})
        assert visible.response_text == (
            '[tool_call bridge refused] Tool "read_file" is already visible to the model or is '
            "not deferred. Call it directly instead of using tool_call."
        )
        itself = await session.call("tool_call", {"name": "tool_search", "arguments": {}})
        assert itself.response_text == (
            '[tool_call bridge refused] tool_call cannot invoke bridge tool "tool_search".'
        )
        missing = await session.call("tool_call", {"name": "nope", "arguments": {}})
        assert missing.response_text == (
            '[tool_call bridge refused] Deferred tool "nope" is not registered in this session. '
            "Run tool_search again to inspect the available tools."
        )
        bad = await session.call("tool_call", {"name": "demo__add"})
        assert bad.status == "error" and bad.response_text.startswith("[tool_call bridge refused] ")

    config = config_for({"demo": servers.stdio("demo")})
    config.approval_mode = ApprovalMode.YOLO
    async with Session(config=config, mcp="connect") as session:
        enable_deferred_tools(session.registry)
        done = await session.call("tool_call", {"name": "DEMO__ADD", "arguments": {"a": 1, "b": 2}})
        assert done.status == "success" and done.response_text.endswith("3")


async def test_tool_search_queries(config_for: Any, servers: Any) -> None:
    config = config_for({"demo": servers.stdio("demo", trust=True)})
    async with Session(config=config, mcp="connect") as session:
        enable_deferred_tools(session.registry, visible=["demo__image"])
        found = await session.call("tool_search", {"query": "echo the text"})
        assert found.response_text.startswith('<functions>\n<function>{"name":"demo__echo"')
        # tools.visible keeps demo__image declared: not a keyword candidate
        image = await session.call("tool_search", {"query": "+image"})
        assert image.response_text == (
            "No tools found matching '+image'. Try broader keywords or use `select:ToolName`."
        )
        picked = await session.call(
            "tool_search", {"query": "select:demo__add,'ghost',demo__add", "max_results": 1}
        )
        assert picked.response_text.startswith('<functions>\n<function>{"name":"demo__add"')
        assert picked.response_text.endswith(
            "Truncated by max_results \u2014 request these in a follow-up call: ghost"
        )
        ghost = await session.call("tool_search", {"query": "select:ghost"})
        assert ghost.response_text == "Not found: ghost"
        stop = await session.call("tool_search", {"query": "the a to"})
        assert stop.status == "error"
        empty = await session.call("tool_search", {"query": ""})
        assert empty.status == "error"
        direct = await session.call("demo__echo", {"text": "still callable by name"})
        assert direct.response_text == "Echo: still callable by name"
