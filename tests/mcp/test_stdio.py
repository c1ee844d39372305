"""MCP tools over stdio, against the real ``demo_server.py``: discovery, results, progress,
cancellation, confirmation and trust, reconnection."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from qwen_tools.contract.abort import AbortController, AbortError
from qwen_tools.contract.confirmation import McpConfirmationDetails
from qwen_tools.contract.display import McpToolProgressDisplay
from qwen_tools.contract.errors import StructuredToolError, ToolErrorType
from qwen_tools.contract.kinds import Kind
from qwen_tools.contract.parts import InlineDataPart, TextPart
from qwen_tools.mcp.connection import McpServerStatus
from qwen_tools.mcp.manager import McpManager
from qwen_tools.mcp.tool import UNSAFE_REPLAY_MESSAGE, McpTool
from support.processes import marked_pids


def tools_of(manager: McpManager) -> dict[str, McpTool]:
    return {tool.name: tool for tool in manager.tools()}


async def wait_for(predicate: Any, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.02)
    return True


async def test_discovery_lists_tools_with_names_kinds_and_schemas(shared: McpManager) -> None:
    assert shared.statuses() == {
        "demo": McpServerStatus.CONNECTED,
        "trusted": McpServerStatus.CONNECTED,
    }
    tools = tools_of(shared)
    assert "demo__echo" in tools and "trusted__echo" in tools
    assert "demo__app_only" not in tools  # _meta.ui.visibility without "model"
    echo, add = tools["demo__echo"], tools["demo__add"]
    assert echo.display_name == "echo (demo MCP Server)"
    assert echo.description == "Echo the text back."
    assert echo.server_name == "demo" and echo.server_tool_name == "echo"
    assert echo.kind is Kind.OTHER and add.kind is Kind.READ
    assert echo.max_output_chars == 500_000 and echo.can_update_output
    assert echo.schema.parameters_json_schema["type"] == "object"
    assert echo.schema.parameters_json_schema["required"] == ["text"]
    assert echo.aliases == ("mcp__demo__echo",)
    assert shared.instructions("demo") == "Instructions of demo."


async def test_results_become_parts_exactly(shared: McpManager) -> None:
    tools = tools_of(shared)
    echo = await tools["demo__echo"].build_and_execute({"text": "hi"})
    assert echo.llm_content == [TextPart("Echo: hi")] and echo.return_display == "Echo: hi"
    add = await tools["demo__add"].build_and_execute({"a": 1, "b": "2"})
    assert add.llm_content == [TextPart('{"result":3}'), TextPart("3")]
    image = await tools["demo__image"].build_and_execute({})
    assert image.llm_content[0] == TextPart(
        "[Tool 'image' provided the following image data with mime-type: image/png]"
    )
    assert isinstance(image.llm_content[1], InlineDataPart)
    assert image.llm_content[1].mime_type == "image/png"
    audio = await tools["demo__audio"].build_and_execute({})
    assert audio.return_display == (
        "[Tool 'audio' provided the following audio data with mime-type: audio/wav]\n[audio/wav]"
    )
    link = await tools["demo__link"].build_and_execute({})
    assert link.llm_content == [
        TextPart("Resource Link: The README at file:///r.md"),
        TextPart("Resource Link: notes at file:///n.txt"),
    ]
    embedded = await tools["demo__embedded"].build_and_execute({})
    assert embedded.llm_content == [
        TextPart("alpha"),
        TextPart(
            "[Tool 'embedded' provided the following embedded resource with mime-type: "
            "application/x-demo]"
        ),
        InlineDataPart(mime_type="application/x-demo", data="AAEC"),
    ]


async def test_is_error_result(shared: McpManager) -> None:
    done = await tools_of(shared)["demo__fail"].build_and_execute({"reason": "bad"})
    assert done.error is not None and done.error.type is ToolErrorType.MCP_TOOL_ERROR
    assert done.error.message == (
        "MCP tool 'fail' reported tool error for function call: "
        '{"name":"fail","args":{"reason":"bad"}} with response: '
        '[{"functionResponse":{"name":"fail","response":{"error":{"content":'
        '[{"type":"text","text":"bad"}],"isError":true},"content":[{"type":"text","text":"bad"}]}}}]'
    )
    assert done.return_display == "Error: MCP tool 'fail' reported an error."


async def test_description_is_compact_json_of_params(shared: McpManager) -> None:
    invocation = tools_of(shared)["demo__echo"].build({"text": 'é "q"'})
    assert invocation.get_description() == '{"text":"é \\"q\\""}'


async def test_progress_reaches_update_output(shared: McpManager) -> None:
    seen: list[Any] = []
    done = await tools_of(shared)["demo__slow"].build_and_execute({"steps": 3}, None, seen.append)
    assert done.llm_content == [TextPart("done after 3")]
    assert seen == [McpToolProgressDisplay(float(i), 3.0, f"step {i}") for i in (1, 2, 3)]
    assert seen[0].to_dict() == {
        "type": "mcp_tool_progress",
        "progress": 1.0,
        "total": 3.0,
        "message": "step 1",
    }


async def test_cancel_returns_promptly_and_the_server_sees_it(
    shared: McpManager, tmp_path: Path
) -> None:
    marker = tmp_path / "cancelled"
    controller = AbortController()
    invocation = tools_of(shared)["demo__forever"].build({"marker": str(marker)})
    task = asyncio.create_task(invocation.execute(controller.signal))
    assert await wait_for(Path(f"{marker}.started").exists, 30)
    controller.abort()
    with pytest.raises(AbortError, match=r"^Tool call aborted$"):
        await asyncio.wait_for(task, 30)
    assert await wait_for(marker.exists)
    # the connection is still usable
    done = await tools_of(shared)["demo__echo"].build_and_execute({"text": "still"})
    assert done.return_display == "Echo: still"


async def test_abort_does_not_wait_for_the_server(shared: McpManager, tmp_path: Path) -> None:
    """The abort races the server: ``stubborn`` never answers, cancelled or not."""
    marker = tmp_path / "stubborn"
    controller = AbortController()
    invocation = tools_of(shared)["demo__stubborn"].build({"marker": str(marker)})
    task = asyncio.create_task(invocation.execute(controller.signal))
    assert await wait_for(Path(f"{marker}.started").exists, 30)
    controller.abort()
    with pytest.raises(AbortError, match=r"^Tool call aborted$"):
        await asyncio.wait_for(task, 30)  # bounded: fails only if the call waits for the server
    done = await tools_of(shared)["demo__echo"].build_and_execute({"text": "after"})
    assert done.return_display == "Echo: after"


async def test_confirmation_unless_trusted_or_always_allowed(shared: McpManager) -> None:
    tools = tools_of(shared)
    never = AbortController().signal
    details = await tools["demo__echo"].build({"text": "x"}).should_confirm_execute(never)
    assert isinstance(details, McpConfirmationDetails)
    assert details.to_dict() == {
        "type": "mcp",
        "title": "Confirm MCP Tool Execution",
        "serverName": "demo",
        "toolName": "echo",
        "toolDisplayName": "echo (demo MCP Server)",
    }
    assert await tools["trusted__echo"].build({"text": "x"}).should_confirm_execute(never) is False
    session = shared.config.session
    session.always_allowed_tools.add("demo__echo")
    try:
        assert await tools["demo__echo"].build({"text": "x"}).should_confirm_execute(never) is False
        assert await tools["demo__add"].build({"a": 1, "b": 2}).should_confirm_execute(never)
        session.always_allowed_mcp_servers.add("demo")
        assert (
            await tools["demo__add"].build({"a": 1, "b": 2}).should_confirm_execute(never) is False
        )
    finally:
        session.always_allowed_tools.clear()
        session.always_allowed_mcp_servers.clear()


async def test_per_server_timeout(shared: McpManager, tmp_path: Path) -> None:
    tool = tools_of(shared)["trusted__forever"]  # timeout: 2000 ms
    with pytest.raises(StructuredToolError) as failure:
        await tool.build_and_execute({"marker": str(tmp_path / "m")})
    # forever never answers, so only the server's own timeout can have ended the call
    assert (failure.value.message, failure.value.error_type) == (
        "Request timed out",
        ToolErrorType.EXECUTION_TIMEOUT,
    )
    assert await wait_for((tmp_path / "m").exists)  # the server was told to stop


async def test_roots_are_the_workspace_directories(shared: McpManager) -> None:
    done = await tools_of(shared)["demo__roots"].build_and_execute({})
    root = shared.config.target_dir
    assert done.return_display == f"{root.as_uri()} {root.name}"


async def test_death_mid_call_is_not_replayed_unless_safe(
    config_for: Any, servers: Any, tmp_path: Path
) -> None:
    config = config_for(
        {"plain": servers.stdio("plain"), "safe": servers.stdio("safe", trust=True)}
    )
    async with McpManager(config) as manager:
        tools = tools_of(manager)
        with pytest.raises(StructuredToolError) as died:
            await tools["plain__die"].build_and_execute({})
        assert died.value.message == UNSAFE_REPLAY_MESSAGE
        assert died.value.message.startswith("MCP tool execution may have completed before")
        # the failed call reconnected the server: the next one works
        assert manager.status("plain") is McpServerStatus.CONNECTED
        again = await tools["plain__echo"].build_and_execute({"text": "back"})
        assert again.return_display == "Echo: back"
        # trusted + readOnlyHint/idempotentHint: reconnect and replay once
        marker = tmp_path / "once"
        replayed = await tools["safe__die_once"].build_and_execute({"marker": str(marker)})
        assert marker.exists() and replayed.return_display == "survived"


async def test_death_while_idle_is_seen_and_the_next_call_reconnects(
    config_for: Any, servers: Any
) -> None:
    config = config_for({"demo": servers.stdio()})
    async with McpManager(config) as manager:
        tools = tools_of(manager)
        generation = manager.connection("demo").generation
        pids = marked_pids(servers.mark)
        assert pids
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
        assert await wait_for(lambda: manager.status("demo") is McpServerStatus.DISCONNECTED)
        assert manager.last_error("demo") == "Connection closed"
        assert tools_of(manager) == {}  # a disconnected server offers no tools
        done = await tools["demo__echo"].build_and_execute({"text": "revived"})
        assert done.return_display == "Echo: revived"
        assert manager.status("demo") is McpServerStatus.CONNECTED
        assert manager.connection("demo").generation == generation + 1


async def test_idle_timeout_is_reset_by_progress(
    config_for: Any, servers: Any, tmp_path: Path
) -> None:
    config = config_for({"demo": servers.stdio()})
    async with McpManager(config, tool_idle_timeout_ms=600) as manager:
        tools = tools_of(manager)
        # 20 steps of 50 ms: 1 s in all, but never 600 ms without progress
        slow = await tools["demo__slow"].build_and_execute({"steps": 20})
        assert slow.return_display == "done after 20"
        with pytest.raises(StructuredToolError) as silent:
            await tools["demo__forever"].build_and_execute({"marker": str(tmp_path / "m")})
        assert silent.value.error_type is ToolErrorType.EXECUTION_TIMEOUT
        assert silent.value.message == (
            "MCP tool 'forever' on server 'demo' did not respond within 600ms idle timeout"
        )
        assert await wait_for((tmp_path / "m").exists)


async def test_abort_while_reconnecting(config_for: Any, servers: Any) -> None:
    config = config_for({"demo": servers.stdio()})
    async with McpManager(config) as manager:
        echo = tools_of(manager)["demo__echo"]
        for pid in marked_pids(servers.mark):
            os.kill(pid, signal.SIGKILL)
        assert await wait_for(lambda: manager.status("demo") is McpServerStatus.DISCONNECTED)
        controller = AbortController()
        task = asyncio.create_task(echo.build({"text": "x"}).execute(controller.signal))
        await asyncio.sleep(0.1)  # the server is starting again
        controller.abort()
        with pytest.raises(AbortError):
            await task
