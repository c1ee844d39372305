"""``qwen-tools serve`` offers discovered tools and the tools of the MCP servers it connects to."""

from __future__ import annotations

import json
import shlex
import sys
import textwrap
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from support.processes import MARK_VAR

from .conftest import EXE, start_http

DEMO = Path(__file__).resolve().parents[1] / "mcp" / "servers" / "demo_server.py"

DISCOVER = """
import json
print(json.dumps([{"name": "shout", "description": "Shout the text.",
                   "parameters": {"type": "object", "properties": {"text": {"type": "string"}},
                                  "required": ["text"]}}]))
"""
CALL = """
import json, sys
args = json.load(sys.stdin)
print(sys.argv[1] + ": " + args["text"].upper())
"""


def text_of(result: types.CallToolResult) -> str:
    (block,) = result.content
    assert isinstance(block, types.TextContent)
    return block.text


@pytest.fixture
def upstream(ws: Path, env: dict[str, str]) -> Path:
    """Workspace settings: a discovery command, a trusted and an untrusted demo server, a
    crashing server and an entry without a transport."""
    for name, body in (("discover.py", DISCOVER), ("call.py", CALL)):
        (ws / name).write_text(textwrap.dedent(body).lstrip())
    demo = {"command": sys.executable, "args": [str(DEMO)], "env": {MARK_VAR: env[MARK_VAR]}}
    settings = {
        "tools": {
            "discoveryCommand": shlex.join([sys.executable, str(ws / "discover.py")]),
            "callCommand": shlex.join([sys.executable, str(ws / "call.py")]),
            "allowed": ["shout"],
        },
        "mcpServers": {
            "demo": {**demo, "trust": True, "includeTools": ["echo", "add"]},
            "guarded": {**demo, "includeTools": ["echo"]},
            "broken": {**demo, "args": [str(DEMO), "--mode", "crash"]},
            "nothing": {"description": "no transport"},
        },
    }
    (ws / ".qwen").mkdir()
    (ws / ".qwen" / "settings.json").write_text(json.dumps(settings))
    return ws


def stdio_client(ws: Path, env: dict[str, str]) -> Client:
    params = StdioServerParameters(
        command=str(EXE), args=["serve", "--cwd", str(ws)], env=env, cwd=str(ws)
    )
    return Client(params)


async def test_stdio_serves_builtin_discovered_and_proxied_tools(
    upstream: Path, env: dict[str, str]
) -> None:
    with anyio.fail_after(90):
        async with stdio_client(upstream, env) as mcp:
            listed = {t.name: t for t in (await mcp.list_tools()).tools}
            echoed = await mcp.call_tool("demo__echo", {"text": "hi"})
            legacy = await mcp.call_tool("mcp__demo__add", {"a": 2, "b": 3})
            shouted = await mcp.call_tool("shout", {"text": "hey"})
            refused = await mcp.call_tool("guarded__echo", {"text": "no"})
            read = await mcp.call_tool("read_file", {"file_path": str(upstream / "notes.txt")})
    assert {"read_file", "glob", "shout", "demo__echo", "demo__add", "guarded__echo"} <= set(listed)
    assert not any(name.startswith(("broken__", "nothing__")) for name in listed)
    assert "demo__image" not in listed
    assert listed["demo__echo"].description == "Echo the text back."
    assert listed["demo__echo"].title == "echo (demo MCP Server)"
    add = listed["demo__add"].annotations
    assert add is not None and add.read_only_hint is True
    assert not echoed.is_error and text_of(echoed) == "Echo: hi"
    assert not legacy.is_error and text_of(legacy).splitlines()[-1] == "5"
    assert not shouted.is_error and text_of(shouted) == "shout: HEY\n"
    # An untrusted upstream server's tool needs approval, which an MCP client cannot give here.
    assert refused.is_error and '"guarded__echo"' in text_of(refused)
    assert not read.is_error and text_of(read) == "line 1\nline 2\nline 3\n"


async def test_http_serves_proxied_tools_until_stopped(
    upstream: Path, env: dict[str, str], tmp_path: Path
) -> None:
    server = start_http(upstream, env, tmp_path / "server.log")
    try:
        with anyio.fail_after(90):
            async with Client(server.url) as first:
                assert text_of(await first.call_tool("demo__echo", {"text": "one"})) == "Echo: one"
            async with Client(server.url) as second:
                names = {t.name for t in (await second.list_tools()).tools}
                again = await second.call_tool("demo__echo", {"text": "two"})
        assert {"shout", "demo__echo", "guarded__echo"} <= names
        assert text_of(again) == "Echo: two"
    finally:
        assert server.stop() == 0
    log = server.stderr()
    assert "MCP server 'broken'" in log
    assert (
        "MCP server 'nothing': Invalid configuration: missing httpUrl (for Streamable HTTP), "
        "url (for SSE), and command (for stdio)."
    ) in log
