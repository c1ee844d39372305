"""A bad ``mcpServers`` entry is that server's problem: kept with its error, reported by the manager."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from qwen_tools import Config, ToolRegistry
from qwen_tools.config.settings import SettingsError
from qwen_tools.config.tool_settings import MCP_MISSING_TRANSPORT, McpServerConfig
from qwen_tools.mcp.connection import McpServerStatus
from qwen_tools.mcp.manager import McpManager
from qwen_tools.mcp.registration import register_mcp_tools
from support.processes import MARK_VAR, process_guard

DEMO = Path(__file__).resolve().parents[1] / "mcp" / "servers" / "demo_server.py"


@pytest.fixture(autouse=True)
def process_mark(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    yield from process_guard(monkeypatch, timeout=5.0)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project with an empty Qwen home and system settings kept inside ``tmp_path``."""
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
    path = project / ".qwen" / "settings.json"
    path.write_text(json.dumps(settings))
    return Config.load(project)


def where(project: Path) -> Path:
    return project / ".qwen" / "settings.json"


@pytest.mark.parametrize(
    ("entry", "key", "fragment"),
    [
        ({"command": "x", "args": "a b"}, "mcpServers.foo.args", "expected a list of strings"),
        ({"command": "x", "args": ["a", 2]}, "mcpServers.foo.args", "expected a list of strings"),
        ({"command": 5}, "mcpServers.foo.command", "expected a string"),
        ({"url": "u", "timeout": "10"}, "mcpServers.foo.timeout", "expected an integer"),
        ({"url": "u", "timeout": -1}, "mcpServers.foo.timeout", "non-negative"),
        ({"url": "u", "env": {"A": []}}, "mcpServers.foo.env.A", "expected a string"),
        ({"url": "u", "trust": "yes"}, "mcpServers.foo.trust", "expected a boolean"),
        ({"httpUrl": "u", "includeTools": "a"}, "mcpServers.foo.includeTools", "list of strings"),
        ("npx server", "mcpServers.foo", "expected an object"),
    ],
)  # fmt: skip
def test_a_wrongly_typed_entry_keeps_its_error_and_the_rest_loads(
    project: Path, entry: Any, key: str, fragment: str
) -> None:
    config = load(
        project,
        {
            "tools": {"exclude": ["glob"]},
            "mcpServers": {"foo": entry, "good": {"command": "node", "args": ["s.js"]}},
        },
    )
    servers = config.settings.mcp_servers
    assert servers["good"] == McpServerConfig(command="node", args=("s.js",))
    assert config.settings.exclude == ("glob",)
    error = servers["foo"].error
    assert error is not None
    assert error.startswith(f'Invalid value for "{key}" in {where(project)}: ')
    assert fragment in error


def test_the_valid_fields_of_a_bad_entry_are_kept(project: Path) -> None:
    config = load(project, {"mcpServers": {"foo": {"command": "srv", "args": ["-v"], "trust": 1}}})
    foo = config.settings.mcp_servers["foo"]
    assert (foo.command, foo.args, foo.trust, foo.transport) == ("srv", ("-v",), False, "stdio")
    assert foo.error == (
        f'Invalid value for "mcpServers.foo.trust" in {where(project)}: '
        "expected a boolean (true or false), got 1"
    )


def test_an_entry_without_a_transport_gets_the_reference_message(project: Path) -> None:
    config = load(project, {"mcpServers": {"foo": {"args": ["x"], "tcp": "host:1"}}})
    foo = config.settings.mcp_servers["foo"]
    assert foo.transport is None
    assert foo.extra == {"tcp": "host:1"}
    assert (
        foo.error
        == MCP_MISSING_TRANSPORT
        == (
            "Invalid configuration: missing httpUrl (for Streamable HTTP), url (for SSE), "
            "and command (for stdio)."
        )
    )


def test_a_non_object_mcp_servers_section_is_still_a_settings_error(project: Path) -> None:
    with pytest.raises(SettingsError) as info:
        load(project, {"mcpServers": ["a"]})
    assert info.value.key == "mcpServers"


async def test_the_manager_reports_bad_entries_and_connects_the_rest(
    project: Path, process_mark: str, caplog: pytest.LogCaptureFixture
) -> None:
    good = {"command": sys.executable, "args": [str(DEMO)], "env": {MARK_VAR: process_mark}}
    config = load(
        project,
        {
            "mcpServers": {
                "nothing": {"description": "no transport"},
                "typo": {**good, "args": str(DEMO)},
                "demo": good,
            }
        },
    )
    registry = ToolRegistry()
    with caplog.at_level(logging.WARNING, logger="qwen_tools.mcp"):
        async with McpManager(config) as manager:
            registered = await register_mcp_tools(registry, manager)
            assert manager.statuses() == {
                "nothing": McpServerStatus.DISCONNECTED,
                "typo": McpServerStatus.DISCONNECTED,
                "demo": McpServerStatus.CONNECTED,
            }
            assert manager.last_error("nothing") == MCP_MISSING_TRANSPORT
            typo_error = manager.last_error("typo")
            assert typo_error is not None and '"mcpServers.typo.args"' in typo_error
            assert {t.server_name for t in registered} == {"demo"}
            assert registry.get_tool("demo__echo") is not None
            assert await manager.reconnect("typo") is False
            assert manager.last_error("typo") == typo_error
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert f"MCP server 'nothing': {MCP_MISSING_TRANSPORT}" in warnings
    assert sum("MCP server 'typo': " in w for w in warnings) == 1
