"""A project's ``.mcp.json``: its servers never run before ``mcp approve``; ``mcp reconnect``.

Attack first: the project's server is a real process that leaves a file behind when it starts,
so "not started" is checked on the disk, after ``mcp list``, ``tools``, ``call`` and
``mcp reconnect`` all had their chance to start it.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from qwen_tools.config.mcp_approvals import config_hash
from support.processes import MARK_VAR, process_guard

EXE = Path(sys.executable).with_name("qwen-tools")
DEMO = Path(__file__).resolve().parent / "servers" / "demo_server.py"
STARTER = (
    "import os, pathlib, sys; pathlib.Path(sys.argv[1]).write_text('started'); "
    "os.execv(sys.executable, [sys.executable, sys.argv[2], '--name', 'proj'])"
)


@pytest.fixture(autouse=True)
def process_mark(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    yield from process_guard(monkeypatch, timeout=5.0)


@dataclass
class Project:
    root: Path
    home: Path
    env: dict[str, str]
    started: Path

    def write_mcp_json(self, servers: dict[str, object]) -> None:
        (self.root / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))

    def proj_entry(self, *extra: str) -> dict[str, object]:
        return {
            "command": sys.executable,
            "args": ["-c", STARTER, str(self.started), str(DEMO), *extra],
            "trust": True,
        }

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(EXE), *args],
            cwd=self.root,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
        )

    @property
    def approvals(self) -> Path:
        return self.home / ".qwen" / "mcpApprovals.json"


@pytest.fixture
def project(tmp_path: Path, process_mark: str) -> Project:
    home = tmp_path / "home"
    root = tmp_path / "project"
    (home / ".qwen").mkdir(parents=True)
    root.mkdir()
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "QWEN_HOME": str(home / ".qwen"),
        "QWEN_CODE_SYSTEM_SETTINGS_PATH": str(tmp_path / "system.json"),
        "QWEN_CODE_SYSTEM_DEFAULTS_PATH": str(tmp_path / "defaults.json"),
        "LANG": "C.UTF-8",
        MARK_VAR: process_mark,
    }
    made = Project(root, home, env, tmp_path / "started")
    made.write_mcp_json({"proj": made.proj_entry()})
    return made


def test_a_project_server_runs_only_once_approved_and_again_after_an_edit(
    project: Project,
) -> None:
    listed = project.run("mcp", "list")
    assert listed.returncode == 0, listed.stderr
    assert "\u25cf proj: " in listed.stdout and " - Pending approval" in listed.stdout
    tools = project.run("tools", "--json")
    assert "proj__echo" not in tools.stdout
    call = project.run("call", "proj__echo", '{"text": "hi"}', "--json")
    assert call.returncode != 0
    assert json.loads(call.stdout)["responseText"].endswith(
        'Tool "proj__echo" is unavailable: the MCP server "proj" is awaiting approval, so its '
        "tools are not loaded. Approve it (run /mcp) to use this tool."
    )
    resource = project.run(
        "call", "read_mcp_resource", '{"server_name": "proj", "uri": "file:///r.md"}', "--json"
    )
    assert json.loads(resource.stdout)["responseText"].endswith(
        "MCP server 'proj' is pending approval."
    )
    reconnect = project.run("mcp", "reconnect", "proj")
    assert reconnect.returncode == 1
    assert reconnect.stderr.strip() == (
        'Failed to reconnect to server "proj": no connection attempt was made: '
        "server is pending approval (.mcp.json)"
    )
    assert not project.started.exists(), "a pending project server was started"

    approved = project.run("mcp", "approve", "proj")
    assert approved.returncode == 0, approved.stderr
    assert approved.stdout.splitlines() == [
        'Approved MCP server "proj" (bound to its current config).',
        "Approved servers connect in your next interactive session.",
    ]
    assert stat.S_IMODE(project.approvals.stat().st_mode) == 0o600
    stored = json.loads(project.approvals.read_text())
    record = stored[str(project.root.resolve())]["proj"]
    assert record == {"hash": config_hash(project.proj_entry()), "status": "approved"}

    call = project.run("call", "proj__echo", '{"text": "hi"}', "--json")
    assert call.returncode == 0, call.stderr
    assert json.loads(call.stdout)["responseText"] == "Echo: hi"
    assert project.started.exists()

    # an edited entry is a different server: pending again, not started
    project.started.unlink()
    project.write_mcp_json({"proj": project.proj_entry("--mode", "normal")})
    assert " - Pending approval" in project.run("mcp", "list").stdout
    assert project.run("call", "proj__echo", '{"text": "x"}').returncode != 0
    assert not project.started.exists()


def test_a_rejected_server_stays_off_and_yolo_runs_it_as_the_reference(project: Project) -> None:
    rejected = project.run("mcp", "reject", "proj")
    assert rejected.stdout.splitlines() == [
        'Rejected MCP server "proj" (bound to its current config).'
    ]
    assert " - Rejected" in project.run("mcp", "list").stdout
    assert project.run("call", "proj__echo", '{"text": "x"}').returncode != 0
    assert not project.started.exists()
    # Qwen Code 0.24.4 lifts the gate in yolo mode
    yolo = project.run("call", "proj__echo", '{"text": "y"}', "--approval-mode", "yolo", "--json")
    assert json.loads(yolo.stdout)["responseText"] == "Echo: y"
    assert project.started.exists()


def test_approve_messages_and_all(project: Project) -> None:
    project.write_mcp_json(
        {"proj": project.proj_entry(), "other": {"type": "http", "url": "http://127.0.0.1:9/mcp"}}
    )
    assert project.run("mcp", "approve").stdout.strip() == "Specify a server name or pass --all."
    missing = project.run("mcp", "approve", "nope").stdout.splitlines()
    assert missing[0] == 'Server "nope" not found. Available: proj, other'
    both = project.run("mcp", "approve", "--all").stdout.splitlines()
    assert both[:2] == [
        'Approved MCP server "proj" (bound to its current config).',
        'Approved MCP server "other" (bound to its current config).',
    ]
    # the Claude Code "type": "http" entry is a Streamable HTTP server (httpUrl)
    listed = project.run("mcp", "list", "--json")
    other = next(s for s in json.loads(listed.stdout) if s["name"] == "other")
    assert other["transport"] == "http" and other["target"] == "http://127.0.0.1:9/mcp"
    (project.root / ".mcp.json").unlink()
    assert project.run("mcp", "reject", "proj").stdout.strip() == (
        "No approval-requiring MCP servers found (looked in .mcp.json)."
    )


def test_a_broken_mcp_json_is_a_warning_not_a_failure(project: Project) -> None:
    (project.root / ".mcp.json").write_text("{not json")
    done = project.run("mcp", "list")
    assert done.returncode == 0
    assert "Warning: Failed to parse" in done.stderr
    (project.root / ".mcp.json").write_text('{"mcpServers": {"bad": 3}}')
    done = project.run("mcp", "list")
    assert 'server "bad" is not an object \u2014 skipped' in done.stderr


def test_settings_servers_win_over_mcp_json_and_are_not_gated(project: Project) -> None:
    user = project.home / ".qwen" / "settings.json"
    entry = {"command": sys.executable, "args": [str(DEMO), "--name", "proj"], "trust": True}
    user.write_text(json.dumps({"mcpServers": {"mine": entry}}))
    done = project.run("call", "mine__echo", '{"text": "u"}', "--json")
    assert json.loads(done.stdout)["responseText"] == "Echo: u"
    # the workspace file outranks .mcp.json: the same name from there runs without approval
    (project.root / ".qwen").mkdir()
    (project.root / ".qwen" / "settings.json").write_text(
        json.dumps({"mcpServers": {"proj": entry}})
    )
    done = project.run("call", "proj__echo", '{"text": "w"}', "--json")
    assert json.loads(done.stdout)["responseText"] == "Echo: w"
    assert not project.started.exists()


def test_reconnect_one_and_all(project: Project) -> None:
    user = project.home / ".qwen" / "settings.json"
    servers = {
        "demo": {"command": sys.executable, "args": [str(DEMO)], "trust": True},
        "broken": {"command": sys.executable, "args": [str(DEMO), "--mode", "crash"]},
    }
    user.write_text(json.dumps({"mcpServers": servers, "mcp": {"excluded": ["off"]}}))
    one = project.run("mcp", "reconnect", "demo")
    assert one.returncode == 0, one.stderr
    assert one.stdout.splitlines()[:2] == [
        'Reconnecting to server "demo"...',
        'Successfully reconnected to server "demo".',
    ]
    unknown = project.run("mcp", "reconnect", "ghost")
    assert unknown.returncode == 1
    assert unknown.stderr.strip() == 'Error: Server "ghost" not found in configuration.'
    assert project.run("mcp", "reconnect").returncode == 2
    every = project.run("mcp", "reconnect", "--all")
    assert every.returncode == 1
    lines = every.stdout.splitlines()
    assert lines[:2] == ["Reconnecting to all MCP servers...", ""]
    assert "\u2713 demo: Reconnected successfully" in lines
    assert "- proj: Skipped - server is pending approval (.mcp.json)" in lines
    failed = next(line for line in lines if line.startswith("\u2717 broken: Failed - "))
    assert "connection attempt finished without a live connection (status: disconnected)" in failed
    assert every.stderr.strip() == "Failed to reconnect 1 of 3 configured server(s)."
    assert not project.started.exists()


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_hash_is_the_one_qwen_code_computes() -> None:
    """Qwen Code's ``hashMcpServerConfig`` (transcribed) run by node on the same entries."""
    entries = [
        {"command": "npx", "args": ["-y", "srv"], "env": {"B": "2", "A": "1"}, "scope": "x"},
        {"httpUrl": "http://h/\u00e9", "headers": {"z": "1", "a": "\u2028"}, "timeout": 1.0},
        {"url": "u", "description": "cosmetic", "trust": True, "includeTools": ["b", "a"]},
    ]
    script = """
const crypto = require('crypto');
const NON = new Set(['scope', 'extensionName', 'description']);
function h(config) {
  const behavioral = {};
  for (const [k, v] of Object.entries(config)) if (!NON.has(k)) behavioral[k] = v;
  const stable = JSON.stringify(behavioral, (_k, value) => {
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const sorted = {};
      for (const k of Object.keys(value).sort()) sorted[k] = value[k];
      return sorted;
    }
    return value;
  });
  return crypto.createHash('sha256').update(stable).digest('hex');
}
const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify(input.map(h)));
"""
    done = subprocess.run(
        ["node", "-e", script], input=json.dumps(entries), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [config_hash(e) for e in entries]
