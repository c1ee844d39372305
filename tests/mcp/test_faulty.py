"""Faulty servers cost only themselves: crash, hang, garbage, death, bad configuration."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from qwen_tools import McpServerConfig
from qwen_tools.contract.errors import StructuredToolError
from qwen_tools.mcp.connection import McpServerStatus
from qwen_tools.mcp.listing import NOTHING_FOUND
from qwen_tools.mcp.manager import McpManager
from support.processes import marked_pids

HEALTHY = McpServerStatus.CONNECTED
DOWN = McpServerStatus.DISCONNECTED
CONNECTING = McpServerStatus.CONNECTING
STUCK_VAR = "QWEN_TOOLS_TEST_STUCK"


async def test_failures_and_hangs_cost_only_their_server(config_for: Any, servers: Any) -> None:
    """No server waits for another: while ``stuck`` (cap 60 s) still connects, every other one
    has settled, ``hang`` on its own cap. (Checked by states, not by a stopwatch; ``stuck`` is
    then killed, which ends its attempt at once.)"""
    stuck_mark = uuid.uuid4().hex
    config = config_for(
        {
            "stuck": servers.stdio(
                mode="hang", env={STUCK_VAR: stuck_mark}, extra={"discoveryTimeoutMs": 60000}
            ),
            "hang": servers.stdio(mode="hang", extra={"discoveryTimeoutMs": 1000}),
            "crash": servers.stdio(mode="crash"),
            "exit": servers.stdio(mode="garbage-exit"),
            "good": servers.stdio("good"),
        }
    )
    manager = McpManager(config)
    starting = asyncio.ensure_future(manager.start())
    others = ("hang", "crash", "exit", "good")

    def settled(name: str) -> bool:
        status = manager.status(name)
        return status is HEALTHY or (status is DOWN and manager.last_error(name) is not None)

    try:
        # Bounded by stuck's 60 s cap: fails only if the others wait for it.
        while not all(settled(name) for name in others):
            assert not starting.done(), manager.statuses()
            await asyncio.sleep(0.01)
        assert manager.status("stuck") is CONNECTING and not settled("stuck")
        for pid in marked_pids(stuck_mark, STUCK_VAR):
            os.kill(pid, signal.SIGKILL)
        await starting
        assert manager.status("stuck") is DOWN
        assert {name: manager.status(name) for name in others} == {
            "good": HEALTHY,
            "crash": DOWN,
            "hang": DOWN,
            "exit": DOWN,
        }
        assert manager.last_error("crash") == (
            "Connection closed (stderr: fatal: the test server crashed on purpose)"
        )
        assert manager.last_error("hang") == "MCP server 'hang' discovery timed out after 1000ms"
        assert manager.last_error("exit") == "Connection closed"
        assert {t.server_name for t in manager.tools()} == {"good"}
        done = await {t.name: t for t in manager.tools()}["good__echo"].build_and_execute(
            {"text": "ok"}
        )
        assert done.return_display == "Echo: ok"
    finally:
        await manager.aclose()


async def test_manager_wide_discovery_timeout(config_for: Any, servers: Any) -> None:
    manager = McpManager(config_for({"hang": servers.stdio(mode="hang")}), discovery_timeout=0.5)
    async with manager:
        assert manager.status("hang") is DOWN
        assert manager.last_error("hang") == "MCP server 'hang' discovery timed out after 500ms"


async def test_garbage_lines_on_stdout_are_skipped(config_for: Any, servers: Any) -> None:
    async with McpManager(config_for({"noisy": servers.stdio(mode="garbage")})) as manager:
        assert manager.status("noisy") is HEALTHY
        generation = manager.connection("noisy").generation
        await manager.start()  # already connected: nothing happens
        assert manager.connection("noisy").generation == generation
        tool = {t.name: t for t in manager.tools()}["noisy__echo"]
        assert (await tool.build_and_execute({"text": "x"})).return_display == "Echo: x"


async def test_duplicate_tool_names_skip_only_the_duplicate(config_for: Any, servers: Any) -> None:
    async with McpManager(config_for({"d": servers.stdio(mode="dupes")})) as manager:
        tools = {t.name: t for t in manager.tools()}
        assert sorted(tools) == ["d__echo", "d__other"]
        assert tools["d__echo"].description == "first"


async def test_empty_server_is_disconnected(config_for: Any, servers: Any) -> None:
    async with McpManager(config_for({"e": servers.stdio(mode="empty")})) as manager:
        assert manager.status("e") is DOWN
        assert manager.last_error("e") == NOTHING_FOUND
        assert NOTHING_FOUND == "No prompts, tools, or resources found on the server."


async def test_bad_configuration(config_for: Any, servers: Any, tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    config = config_for(
        {
            "cwd": servers.stdio(cwd=str(missing)),
            "nocmd": McpServerConfig(command=str(tmp_path / "no-such-program")),
            "ok": servers.stdio(cwd=str(tmp_path)),
        }
    )
    async with McpManager(config) as manager:
        assert manager.last_error("cwd") == (
            f"MCP server 'cwd': configured cwd does not exist: {missing}"
        )
        assert manager.status("nocmd") is DOWN
        assert "no-such-program" in (manager.last_error("nocmd") or "")
        assert manager.status("ok") is HEALTHY


async def test_a_call_to_a_server_that_cannot_come_back(config_for: Any, servers: Any) -> None:
    async with McpManager(config_for({"demo": servers.stdio()})) as manager:
        tool = {t.name: t for t in manager.tools()}["demo__echo"]
        # break the configuration, then kill the server: the reconnect fails
        manager.connection("demo").config = McpServerConfig(
            command=sys.executable, args=("-c", "0")
        )
        await manager.connection("demo").reconnect()
        assert manager.status("demo") is DOWN
        with pytest.raises(StructuredToolError) as failure:
            await tool.build_and_execute({"text": "x"})
        assert failure.value.message == "MCP server 'demo' is disconnected: Connection closed"
