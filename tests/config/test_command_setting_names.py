"""The seeds' setting names for command discovery and the MCP server command are honoured.

The seeds name ``toolDiscoveryCommand``, ``toolCallCommand`` and ``mcpServerCommand`` — flat (Qwen
Code's v1 keys) or inside ``tools``/``mcp`` (``tools.toolDiscoveryCommand``,
``mcp.mcpServerCommand``). Each spelling must reach the same setting as the v2 key; and
``mcp.serverCommand`` becomes a stdio MCP server named ``mcp``, as in Qwen Code 0.24.4.
"""

from __future__ import annotations

import json
import logging
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from qwen_tools import Config, ToolRegistry
from qwen_tools.config.tool_settings import McpServerConfig
from qwen_tools.mcp.connection import McpServerStatus
from qwen_tools.mcp.manager import McpManager
from qwen_tools.mcp.registration import register_mcp_tools
from support.processes import process_guard

DEMO = Path(__file__).resolve().parents[1] / "mcp" / "servers" / "demo_server.py"


@pytest.fixture(autouse=True)
def process_mark(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    yield from process_guard(monkeypatch, timeout=5.0)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / ".qwen").mkdir(parents=True)
    root = tmp_path / "project"
    (root / ".qwen").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("QWEN_HOME", str(home / ".qwen"))
    monkeypatch.setenv("QWEN_CODE_SYSTEM_SETTINGS_PATH", str(tmp_path / "system.json"))
    monkeypatch.setenv("QWEN_CODE_SYSTEM_DEFAULTS_PATH", str(tmp_path / "defaults.json"))
    return root


def load(project: Path, settings: dict[str, Any]) -> Config:
    (project / ".qwen" / "settings.json").write_text(json.dumps(settings))
    return Config.load(project)


SPELLINGS = [
    {"toolDiscoveryCommand": "d", "toolCallCommand": "c", "mcpServerCommand": "m"},
    {"tools": {"toolDiscoveryCommand": "d", "toolCallCommand": "c"}, "mcp": {"mcpServerCommand": "m"}},
    {"tools": {"discoveryCommand": "d", "callCommand": "c"}, "mcp": {"serverCommand": "m"}},
    {"tools": {"exclude": ["glob"]}, "toolDiscoveryCommand": "d", "toolCallCommand": "c",
     "mcpServerCommand": "m"},
]  # fmt: skip


@pytest.mark.parametrize("settings", SPELLINGS)
def test_every_spelling_reaches_the_setting(project: Path, settings: dict[str, Any]) -> None:
    config = load(project, settings)
    assert config.settings.discovery_command == "d"
    assert config.settings.call_command == "c"
    assert config.settings.mcp_server_command == "m"


def test_the_v2_key_wins_over_the_seed_spelling(project: Path) -> None:
    config = load(
        project,
        {
            "tools": {"discoveryCommand": "v2", "toolDiscoveryCommand": "seed"},
            "mcp": {"serverCommand": "v2", "mcpServerCommand": "seed"},
        },
    )
    assert config.settings.discovery_command == "v2"
    assert config.settings.mcp_server_command == "v2"


def test_legacy_keys_in_a_v2_file_are_reported_not_silent(
    project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="qwen_tools"):
        config = load(project, {"$version": 2, "toolDiscoveryCommand": "d"})
    assert config.settings.discovery_command is None  # as Qwen Code: a v2 file is not migrated
    messages = [r.getMessage() for r in caplog.records]
    assert any(
        "Legacy setting 'toolDiscoveryCommand' will be ignored" in m
        and "'tools.discoveryCommand'" in m
        for m in messages
    ), messages


def test_server_command_becomes_the_mcp_server(project: Path) -> None:
    config = load(
        project,
        {
            "mcpServers": {"mcp": {"url": "http://example.invalid/sse"}, "other": {"command": "x"}},
            "mcp": {"serverCommand": "node 'my server.js' --flag \"a b\""},
        },
    )
    servers = config.settings.mcp_servers
    assert servers["mcp"] == McpServerConfig(command="node", args=("my server.js", "--flag", "a b"))
    assert servers["other"].command == "x"


@pytest.mark.parametrize("command", ["srv | tee log", "srv && other", "srv > out", "srv; x"])
def test_a_server_command_with_operators_is_that_servers_error(project: Path, command: str) -> None:
    config = load(project, {"mcpServerCommand": command})
    entry = config.settings.mcp_servers["mcp"]
    assert entry.error == f"failed to parse mcpServerCommand: {command}"


async def test_the_server_command_is_started_and_its_tools_registered(project: Path) -> None:
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(DEMO))}"
    config = load(project, {"mcpServerCommand": command})
    registry = ToolRegistry()
    async with McpManager(config) as manager:
        registered = await register_mcp_tools(registry, manager)
        assert manager.statuses() == {"mcp": McpServerStatus.CONNECTED}
    assert registered and {t.server_name for t in registered} == {"mcp"}
    assert registry.get_tool("mcp__echo") is not None
