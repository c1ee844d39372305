"""A read-only command that names a path outside the workspace needs approval like any other.

``cat /etc/passwd | head -c 20`` counted as read-only and ran without asking in ``default`` mode,
in the CLI and in ``serve``. Each command below is run through the real pipeline with nobody to
ask: it must be refused (not run), while the same kind of command on workspace paths still runs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from qwen_tools import (
    ApprovalMode,
    Config,
    ToolCallRequest,
    ToolSettings,
    build_registry,
    run_tool_call,
)
from support.cli_env import isolated_env
from support.processes import MARK_VAR

EXE = Path(sys.executable).with_name("qwen-tools")
REFUSED = (
    'Qwen Code requires permission to use "run_shell_command", but that permission was declined '
    "(non-interactive mode cannot prompt for confirmation)."
)


@pytest.fixture
def tree(ws: Path, tmp_path: Path) -> Path:
    (ws / "notes.txt").write_text("inside\n")
    (ws / "src").mkdir()
    (ws / "src" / "app.py").write_text("print('hi')\n")
    outside = Path(os.path.realpath(tmp_path)) / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("TOP-SECRET\n")
    (ws / "link.txt").symlink_to(outside / "secret.txt")
    (ws / "dirlink").symlink_to(outside)
    return outside


OUTSIDE = [
    "cat /etc/passwd | head -c 20",
    "head ~/.ssh/id_rsa",
    "ls ../..",
    "ls ..",
    "grep x /etc/passwd",
    "cat < /etc/passwd",
    "wc -l 0</etc/passwd",
    "cat /etc/pass*",
    "cat /etc/pass?d",
    "cat {/etc/passwd,notes.txt}",
    "cat .*/outside/secret.txt",
    "cd .. && ls",
    "cd /etc; cat passwd",
    "cd src && cat ../../outside/secret.txt",
    "cd",
    "bash -c 'cat /etc/passwd'",
    "grep -f/etc/passwd notes.txt",
    "grep --file=/etc/passwd notes.txt",
    "cat $HOME/.bashrc",
    'cat "$HOME/.bashrc"',
    "cat ~root/.bashrc",
    "cat ~-/.bashrc",
    "cat ~+/../outside/secret.txt",
    "find / -maxdepth 0",
    "cat /proc/self/environ",
    "stat /etc/shadow",
    "tail -n1 link.txt",
    "cat dirlink/secret.txt",
    "cat dirlink/*",
    "git diff --no-index /etc/hostname notes.txt",
    "sort /etc/passwd",
    "du -s ../../outside",
]


@pytest.mark.parametrize("command", OUTSIDE)
async def test_outside_paths_need_approval(ws: Path, home: Path, tree: Path, command: str) -> None:
    config = Config(ws, home_dir=home, approval_mode=ApprovalMode.DEFAULT, settings=ToolSettings())
    request = ToolCallRequest("run_shell_command", {"command": command})
    done = await run_tool_call(build_registry(config), config, request)
    assert done.status == "error", done.response_text
    assert done.response_text == REFUSED
    assert "TOP-SECRET" not in done.response_text


INSIDE = [
    "cat notes.txt | head -c 5",
    "ls",
    "ls -la src",
    "grep -r inside .",
    "cat < notes.txt",
    "cat src/*.py",
    "cd src && ls && cat app.py",
    "wc -l notes.txt src/app.py",
    "cat {ws}/notes.txt",
    "find . -name '*.py'",
    "echo /etc/passwd",
    "cat /dev/null",
    "grep -e inside notes.txt 2>&1",
]


@pytest.mark.parametrize("command", INSIDE)
async def test_inside_paths_still_run(ws: Path, home: Path, tree: Path, command: str) -> None:
    config = Config(ws, home_dir=home, approval_mode=ApprovalMode.DEFAULT, settings=ToolSettings())
    request = ToolCallRequest("run_shell_command", {"command": command.replace("{ws}", str(ws))})
    done = await run_tool_call(build_registry(config), config, request)
    assert done.status == "success", done.response_text


async def test_directory_param_is_the_base(ws: Path, home: Path, tree: Path) -> None:
    config = Config(ws, home_dir=home, approval_mode=ApprovalMode.DEFAULT, settings=ToolSettings())
    registry = build_registry(config)
    inside = ToolCallRequest(
        "run_shell_command", {"command": "cat ../notes.txt", "directory": str(ws / "src")}
    )
    assert (await run_tool_call(registry, config, inside)).status == "success"
    outside = ToolCallRequest(
        "run_shell_command",
        {"command": "cat ../../outside/secret.txt", "directory": str(ws / "src")},
    )
    done = await run_tool_call(registry, config, outside)
    assert done.status == "error" and done.response_text == REFUSED


def test_cli_call_refuses(ws: Path, tree: Path, tmp_path: Path, process_mark: str) -> None:
    env = isolated_env(Path(os.path.realpath(tmp_path)), **{MARK_VAR: process_mark})
    args = json.dumps({"command": "cat /etc/passwd | head -c 20"})
    done = subprocess.run(
        [str(EXE), "call", "run_shell_command", args, "--json"],
        env=env,
        cwd=ws,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    result = json.loads(done.stdout)
    assert done.returncode == 4, done.stderr
    assert result["responseText"] == REFUSED
    assert "root:" not in done.stdout


async def test_serve_refuses(ws: Path, tree: Path, tmp_path: Path, process_mark: str) -> None:
    env = isolated_env(Path(os.path.realpath(tmp_path)), **{MARK_VAR: process_mark})
    params = StdioServerParameters(
        command=str(EXE), args=["serve", "--cwd", str(ws)], env=env, cwd=str(ws)
    )
    with anyio.fail_after(60):
        async with Client(params) as mcp:
            outside = await mcp.call_tool(
                "run_shell_command", {"command": "cat /etc/passwd | head -c 20"}
            )
            inside = await mcp.call_tool("run_shell_command", {"command": "cat notes.txt"})
    (block,) = outside.content
    assert isinstance(block, types.TextContent)
    assert outside.is_error and block.text == REFUSED
    assert not inside.is_error
