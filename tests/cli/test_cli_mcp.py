"""The CLI with an MCP server configured in ``.qwen/settings.json``: listed, declared and called."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

EXE = Path(sys.executable).with_name("qwen-tools")
DEMO = Path(__file__).resolve().parents[1] / "mcp" / "servers" / "demo_server.py"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / ".qwen").mkdir(parents=True)
    servers = {
        "demo": {"command": sys.executable, "args": [str(DEMO)], "trust": True},
        "broken": {"command": sys.executable, "args": [str(DEMO), "--mode", "crash"]},
    }
    (root / ".qwen" / "settings.json").write_text(json.dumps({"mcpServers": servers}))
    return root


def run(args: list[str], ws: Path) -> subprocess.CompletedProcess[str]:
    home = ws.parent / "home"
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "QWEN_HOME": str(home / ".qwen"),
        "QWEN_CODE_SYSTEM_SETTINGS_PATH": str(ws.parent / "system.json"),
        "QWEN_CODE_SYSTEM_DEFAULTS_PATH": str(ws.parent / "defaults.json"),
    }
    return subprocess.run(
        [str(EXE), *args], cwd=ws, env=env, capture_output=True, text=True, timeout=120
    )


def test_mcp_tools_are_listed_and_a_broken_server_costs_only_its_own(ws: Path) -> None:
    done = run(["tools", "--json"], ws)
    assert done.returncode == 0, done.stderr
    tools = {t["name"]: t for t in json.loads(done.stdout)}
    assert tools["demo__echo"]["server"] == "demo"
    assert tools["demo__echo"]["displayName"] == "echo (demo MCP Server)"
    assert "read_file" in tools
    assert not any(name.startswith("broken__") for name in tools)
    schema = run(["schema", "--format", "openai"], ws)
    assert schema.returncode == 0 and "demo__add" in schema.stdout


def test_calling_an_mcp_tool_from_the_cli(ws: Path) -> None:
    done = run(["call", "demo__echo", '{"text": "hi"}', "--json"], ws)
    assert done.returncode == 0, done.stderr
    obj = json.loads(done.stdout)
    assert obj["tool"] == "demo__echo"
    assert obj["responseText"] == "Echo: hi"
    legacy = run(["call", "mcp__demo__echo", '{"text": "old name"}', "--json"], ws)
    assert json.loads(legacy.stdout)["responseText"] == "Echo: old name"
