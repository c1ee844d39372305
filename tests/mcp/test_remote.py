"""MCP tools over SSE (``url``) and Streamable HTTP (``httpUrl``), against ``demo_server.py``
started as a subprocess on a free port."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from qwen_tools.contract.abort import AbortController, AbortError
from qwen_tools.contract.display import McpToolProgressDisplay
from qwen_tools.contract.errors import StructuredToolError
from qwen_tools.contract.parts import TextPart
from qwen_tools.mcp.connection import McpServerStatus
from qwen_tools.mcp.manager import McpManager
from qwen_tools.mcp.tool import McpTool

pytestmark = pytest.mark.parametrize("kind", ["sse", "http"])


def tools_of(manager: McpManager) -> dict[str, McpTool]:
    return {tool.name: tool for tool in manager.tools()}


async def test_calls_progress_and_headers(kind: str, config_for: Any, servers: Any) -> None:
    config = config_for({"r": servers.remote(kind, headers={"X-Test": "yes"})})
    async with McpManager(config) as manager:
        assert manager.status("r") is McpServerStatus.CONNECTED
        tools = tools_of(manager)
        add = await tools["r__add"].build_and_execute({"a": 2, "b": 5})
        assert add.llm_content == [TextPart('{"result":7}'), TextPart("7")]
        seen: list[Any] = []
        slow = await tools["r__slow"].build_and_execute({"steps": 2}, None, seen.append)
        assert slow.return_display == "done after 2"
        assert seen == [McpToolProgressDisplay(float(i), 2.0, f"step {i}") for i in (1, 2)]
        header = await tools["r__header"].build_and_execute({"name": "X-Test"})
        assert header.return_display == "yes"


async def test_cancel(kind: str, config_for: Any, servers: Any, tmp_path: Path) -> None:
    async with McpManager(config_for({"r": servers.remote(kind)})) as manager:
        marker = tmp_path / "cancelled"
        controller = AbortController()
        call = tools_of(manager)["r__forever"].build({"marker": str(marker)})
        task = asyncio.create_task(call.execute(controller.signal))
        started = Path(f"{marker}.started")
        for _ in range(3000):  # bounded: fails only if the call never reaches the server
            if started.exists():
                break
            await asyncio.sleep(0.01)
        controller.abort()
        with pytest.raises(AbortError):
            await asyncio.wait_for(task, 30)
        deadline = time.monotonic() + 5
        while not marker.exists() and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert marker.read_text() == "cancelled"


async def test_server_restart_reconnects_on_demand(
    kind: str, config_for: Any, servers: Any
) -> None:
    port, process = servers.start_remote(kind)
    path = "/sse" if kind == "sse" else "/mcp"
    url = f"http://127.0.0.1:{port}{path}"
    from qwen_tools import McpServerConfig

    entry = McpServerConfig(url=url) if kind == "sse" else McpServerConfig(http_url=url)
    async with McpManager(config_for({"r": entry})) as manager:
        echo = tools_of(manager)["r__echo"]
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        with pytest.raises(StructuredToolError):
            await echo.build_and_execute({"text": "x"})
        assert manager.status("r") is McpServerStatus.DISCONNECTED
        servers.start_remote(kind, port)
        back = await echo.build_and_execute({"text": "back"})
        assert back.return_display == "Echo: back"
        assert manager.status("r") is McpServerStatus.CONNECTED
