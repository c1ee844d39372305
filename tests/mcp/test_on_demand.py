"""``McpOnDemand``: which servers a tool name starts, with real servers (``demo_server.py``)."""

from __future__ import annotations

from typing import Any

from qwen_tools import ToolRegistry
from qwen_tools.mcp.connection import McpServerStatus
from qwen_tools.mcp.manager import McpManager
from qwen_tools.mcp.naming import may_name_a_tool_of
from qwen_tools.mcp.on_demand import McpOnDemand
from qwen_tools.session.default_registry import build_registry

NEVER = {"discoveryTimeoutMs": 300_000}


def _attempted(manager: McpManager) -> set[str]:
    return {name for name in manager.server_names if manager.attempted(name)}


def test_which_names_may_belong_to_a_server() -> None:
    assert may_name_a_tool_of("good__echo", "good")
    assert may_name_a_tool_of("mcp__good__echo", "good")
    assert may_name_a_tool_of("my_srv__echo", "my.srv")
    assert may_name_a_tool_of("mcp__my_srv__echo_1a2b3c4", "my.srv")
    assert not may_name_a_tool_of("goodbye__echo", "good")
    assert not may_name_a_tool_of("read_file", "good")
    long_server = "s" * 70
    assert may_name_a_tool_of(("s" * 64)[:56] + "_abc1234", long_server)


async def test_builtins_and_plain_names_start_nothing(config_for: Any, servers: Any) -> None:
    config = config_for({"slow": servers.stdio("slow", mode="hang", extra=NEVER)})
    registry = build_registry(config)
    manager = McpManager(config)
    async with McpOnDemand(registry, manager) as mcp:
        await mcp.ensure_tool("read_file")
        await mcp.ensure_tool("no_such_tool")
        assert _attempted(manager) == set()


async def test_a_server_starts_for_its_own_tools_only(config_for: Any, servers: Any) -> None:
    config = config_for(
        {
            "slow": servers.stdio("slow", mode="hang", extra=NEVER),
            "good": servers.stdio("good"),
        }
    )
    registry = ToolRegistry()
    manager = McpManager(config)
    async with McpOnDemand(registry, manager) as mcp:
        await mcp.ensure_tool("mcp__good__echo")
        assert _attempted(manager) == {"good"}
        assert registry.get_tool("good__echo") is not None
        assert registry.get_tool("mcp__good__echo") is registry.get_tool("good__echo")
        assert manager.status("slow") is McpServerStatus.DISCONNECTED


async def test_a_failed_server_is_tried_once_and_named(config_for: Any, servers: Any) -> None:
    config = config_for({"crashy": servers.stdio("crashy", mode="crash"), "good": servers.stdio()})
    registry = ToolRegistry()
    manager = McpManager(config)
    async with McpOnDemand(registry, manager) as mcp:
        await mcp.ensure_tool("crashy__echo")
        assert _attempted(manager) == {"crashy"}  # it failed: the others are not tried for it
        first_error = manager.last_error("crashy")
        await mcp.ensure_tool("crashy__echo")
        assert manager.last_error("crashy") == first_error
        message = registry.unknown_tool_message("crashy__echo")
        assert message.startswith('Tool "crashy__echo" not found in registry.')
        assert "MCP server 'crashy' is not connected: Connection closed" in message
        assert "Did you mean" not in message


async def test_an_unknown_server_name_tries_the_rest(config_for: Any, servers: Any) -> None:
    config = config_for({"good": servers.stdio("good")})
    registry = ToolRegistry()
    manager = McpManager(config)
    async with McpOnDemand(registry, manager) as mcp:
        await mcp.ensure_tool("other__echo")
        assert _attempted(manager) == {"good"}
        assert registry.get_tool("good__echo") is not None
        message = registry.unknown_tool_message("other__echo")
        assert "is not connected" not in message and "Did you mean" in message
