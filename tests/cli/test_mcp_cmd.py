"""``qwen-tools mcp add|remove|list``: the settings files they write, and real servers listed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from support.processes import MARK_VAR, process_guard

EXE = Path(sys.executable).with_name("qwen-tools")
DEMO = Path(__file__).resolve().parents[1] / "mcp" / "servers" / "demo_server.py"
PY = sys.executable


@pytest.fixture(autouse=True)
def process_mark(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    yield from process_guard(monkeypatch, timeout=5.0)


@dataclass
class Machine:
    """A temp home (``$QWEN_HOME``) and project, and the CLI run inside them."""

    home: Path
    project: Path
    env: dict[str, str]

    @property
    def user_file(self) -> Path:
        return self.home / ".qwen" / "settings.json"

    @property
    def project_file(self) -> Path:
        return self.project / ".qwen" / "settings.json"

    def run(self, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(EXE), *args],
            cwd=cwd or self.project,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
        )

    def ok(self, *args: str) -> str:
        done = self.run(*args)
        assert done.returncode == 0, done.stderr
        return done.stdout


@pytest.fixture
def machine(tmp_path: Path, process_mark: str) -> Machine:
    home = tmp_path / "home"
    project = tmp_path / "project"
    (home / ".qwen").mkdir(parents=True)
    project.mkdir()
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "QWEN_HOME": str(home / ".qwen"),
        "QWEN_CODE_SYSTEM_SETTINGS_PATH": str(tmp_path / "system.json"),
        "QWEN_CODE_SYSTEM_DEFAULTS_PATH": str(tmp_path / "defaults.json"),
        "LANG": "C.UTF-8",
        MARK_VAR: process_mark,
    }
    return Machine(home, project, env)


def servers_in(path: Path) -> Any:
    return json.loads(path.read_text())["mcpServers"]


# -- add ----------------------------------------------------------------------------------


def test_add_writes_the_user_settings_by_default(machine: Machine) -> None:
    out = machine.ok("mcp", "add", "demo", PY, str(DEMO), "--name", "x", "-e", "A=1")
    assert out == 'MCP server "demo" added to user settings. (stdio)\n'
    assert machine.user_file.read_text() == (
        "{\n"
        '  "mcpServers": {\n'
        '    "demo": {\n'
        f'      "command": {json.dumps(PY)},\n'
        '      "args": [\n'
        f"        {json.dumps(str(DEMO))},\n"
        '        "--name",\n'
        '        "x"\n'
        "      ],\n"
        '      "env": {\n'
        '        "A": "1"\n'
        "      }\n"
        "    }\n"
        "  }\n"
        "}\n"
    )
    assert not machine.project_file.exists()


def test_add_remote_servers_to_the_project(machine: Machine) -> None:
    out = machine.ok(
        "mcp", "add", "--scope", "project", "web", "https://example.com/mcp",
        "-H", "Authorization: Bearer a:b", "-H", "broken", "--timeout", "5000",
        "--description", "the web", "--include-tools", "a,b", "--include-tools", "c",
    )  # fmt: skip
    assert out == 'MCP server "web" added to project settings. (http)\n'
    out = machine.ok(
        "mcp", "add", "-s", "project", "-t", "sse", "events", "http://h/sse", "--trust"
    )
    assert out == 'MCP server "events" added to project settings. (sse)\n'
    assert servers_in(machine.project_file) == {
        "web": {
            "httpUrl": "https://example.com/mcp",
            "headers": {"Authorization": "Bearer a:b"},
            "timeout": 5000,
            "description": "the web",
            "includeTools": ["a", "b", "c"],
        },
        "events": {"url": "http://h/sse", "trust": True},
    }


def test_options_after_the_command_are_ours_unless_after_double_dash(machine: Machine) -> None:
    machine.ok("mcp", "add", "a", "npx", "-y", "pkg", "--trust", "--port", "8080")
    machine.ok("mcp", "add", "b", "npx", "--", "-y", "--trust", "--exclude-tools", "x")
    machine.ok("mcp", "add", "c", "--exclude-tools", "x", "node")
    assert servers_in(machine.user_file) == {
        "a": {"command": "npx", "args": ["-y", "pkg", "--port", "8080"], "trust": True},
        "b": {"command": "npx", "args": ["-y", "--trust", "--exclude-tools", "x"]},
        "c": {"command": "node", "args": [], "excludeTools": ["x"]},
    }


def test_adding_again_updates_and_keeps_comments_and_other_keys(machine: Machine) -> None:
    machine.project_file.parent.mkdir()
    original = (
        "// project settings\n"
        "{\n"
        '  "tools": {"exclude": ["glob"]}, // keep me\n'
        '  "mcpServers": {\n'
        "    /* the first one */\n"
        '    "demo": {"command": "old"},\n'
        '    "other": {"url": "http://o/sse"} // other\n'
        "  }\n"
        "}\n"
    )
    machine.project_file.write_text(original)
    out = machine.ok("mcp", "add", "-s", "project", "demo", "new-cmd")
    assert out == (
        'MCP server "demo" is already configured within project settings.\n'
        'MCP server "demo" updated in project settings.\n'
    )
    machine.ok("mcp", "add", "-s", "project", "third", "http://t/mcp")
    assert machine.project_file.read_text() == (
        "// project settings\n"
        "{\n"
        '  "tools": {"exclude": ["glob"]}, // keep me\n'
        '  "mcpServers": {\n'
        "    /* the first one */\n"
        '    "demo": {\n'
        '      "command": "new-cmd",\n'
        '      "args": []\n'
        "    },\n"
        '    "other": {"url": "http://o/sse"}, // other\n'
        '    "third": {\n'
        '      "httpUrl": "http://t/mcp"\n'
        "    }\n"
        "  }\n"
        "}\n"
    )


def test_project_scope_in_the_home_directory_is_refused(machine: Machine) -> None:
    done = machine.run("mcp", "add", "-s", "project", "demo", "cmd", cwd=machine.home)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == "Error: Please use --scope user to edit settings in the home directory.\n"
    assert not machine.user_file.exists()


def test_a_malformed_settings_file_is_left_alone(machine: Machine) -> None:
    machine.user_file.write_text('{"mcpServers": {,}')
    for args in (("add", "demo", "cmd"), ("remove", "demo")):
        done = machine.run("mcp", *args)
        assert done.returncode == 3 and done.stdout == ""
        assert f"Malformed JSON in {machine.user_file}" in done.stderr
    assert machine.user_file.read_text() == '{"mcpServers": {,}'
    machine.project_file.parent.mkdir()
    machine.project_file.write_bytes(b'{"a": "\xff"}')
    done = machine.run("mcp", "add", "-s", "project", "demo", "cmd")
    assert done.returncode == 3 and "not UTF-8" in done.stderr
    assert machine.project_file.read_bytes() == b'{"a": "\xff"}'


def test_usage_errors(machine: Machine) -> None:
    for args in (["mcp"], ["mcp", "add", "only-a-name"], ["mcp", "add", "-t", "ws", "a", "b"]):
        done = machine.run(*args)
        assert done.returncode == 2 and done.stdout == "", args
    done = machine.run("mcp", "add", "a", "cmd", "--timeout", "soon")
    assert done.returncode == 2 and "invalid number of milliseconds" in done.stderr


# -- remove ---------------------------------------------------------------------------------


def test_remove_keeps_the_rest_and_reports_a_missing_server(machine: Machine) -> None:
    machine.user_file.write_text(
        "{\n"
        "  // servers\n"
        '  "mcpServers": {\n'
        '    "a": {"command": "x"}, // first\n'
        '    "b": {"command": "y"}\n'
        "  },\n"
        '  "ui": {"theme": "dark"}\n'
        "}\n"
    )
    assert machine.ok("mcp", "remove", "a") == 'Server "a" removed from user settings.\n'
    assert machine.ok("mcp", "remove", "a") == 'Server "a" not found in user settings.\n'
    assert machine.ok("mcp", "remove", "-s", "project", "b") == (
        'Server "b" not found in project settings.\n'
    )
    assert not machine.project_file.exists()
    assert machine.ok("mcp", "remove", "b") == 'Server "b" removed from user settings.\n'
    assert machine.user_file.read_text() == (
        '{\n  // servers\n  "mcpServers": {},\n  "ui": {"theme": "dark"}\n}\n'
    )


# -- list -----------------------------------------------------------------------------------


def stdio(machine: Machine, *extra: str, **fields: Any) -> dict[str, Any]:
    return {"command": PY, "args": [str(DEMO), *extra], **fields}


def test_list_without_servers(machine: Machine) -> None:
    assert machine.ok("mcp", "list") == "No MCP servers configured.\n"
    assert json.loads(machine.ok("mcp", "list", "--json")) == []


def test_list_connects_every_server_and_shows_status_tools_and_reasons(machine: Machine) -> None:
    machine.project_file.parent.mkdir()
    servers = {
        "demo": stdio(machine, includeTools=["echo", "add"]),
        "broken": stdio(machine, "--mode", "crash"),
        "slow": stdio(machine, "--mode", "hang", discoveryTimeoutMs=500),
        "nothing": {"description": "no transport"},
        "typo": {"command": PY, "args": str(DEMO)},
        "off": stdio(machine),
    }
    settings = {"mcpServers": servers, "mcp": {"excluded": ["off"]}}
    machine.project_file.write_text(json.dumps(settings))
    done = machine.run("mcp", "list")
    assert done.returncode == 0, done.stderr
    demo = f"{PY} {DEMO}"
    lines = done.stdout.splitlines()
    assert lines[:4] == [
        "Configured MCP servers:",
        "",
        f"\u2713 demo: {demo} (stdio) - Connected",
        "    Tools: echo, add",
    ]
    assert lines[4] == f"\u2717 broken: {demo} --mode crash (stdio) - Disconnected"
    assert lines[5].startswith("    Reason: ")
    assert "fatal: the test server crashed on purpose" in lines[5]
    assert lines[6:] == [
        f"\u2717 slow: {demo} --mode hang (stdio) - Disconnected (timed out after 500ms)",
        "\u2717 nothing:  - Disconnected",
        "    Reason: Invalid configuration: missing httpUrl (for Streamable HTTP), url (for SSE), "
        "and command (for stdio).",
        f"\u2717 typo: {PY}  (stdio) - Disconnected",
        f'    Reason: Invalid value for "mcpServers.typo.args" in {machine.project_file}: '
        f"expected a list of strings, got {json.dumps(str(DEMO))}",
        f"\u25cf off: {demo} (stdio) - Disabled",
        "    Reason: Excluded by mcp.excluded.",
    ]
    assert "Warning" not in done.stderr and "MCP server" not in done.stderr


def test_list_json(machine: Machine) -> None:
    servers = {"demo": stdio(machine, excludeTools=["image"]), "nothing": {"trust": True}}
    machine.user_file.write_text(json.dumps({"mcpServers": servers}))
    listed = {s["name"]: s for s in json.loads(machine.ok("mcp", "list", "--json"))}
    demo = listed["demo"]
    assert (demo["status"], demo["error"], demo["transport"]) == ("connected", None, "stdio")
    assert demo["target"] == f"{PY} {DEMO}"
    tools = {t["serverToolName"]: t for t in demo["tools"]}
    assert "image" not in tools
    assert tools["echo"] == {
        "name": "demo__echo",
        "serverToolName": "echo",
        "description": "Echo the text back.",
    }
    assert listed["nothing"] == {
        "name": "nothing",
        "transport": None,
        "target": "",
        "status": "disconnected",
        "error": "Invalid configuration: missing httpUrl (for Streamable HTTP), url (for SSE), "
        "and command (for stdio).",
        "tools": [],
    }


def test_list_after_add_and_remove(machine: Machine) -> None:
    machine.ok("mcp", "add", "-s", "project", "demo", PY, str(DEMO), "--trust")
    assert f"\u2713 demo: {PY} {DEMO} (stdio) - Connected" in machine.ok("mcp", "list")
    call = machine.run("call", "demo__echo", '{"text": "hi"}', "--json")
    assert json.loads(call.stdout)["responseText"] == "Echo: hi"
    machine.ok("mcp", "remove", "-s", "project", "demo")
    assert machine.ok("mcp", "list") == "No MCP servers configured.\n"


def test_a_settings_path_the_os_refuses_is_reported(machine: Machine) -> None:
    machine.project_file.mkdir(parents=True)  # a directory where the file should be
    for args in (("add", "-s", "project", "demo", "cmd"), ("remove", "-s", "project", "demo")):
        done = machine.run("mcp", *args)
        assert done.returncode == 3 and done.stdout == ""
        assert f"qwen-tools: cannot update {machine.project_file}: " in done.stderr
    assert machine.project_file.is_dir()
