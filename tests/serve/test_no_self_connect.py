"""``qwen-tools serve`` never connects to itself, and never outlives its client.

The configuration is the one ``docs/mcp-server.md`` recommends for Qwen Code, read from the docs
themselves: a workspace whose ``.qwen/settings.json`` has the ``qwen-tools`` entry. ``serve`` reads
those same settings; before the guard it started itself again and again. Processes are counted by
the test mark every process of the test inherits.
"""

from __future__ import annotations

import json
import os
import re
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from qwen_tools import Config, McpServerConfig, ToolSettings
from qwen_tools.serve.self_guard import (
    CHAIN_VAR,
    SAME_SERVER,
    STARTS_SERVE,
    guard_servers,
    starts_qwen_tools_serve,
)
from support.processes import marked_pids

from .conftest import EXE, start_http

DOCS = Path(__file__).parents[2] / "docs" / "mcp-server.md"


def docs_qwen_code_settings(ws: Path) -> dict[str, Any]:
    """The ``.qwen/settings.json`` the docs give for Qwen Code, for workspace ``ws``."""
    section = DOCS.read_text().split("### Qwen Code", 1)[1]
    block = re.search(r"```json\n(.*?)```", section, re.S)
    assert block is not None
    settings: dict[str, Any] = json.loads(block.group(1))
    entry = settings["mcpServers"]["qwen-tools"]
    assert entry["command"] == "qwen-tools" and entry["args"][:2] == ["serve", "--cwd"]
    entry["args"][2] = str(ws)
    return settings


@pytest.fixture
def starts(tmp_path: Path) -> Path:
    """The log of every ``qwen-tools`` started through the PATH (one line each)."""
    return tmp_path / "starts.log"


@pytest.fixture
def docs_env(ws: Path, env: dict[str, str], tmp_path: Path, starts: Path) -> dict[str, str]:
    """``ws`` configured as the docs say, with ``qwen-tools`` on the PATH as the docs assume.

    That ``qwen-tools`` logs each start to ``starts`` before running the real one.
    """
    (ws / ".qwen").mkdir()
    (ws / ".qwen" / "settings.json").write_text(json.dumps(docs_qwen_code_settings(ws)))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "qwen-tools"
    wrapper.write_text(f'#!/bin/sh\necho "$*" >> "{starts}"\nexec "{EXE}" "$@"\n')
    wrapper.chmod(0o755)
    return {**env, "PATH": f"{bin_dir}{os.pathsep}{env['PATH']}"}


def started(starts: Path) -> list[str]:
    return starts.read_text().splitlines() if starts.exists() else []


def client(ws: Path, env: dict[str, str]) -> Client:
    """An MCP client starting ``qwen-tools serve`` as Qwen Code would (through the PATH)."""
    params = StdioServerParameters(
        command="qwen-tools", args=["serve", "--cwd", str(ws)], env=env, cwd=str(ws)
    )
    return Client(params)


async def test_serve_with_the_docs_configuration_starts_no_other_server(
    ws: Path, docs_env: dict[str, str], starts: Path
) -> None:
    with anyio.fail_after(60):
        async with client(ws, docs_env) as mcp:
            names = {tool.name for tool in (await mcp.list_tools()).tools}
    assert "read_many_files" in names
    assert started(starts) == [f"serve --cwd {ws}"]


def test_a_client_of_the_docs_configuration_gets_one_server(
    ws: Path, docs_env: dict[str, str], process_mark: str, starts: Path
) -> None:
    """``call`` as Qwen Code would: it starts the entry's server, which starts nothing more."""
    (ws / "a.txt").write_text("alpha\n")
    done = subprocess.run(
        [
            str(EXE),
            "call",
            "qwen-tools__read_many_files",
            json.dumps({"paths": ["a.txt"]}),
            "--approval-mode",
            "yolo",
        ],
        env=docs_env,
        cwd=ws,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "alpha" in done.stdout, done.stderr
    assert started(starts) == [f"serve --cwd {ws}"]
    assert marked_pids(process_mark) == []


async def test_a_loop_through_a_script_stops_at_the_second_server(
    ws: Path, docs_env: dict[str, str], starts: Path
) -> None:
    """The entry hides ``qwen-tools serve`` in a script: the chain in the environment sees it."""
    script = ws / "start-tools.sh"
    script.write_text(f'#!/bin/sh\nexec qwen-tools serve --cwd "{ws}"\n')
    script.chmod(0o755)
    settings = {"mcpServers": {"tools": {"command": str(script)}}}
    (ws / ".qwen" / "settings.json").write_text(json.dumps(settings))
    with anyio.fail_after(60):
        async with client(ws, docs_env) as mcp:
            names = {tool.name for tool in (await mcp.list_tools()).tools}
    assert "tools__read_file" in names  # the second server's tools, through the first
    assert started(starts) == [f"serve --cwd {ws}"] * 2


async def test_an_http_client_session_does_not_start_serve_either(
    ws: Path, docs_env: dict[str, str], starts: Path, tmp_path: Path
) -> None:
    """A client's own session (HTTP) shares the server's guarded settings: a call naming a tool
    of the docs' entry does not start ``qwen-tools serve`` from that session."""
    (ws / "a.txt").write_text("alpha\n")
    server = start_http(ws, docs_env, tmp_path / "server.log", "--approval-mode", "yolo")
    try:
        with anyio.fail_after(60):
            async with Client(server.url, mode="legacy") as mcp:
                result = await mcp.call_tool("qwen-tools__read_many_files", {"paths": ["a.txt"]})
        assert result.is_error
        assert started(starts) == []
    finally:
        assert server.stop() == 0, server.stderr()


def test_serve_ends_when_its_client_dies(ws: Path, env: dict[str, str], process_mark: str) -> None:
    """The client is SIGKILLed while the server's stdin stays open (the test holds it)."""
    read_end, write_end = os.pipe()
    launcher = (
        "import subprocess, sys, time\n"
        f"p = subprocess.Popen([{str(EXE)!r}, 'serve', '--cwd', {str(ws)!r}], stdin={read_end})\n"
        "print(p.pid, flush=True)\n"
        "time.sleep(3600)\n"
    )
    parent = subprocess.Popen(
        [sys.executable, "-c", launcher],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
        pass_fds=(read_end,),
    )
    os.close(read_end)
    try:
        assert parent.stdout is not None
        server = int(parent.stdout.readline())
        initialize = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"},
            },
        }
        os.write(write_end, (json.dumps(initialize) + "\n").encode())
        with selectors.DefaultSelector() as selector:  # the server shares the launcher's stdout
            selector.register(parent.stdout, selectors.EVENT_READ)
            assert selector.select(60), "the server never answered"
        assert '"id":1' in parent.stdout.readline()
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        for _ in range(3000):  # bounded: fails only if the server never exits
            if server not in marked_pids(process_mark):
                break
            time.sleep(0.01)
        assert server not in marked_pids(process_mark)
    finally:
        os.close(write_end)
        if parent.poll() is None:
            parent.kill()
            parent.wait()


# -- the guard itself --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "args"),
    [
        ("qwen-tools", ["serve", "--cwd", "/w"]),
        ("/home/me/.venv/bin/qwen-tools", ["serve"]),
        ("python3", ["-m", "qwen_tools", "serve"]),
        ("uvx", ["qwen-tools", "serve", "--transport", "stdio"]),
        ("env", ["X=1", "qwen-tools", "serve"]),
        ("sh", ["-c", "cd /w && exec qwen-tools serve --cwd /w"]),
    ],
)
def test_entries_that_start_serve(command: str, args: list[str]) -> None:
    assert starts_qwen_tools_serve(McpServerConfig(command=command, args=tuple(args)))


@pytest.mark.parametrize(
    ("command", "args"),
    [
        ("qwen-tools", ["call", "read_file", "{}"]),
        ("npx", ["-y", "@modelcontextprotocol/server-filesystem", "/w"]),
        ("python3", ["server.py", "serve"]),
    ],
)
def test_entries_that_do_not(command: str, args: list[str]) -> None:
    assert not starts_qwen_tools_serve(McpServerConfig(command=command, args=tuple(args)))


def test_guard_reasons_and_chain(tmp_path: Path) -> None:
    servers = {
        "self": McpServerConfig(command="qwen-tools", args=("serve",)),
        "other": McpServerConfig(command="npx", args=("server",)),
        "http": McpServerConfig(http_url="http://localhost:8123/mcp"),
    }
    config = Config(tmp_path, settings=ToolSettings(mcp_servers=servers))
    environ: dict[str, str] = {}
    reasons = guard_servers(config, http_address=("127.0.0.1", 8123), environ=environ)
    assert reasons["self"] == STARTS_SERVE and set(reasons) == {"self", "http"}
    assert config.settings.mcp_servers["self"].error == STARTS_SERVE
    assert config.settings.mcp_servers["other"].error is None
    (me,) = environ[CHAIN_VAR].split()
    again = Config(tmp_path, settings=ToolSettings(mcp_servers=servers))
    assert guard_servers(again, environ=environ)["other"] == SAME_SERVER
    assert environ[CHAIN_VAR].split() == [me, me]
