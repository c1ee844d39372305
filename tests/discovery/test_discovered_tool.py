"""``DiscoveredTool``: real call commands, the scheduler, and the ``qwen-tools`` CLI end to end."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from qwen_tools import (
    AbortController,
    ApprovalMode,
    Kind,
    ToolCallRequest,
    ToolErrorType,
    ToolRegistry,
    run_tool_call,
)
from qwen_tools.contract.confirmation import (
    InfoConfirmationDetails,
    ToolCallConfirmationDetails,
    ToolConfirmationOutcome,
    ToolConfirmationPayload,
)
from qwen_tools.contract.errors import ToolParamsError
from qwen_tools.contract.results import ToolResult
from qwen_tools.discovery.discovered_tool import DiscoveredTool
from qwen_tools.execution.scheduler import ToolScheduler
from qwen_tools.session.default_registry import build_registry_async
from support.discovery import make_config, py, script
from support.processes import MARK_VAR, group_members, wait_group_gone

TOOLS_PY = """
import json, os, subprocess, sys, time
name = sys.argv[-1]
if sys.argv[1:] == ["--discover"]:
    print(json.dumps([{"function_declarations": [
        {"name": "echo", "description": "Echo the params."},
        {"name": "fail"},
        {"name": "double", "parameters": {"type": "OBJECT",
            "properties": {"n": {"type": "INTEGER"}}, "required": ["n"]}},
    ]}]))
    sys.exit(0)
data = sys.stdin.read()
with open("calls.log", "a") as log:
    log.write(json.dumps({"argv": sys.argv[1:], "stdin": data}) + "\\n")
if name == "echo":
    sys.stdout.write(data + "\\n")
elif name == "fail":
    sys.stderr.write("boom\\n")
    sys.exit(3)
elif name == "sigkill":
    sys.stdout.write("partial")
    sys.stdout.flush()
    os.kill(os.getpid(), 9)
elif name == "hang":
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    open("pids", "w").write(f"{os.getpid()} {child.pid}")
    time.sleep(60)
elif name == "background":
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
    open("pids", "w").write(f"{os.getpid()} {child.pid}")
    print("started")
elif name == "big":
    sys.stdout.write("y" * (11 * 1024 * 1024))
elif name == "warn":
    sys.stderr.write("warning\\n")
    sys.stdout.write("ok\\n")
elif name == "double":
    print(json.loads(data)["n"] * 2)
"""

FAIL_BLOCK = "Stdout: (empty)\nStderr: boom\n\nError: (none)\nExit Code: 3\nSignal: (none)"
INT_SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}


@pytest.fixture
def tools_py(ws: Path) -> Path:
    return script(ws, "tools.py", TOOLS_PY)


def make_tool(
    ws: Path, tools_py: Path, name: str, schema: dict[str, Any] | None = None, **kw: Any
) -> DiscoveredTool:
    config = make_config(ws, discovery=py(tools_py, "--discover"), call=py(tools_py, "--call"))
    return DiscoveredTool(config, name, f"The {name} tool.", schema or {"type": "object"}, **kw)


async def call(tool: DiscoveredTool, params: dict[str, Any] | None = None) -> ToolResult:
    return await tool.build_and_execute(params or {})


def calls_log(ws: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (ws / "calls.log").read_text().splitlines()]


def assert_group_gone(ws: Path) -> None:
    leader, child = (int(p) for p in (ws / "pids").read_text().split())
    assert wait_group_gone(leader)
    assert group_members(leader) == []
    assert child not in group_members(leader)


# -- the tool ----------------------------------------------------------------------------------


def test_identity_and_description(ws: Path, tools_py: Path) -> None:
    tool = make_tool(ws, tools_py, "echo")
    assert (tool.name, tool.display_name, tool.kind) == ("echo", "echo", Kind.OTHER)
    assert tool.is_output_markdown is False and tool.can_update_output is False
    discover, call_command = py(tools_py, "--discover"), py(tools_py, "--call")
    assert tool.description.startswith(
        f"The echo tool.\n\nThis tool was found by running `{discover}` in the project root.\n"
        f"Calling it runs `{call_command} echo` in the project root"
    )
    for label in ("Stdout:", "Stderr:", "Error:", "Exit Code:", "Signal:"):
        assert f"\n{label} " in tool.description
    assert tool.description.endswith("or `(none)`.\n")


async def test_argv_stdin_and_verbatim_stdout(ws: Path, tools_py: Path) -> None:
    params = {"text": "héllo", "n": 2.0, "big": "x" * 300_000}
    result = await call(make_tool(ws, tools_py, "echo"), params)
    sent = json.dumps({"text": "héllo", "n": 2, "big": "x" * 300_000}, ensure_ascii=False)
    sent = sent.replace(", ", ",").replace(": ", ":")
    assert result.error is None
    assert result.llm_content == result.return_display == sent + "\n"
    (logged,) = calls_log(ws)
    assert logged == {"argv": ["--call", "echo"], "stdin": sent}


async def test_failure_block_is_exact(ws: Path, tools_py: Path) -> None:
    result = await call(make_tool(ws, tools_py, "fail"))
    assert result.llm_content == result.return_display == FAIL_BLOCK
    assert result.error is not None
    assert result.error.message == FAIL_BLOCK
    assert result.error.type is ToolErrorType.DISCOVERED_TOOL_EXECUTION_ERROR


async def test_a_signal_is_named(ws: Path, tools_py: Path) -> None:
    result = await call(make_tool(ws, tools_py, "sigkill"))
    assert result.llm_content == (
        "Stdout: partial\nStderr: (empty)\nError: (none)\nExit Code: (none)\nSignal: SIGKILL"
    )


async def test_timeout_kills_the_group(ws: Path, tools_py: Path) -> None:
    result = await call(make_tool(ws, tools_py, "hang", timeout_s=1.0))
    assert result.llm_content == (
        "Stdout: (empty)\nStderr: (empty)\n"
        "Error: Tool call command timed out after 1 s; its process group was killed.\n"
        "Exit Code: (none)\nSignal: SIGTERM"
    )
    assert_group_gone(ws)


async def test_cancellation_kills_the_group(ws: Path, tools_py: Path) -> None:
    tool = make_tool(ws, tools_py, "hang")
    controller = AbortController()
    task = asyncio.ensure_future(tool.build_and_execute({}, controller.signal))
    for _ in range(200):
        if (ws / "pids").exists() and len((ws / "pids").read_text().split()) == 2:
            break
        await asyncio.sleep(0.025)
    controller.abort()
    result = await asyncio.wait_for(task, 5)
    assert isinstance(result.llm_content, str)
    assert "Error: The call was cancelled; its process group was killed.\n" in result.llm_content
    assert_group_gone(ws)


async def test_a_background_child_does_not_hold_the_result(ws: Path, tools_py: Path) -> None:
    # Bounded far below the child's 3600 s: fails only if the result waits for it.
    result = await asyncio.wait_for(call(make_tool(ws, tools_py, "background")), 120)
    assert result.llm_content == "started\n"
    child = int((ws / "pids").read_text().split()[1])
    os.kill(child, signal.SIGKILL)


async def test_output_cap(ws: Path, tools_py: Path) -> None:
    result = await call(make_tool(ws, tools_py, "big"))
    text = result.llm_content
    assert isinstance(text, str)
    assert text.startswith("Stdout: yyy")
    assert len(text) < 10 * 1024 * 1024 + 1000
    assert "\nError: Tool call command output exceeded size limit of 10485760 bytes.\n" in text


async def test_stderr_with_exit_zero(ws: Path, tools_py: Path) -> None:
    result = await call(make_tool(ws, tools_py, "warn"))
    assert result.error is None
    assert result.llm_content == "ok\nStderr: warning\n"
    strict = make_tool(ws, tools_py, "warn")
    strict.stderr_is_failure = True
    failed = await call(strict)
    assert failed.llm_content == (
        "Stdout: ok\n\nStderr: warning\n\nError: (none)\nExit Code: 0\nSignal: (none)"
    )


async def test_params_are_validated_and_coerced(ws: Path, tools_py: Path) -> None:
    tool = make_tool(ws, tools_py, "double", INT_SCHEMA)
    assert (await call(tool, {"n": "5"})).llm_content == "10\n"
    assert calls_log(ws)[0]["stdin"] == '{"n":5}'
    with pytest.raises(ToolParamsError, match="must be integer"):
        tool.build({"n": "five"})


async def test_commands_that_cannot_run(ws: Path, tools_py: Path) -> None:
    tool = make_tool(ws, tools_py, "echo")
    tool.config.settings = type(tool.config.settings)(call_command="/nonexistent/tool --call")
    assert (await call(tool)).llm_content == (
        "Stdout: (empty)\nStderr: (empty)\nError: Error: spawn /nonexistent/tool ENOENT\n"
        "Exit Code: -2\nSignal: (none)"
    )
    tool.config.settings = type(tool.config.settings)()
    assert (await call(tool)).llm_content == (
        "Stdout: (empty)\nStderr: (empty)\n"
        "Error: No tool call command is configured (tools.callCommand).\n"
        "Exit Code: (none)\nSignal: (none)"
    )


# -- approval and the scheduler ----------------------------------------------------------------


async def test_confirmation_default_allowed_yolo_and_always(ws: Path, tools_py: Path) -> None:
    call_command = py(tools_py, "--call")
    asked: list[ToolCallConfirmationDetails] = []

    async def always(
        request: ToolCallRequest, details: ToolCallConfirmationDetails
    ) -> tuple[ToolConfirmationOutcome, ToolConfirmationPayload | None]:
        asked.append(details)
        return ToolConfirmationOutcome.PROCEED_ALWAYS, None

    def setup(**kw: Any) -> tuple[ToolRegistry, Any]:
        config = make_config(ws, call=call_command, **kw)
        return ToolRegistry([DiscoveredTool(config, "echo", "", {"type": "object"})]), config

    request = ToolCallRequest("echo", {"x": 1})
    registry, config = setup()
    denied = await run_tool_call(registry, config, request)
    assert denied.error_type is ToolErrorType.EXECUTION_DENIED
    for kw in (
        {"allowed": ["echo"]},
        {"mode": ApprovalMode.YOLO},
        {"mode": ApprovalMode.AUTO_EDIT},
    ):
        assert (await run_tool_call(*setup(**kw), request)).response_text == '{"x":1}\n'
    registry, config = setup()
    for _ in range(2):
        done = await run_tool_call(registry, config, request, confirm=always)
        assert done.response_text == '{"x":1}\n'
    assert len(asked) == 1
    assert isinstance(asked[0], InfoConfirmationDetails)
    assert (asked[0].title, asked[0].prompt) == ("Confirm echo", '{"x":1}')


async def test_end_to_end_through_the_scheduler(ws: Path, tools_py: Path) -> None:
    config = make_config(
        ws,
        discovery=py(tools_py, "--discover"),
        call=py(tools_py, "--call"),
        mode=ApprovalMode.YOLO,
    )
    registry = await build_registry_async(config)
    results = await ToolScheduler(registry, config).schedule(
        [
            ToolCallRequest("double", {"n": "21"}, call_id="c1"),
            ToolCallRequest("fail", {}, call_id="c2"),
            ToolCallRequest("double", {"n": "x"}, call_id="c3"),
            ToolCallRequest("echo", {}, call_id="c4"),
        ]
    )
    assert [r.status for r in results] == ["success", "error", "error", "success"]
    assert results[0].response_text == "42\n"
    assert results[1].response_text == FAIL_BLOCK
    assert results[2].error_type is ToolErrorType.INVALID_TOOL_PARAMS
    assert results[3].response_text == "{}\n"
    assert results[1].response.error == FAIL_BLOCK


# -- the CLI -----------------------------------------------------------------------------------

EXE = Path(sys.executable).with_name("qwen-tools")


def cli(args: list[str], ws: Path, settings: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    (ws / ".qwen").mkdir(exist_ok=True)
    (ws / ".qwen" / "settings.json").write_text(json.dumps(settings))
    home = ws.parent / "home"
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "QWEN_HOME": str(home / ".qwen"),
        "QWEN_CODE_SYSTEM_SETTINGS_PATH": str(ws.parent / "system-settings.json"),
        "QWEN_CODE_SYSTEM_DEFAULTS_PATH": str(ws.parent / "system-defaults.json"),
        "LANG": "C.UTF-8",
        "PYBIN": sys.executable,
        MARK_VAR: os.environ[MARK_VAR],
    }
    return subprocess.run(
        [str(EXE), *args], env=env, cwd=ws, input="", capture_output=True, text=True, timeout=60
    )


def test_cli_lists_and_calls_discovered_tools(ws: Path, tools_py: Path) -> None:
    tools = {"discoveryCommand": "$PYBIN tools.py --discover", "callCommand": "$PYBIN tools.py"}
    listed = cli(["tools", "--json"], ws, {"tools": tools})
    assert listed.returncode == 0, listed.stderr
    rows = {row["name"]: row for row in json.loads(listed.stdout)}
    assert rows["echo"]["kind"] == "other"
    assert rows["echo"]["description"].startswith("Echo the params.\n\nThis tool was found by")
    assert {"double", "fail", "read_file"} <= rows.keys()

    refused = cli(["call", "echo", '{"a": 1}', "--json"], ws, {"tools": tools})
    assert refused.returncode == 4
    allowed = {"tools": {**tools, "allowed": ["echo", "double", "fail"]}}
    echoed = cli(["call", "echo", '{"a": 1}', "--json"], ws, allowed)
    assert json.loads(echoed.stdout)["responseText"] == '{"a":1}\n'
    doubled = cli(["call", "double", '{"n": "4"}', "--json"], ws, allowed)
    assert json.loads(doubled.stdout)["llmContent"] == "8\n"
    failed = cli(["call", "fail", "{}", "--json"], ws, allowed)
    assert failed.returncode == 1
    assert json.loads(failed.stdout)["error"] == {
        "message": FAIL_BLOCK,
        "type": "discovered_tool_execution_error",
    }


def test_cli_survives_a_broken_discovery_command(ws: Path) -> None:
    broken = {"tools": {"discoveryCommand": "/nonexistent/discover"}}
    listed = cli(["tools", "--json"], ws, broken)
    assert listed.returncode == 0
    assert "read_file" in {row["name"] for row in json.loads(listed.stdout)}
    assert (
        'Tool discovery command "/nonexistent/discover" failed: spawn /nonexistent/discover ENOENT'
    ) in listed.stderr
