"""Admission (mcp.allowed / mcp.excluded, includeTools / excludeTools), names across servers,
and MCP tools in a registry, run through the whole call flow."""

from __future__ import annotations

from typing import Any

from qwen_tools import McpServerConfig, ToolRegistry, tool
from qwen_tools.config.tool_settings import ApprovalMode, ToolSettings
from qwen_tools.contract.confirmation import ToolConfirmationOutcome
from qwen_tools.execution.tool_call import ToolCallRequest, run_tool_call
from qwen_tools.mcp.admission import (
    admitted_servers,
    discovery_timeout_ms,
    is_server_admitted,
    is_tool_enabled,
    matches_server_pattern,
)
from qwen_tools.mcp.manager import McpManager
from qwen_tools.mcp.registration import register_mcp_tools


def test_server_patterns() -> None:
    assert matches_server_pattern("github", "github")
    assert not matches_server_pattern("github2", "github")
    assert matches_server_pattern("github2", "github*")
    assert matches_server_pattern("gh-1", "gh-?")
    assert not matches_server_pattern("gh-12", "gh-?")
    assert matches_server_pattern("a.b", "a.b") and not matches_server_pattern("axb", "a.b")
    assert is_server_admitted("a", None)
    assert not is_server_admitted("a", [])
    assert is_server_admitted("dev-x", ["dev-*"], ["prod-*"])
    assert not is_server_admitted("dev-x", ["dev-*"], ["dev-x"])  # excluded wins


def test_admitted_servers_follow_settings() -> None:
    entry = McpServerConfig(command="x")
    servers = {"dev-a": entry, "dev-b": entry, "prod": entry}
    settings = ToolSettings(
        mcp_servers=servers, mcp_allowed=("dev-*", "prod"), mcp_excluded=("dev-b",)
    )
    assert list(admitted_servers(settings)) == ["dev-a", "prod"]
    assert admitted_servers(ToolSettings(mcp_servers=servers, trusted=False)) == {}


def test_tool_filters_and_discovery_caps() -> None:
    config = McpServerConfig(
        command="x", include_tools=("echo", "add(a, b)"), exclude_tools=("add",)
    )
    assert is_tool_enabled("echo", config)
    assert not is_tool_enabled("add", config)  # exclude wins over the "add(" include
    assert not is_tool_enabled("image", config)
    assert is_tool_enabled("image", McpServerConfig(command="x"))
    assert is_tool_enabled("add", McpServerConfig(command="x", include_tools=("add(x)",)))
    assert discovery_timeout_ms(McpServerConfig(command="x")) == 30_000
    assert discovery_timeout_ms(McpServerConfig(url="http://h/sse")) == 5_000
    assert discovery_timeout_ms(McpServerConfig(http_url="http://h/mcp")) == 5_000
    assert (
        discovery_timeout_ms(McpServerConfig(command="x", extra={"discoveryTimeoutMs": 5})) == 100
    )
    assert (
        discovery_timeout_ms(McpServerConfig(command="x", extra={"discoveryTimeoutMs": 10**9}))
        == 300_000
    )


async def test_two_servers_filters_and_allowlists(config_for: Any, servers: Any) -> None:
    config = config_for(
        {
            "a": servers.stdio(
                "a", include_tools=("echo", "add(a,b)", "slow"), exclude_tools=("slow",)
            ),
            "b": servers.stdio("b", exclude_tools=("echo",)),
            "c": servers.stdio("c"),
            "skip-me": servers.stdio("skip-me"),
        },
        mcp_allowed=("a", "b", "skip-*"),
        mcp_excluded=("skip-me",),
    )
    async with McpManager(config) as manager:
        assert manager.server_names == ["a", "b"]
        names = [t.name for t in manager.tools()]
        assert [n for n in names if n.startswith("a__")] == ["a__echo", "a__add"]
        assert "b__echo" not in names and "b__add" in names
    config = config_for({"a": servers.stdio("a"), "b": servers.stdio("b")})
    async with McpManager(config) as manager:
        tools = {t.name: t for t in manager.tools()}
        assert {"a__echo", "b__echo"} <= set(tools)
        assert tools["a__echo"].display_name == "echo (a MCP Server)"
        assert tools["b__echo"].display_name == "echo (b MCP Server)"


async def test_sanitised_server_names_that_collide(config_for: Any, servers: Any) -> None:
    config = config_for({"my_srv": servers.stdio("x"), "my.srv": servers.stdio("y")})
    async with McpManager(config) as manager:
        names = {(t.server_name, t.server_tool_name): t.name for t in manager.tools()}
        assert names[("my_srv", "echo")] == "my_srv__echo"
        assert names[("my.srv", "echo")].startswith("my_srv__echo_")
        assert len(set(names.values())) == len(names)


@tool()
def a__echo(text: str) -> str:
    """A built-in-style tool that happens to take an MCP name."""
    return text


async def test_register_and_run_through_the_call_flow(config_for: Any, servers: Any) -> None:
    config = config_for({"a": servers.stdio("a"), "t": servers.stdio("t", trust=True)})
    registry = ToolRegistry([a__echo])
    async with McpManager(config) as manager:
        registered = await register_mcp_tools(registry, manager)
        assert "a__echo" not in {t.name for t in registered}  # taken by a non-MCP tool
        assert registry.get_tool("a__add") is not None
        assert len(await register_mcp_tools(registry, manager)) == len(registered)  # idempotent

        trusted = await run_tool_call(registry, config, ToolCallRequest("t__echo", {"text": "hi"}))
        assert trusted.status == "success" and trusted.response_text == "Echo: hi"

        refused = await run_tool_call(registry, config, ToolCallRequest("a__add", {"a": 1, "b": 2}))
        assert refused.status == "error"
        assert refused.response_text == (
            'Qwen Code requires permission to use "a__add", but that permission was declined '
            "(non-interactive mode cannot prompt for confirmation)."
        )

        asked: list[Any] = []

        async def confirm(request: Any, details: Any) -> tuple[ToolConfirmationOutcome, None]:
            asked.append(details)
            return ToolConfirmationOutcome.PROCEED_ALWAYS_SERVER, None

        allowed = await run_tool_call(
            registry, config, ToolCallRequest("a__add", {"a": 1, "b": 2}), confirm=confirm
        )
        assert allowed.response_text == '{"result":3}\n3'
        assert asked and asked[0].type == "mcp" and asked[0].server_name == "a"
        again = await run_tool_call(registry, config, ToolCallRequest("a__image", {}))
        assert again.status == "success"  # the server is now always allowed

        config.approval_mode = ApprovalMode.YOLO
        failed = await run_tool_call(registry, config, ToolCallRequest("a__fail", {}))
        assert failed.status == "error"
        assert failed.response_text.startswith(
            "MCP tool 'fail' reported tool error for function call: "
        )

        found = registry.get_tool("mcp__t__echo")
        assert found is not None and found.name == "t__echo"
        assert registry.get_tool("mcp__nope__echo") is None
