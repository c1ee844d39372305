"""Faulty remote servers (SSE and Streamable HTTP) cost only themselves.

* nothing listening (the server crashed before it could start);
* a listener that accepts connections and never answers (a server hanging at start);
* ``demo_server.py`` exiting in the middle of a call (its ``die`` tool).
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest

from qwen_tools import McpServerConfig
from qwen_tools.contract.errors import StructuredToolError
from qwen_tools.mcp.connection import McpServerStatus
from qwen_tools.mcp.manager import McpManager
from qwen_tools.mcp.tool import UNSAFE_REPLAY_MESSAGE

pytestmark = pytest.mark.parametrize("kind", ["sse", "http"])


def entry(kind: str, port: int, **fields: Any) -> McpServerConfig:
    if kind == "sse":
        return McpServerConfig(url=f"http://127.0.0.1:{port}/sse", **fields)
    return McpServerConfig(http_url=f"http://127.0.0.1:{port}/mcp", **fields)


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port whose listener completes TCP handshakes and then says nothing."""
    with socket.create_server(("127.0.0.1", 0), backlog=16) as listener:
        yield int(listener.getsockname()[1])


@pytest.fixture
def closed_port() -> int:
    """A port nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_refused_and_silent_servers_cost_only_themselves(
    kind: str, config_for: Any, servers: Any, silent_port: int, closed_port: int
) -> None:
    config = config_for(
        {
            "good": servers.remote(kind),
            "silent": entry(kind, silent_port, extra={"discoveryTimeoutMs": 1000}),
            "refused": entry(kind, closed_port),
        }
    )
    async with McpManager(config) as manager:
        assert manager.statuses() == {
            "good": McpServerStatus.CONNECTED,
            "silent": McpServerStatus.DISCONNECTED,
            "refused": McpServerStatus.DISCONNECTED,
        }
        assert manager.last_error("silent") == (
            "MCP server 'silent' discovery timed out after 1000ms"
        )
        assert manager.last_error("refused") == "All connection attempts failed"
        assert {tool.server_name for tool in manager.tools()} == {"good"}
        echo = {tool.name: tool for tool in manager.tools()}["good__echo"]
        assert (await echo.build_and_execute({"text": "ok"})).return_display == "Echo: ok"


async def test_death_mid_call(kind: str, config_for: Any, servers: Any) -> None:
    async with McpManager(config_for({"r": servers.remote(kind)})) as manager:
        tools = {tool.name: tool for tool in manager.tools()}
        with pytest.raises(StructuredToolError) as died:
            await tools["r__die"].build_and_execute({})
        assert died.value.message == UNSAFE_REPLAY_MESSAGE  # not replayed: not known to be safe
        # the reconnect that followed found nobody: the server is down, and says why
        assert manager.status("r") is McpServerStatus.DISCONNECTED
        with pytest.raises(StructuredToolError) as after:
            await tools["r__echo"].build_and_execute({"text": "x"})
        assert after.value.message == (
            "MCP server 'r' is disconnected: All connection attempts failed"
        )
