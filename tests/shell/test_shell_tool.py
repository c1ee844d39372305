"""``run_shell_command`` against Qwen Code 0.24.4's observed outputs (spec §9), real processes only."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from qwen_tools import Config, ToolCallRequest, ToolRegistry, run_tool_call
from qwen_tools.config.tool_settings import ApprovalMode
from qwen_tools.contract.abort import AbortSignal
from qwen_tools.contract.confirmation import ExecConfirmationDetails
from qwen_tools.contract.errors import ToolErrorType
from qwen_tools.contract.kinds import Kind
from qwen_tools.execution.tool_call import CompletedToolCall
from qwen_tools.tools.shell.tool import ShellTool
from support.workspaces import QWEN_DIFF, prepare_qwen_diff_workspace


def block(
    command: str,
    output: str,
    exit_code: Any = 0,
    *,
    directory: str = "(root)",
    signal: Any = "(none)",
    error: str = "(none)",
) -> str:
    return (
        f"Command: {command}\nDirectory: {directory}\nOutput: {output}\nError: {error}\n"
        f"Exit Code: {exit_code}\nSignal: {signal}\nProcess Group PGID: (none)"
    )


async def call(config: Config, args: dict[str, Any]) -> CompletedToolCall:
    registry = ToolRegistry([ShellTool(config)])
    return await run_tool_call(registry, config, ToolCallRequest("run_shell_command", args))


async def model_sees(config: Config, args: dict[str, Any]) -> str:
    return (await call(config, args)).response_text


# -- observed outputs -----------------------------------------------------------------------------


async def test_sample_script_calls_match_the_recording(ws: Path, home: Path) -> None:
    prepare_qwen_diff_workspace(ws)
    config = Config(ws, home_dir=home, approval_mode=ApprovalMode.YOLO)
    recorded = json.loads((QWEN_DIFF / "results.json").read_text())["calls"]
    shell_calls = [c for c in recorded if c["name"] == "run_shell_command"]
    assert [c["id"] for c in shell_calls] == [
        "call_qd_26_0",
        "call_qd_27_0",
        "call_qd_28_0",
        "call_qd_33_0",
    ]
    for recorded_call in shell_calls:
        args = json.loads(json.dumps(recorded_call["arguments"]).replace("{{WS}}", str(ws)))
        expected = recorded_call["result"].replace("{{WS}}", str(ws))
        assert await model_sees(config, args) == expected


async def test_echo(config: Config) -> None:
    done = await call(
        config, {"command": "echo hello from shell", "description": "echo a greeting"}
    )
    assert done.status == "success"
    assert done.response_text == block("echo hello from shell", "hello from shell")


async def test_ls_missing_dir_exits_2(config: Config) -> None:
    done = await call(config, {"command": "ls /no/such/dir"})
    expected = block(
        "ls /no/such/dir", "ls: cannot access '/no/such/dir': No such file or directory", 2
    )
    assert done.response_text == expected
    assert done.status == "error" and done.error_type is ToolErrorType.SHELL_EXECUTE_ERROR


async def test_out_and_err_exit_3(config: Config) -> None:
    command = "echo out; echo err 1>&2; exit 3"
    assert await model_sees(config, {"command": command}) == block(command, "out\nerr", 3)


async def test_directory(config: Config, ws: Path) -> None:
    (ws / "src" / "util").mkdir(parents=True)
    (ws / "src" / "app.py").write_text("")
    src = str(ws / "src")
    text = await model_sees(config, {"command": "pwd && ls", "directory": src})
    assert text == block("pwd && ls", f"{src}\napp.py\nutil", directory=src)


@pytest.mark.parametrize(
    ("command", "is_error"),
    [
        ("grep zzz ws.txt", False),
        ("cat /nonexist 2>/dev/null | grep x", False),
        ("test -f /nonexist", False),
        ("[ -f /nonexist ]", False),
        ("false", True),
        ("exit 1", True),
        ("grep zzz ws.txt && true", True),
        ("grep zzz ws.txt; false", True),
    ],
)
async def test_exit_one(config: Config, ws: Path, command: str, is_error: bool) -> None:
    (ws / "ws.txt").write_text("hello\n")
    done = await call(config, {"command": command})
    assert done.response_text == block(command, "(empty)", 1)
    assert (done.status == "error") is is_error


async def test_kill_self_reports_the_signal(config: Config) -> None:
    done = await call(config, {"command": "kill -9 $$"})
    assert done.response_text == block("kill -9 $$", "(empty)", "(none)", signal=9)
    assert done.error_type is ToolErrorType.SHELL_EXECUTE_ERROR


async def test_substitution_runs_in_yolo(config: Config) -> None:
    assert await model_sees(config, {"command": "echo $(echo sub)"}) == block(
        "echo $(echo sub)", "sub"
    )


async def test_environment_and_stdin(config: Config) -> None:
    command = (
        "echo $QWEN_CODE $TERM $PAGER; readlink /proc/self/fd/0; stat -L -c %A /proc/self/fd/0"
    )
    done = await call(config, {"command": command})
    assert done.response_text == block(command, "1 xterm-256color cat\n/dev/null\ncrw-rw-rw-")
    command = "ls -l /proc/self/fd/0 | cut -c1-10"  # opened read-only, as Node does
    assert await model_sees(config, {"command": command}) == block(command, "lr-x------")


async def test_missing_directory_is_a_spawn_error(config: Config, ws: Path) -> None:
    done = await call(config, {"command": "echo hi", "directory": str(ws / "nope")})
    assert done.response_text == "spawn bash ENOENT"
    assert done.error_type is ToolErrorType.SHELL_EXECUTE_ERROR
    assert done.result is not None
    assert done.result.llm_content == block(
        "echo hi", "(empty)", 1, directory=str(ws / "nope"), error="spawn bash ENOENT"
    )
    assert done.display == "Command failed: spawn bash ENOENT"


async def test_long_run_hint(config: Config) -> None:
    command = "sleep 1.5; echo done"
    text = await model_sees(config, {"command": command, "timeout": 2000})
    assert text == block(command, "done") + (
        "\n\nNote: this foreground command ran for 2s. Next time you run a similar long-running "
        "process (build watchers, dev servers, soak tests, polling loops), pass "
        "`is_background: true` so the agent isn't blocked while the command runs. (This is "
        "forward-looking guidance for FUTURE invocations \u2014 do NOT re-run the command that "
        "just completed; for stateful operations like deploys, migrations, or git push, that "
        "would cause double side effects.) The output of background runs stays inspectable via "
        "/tasks (text, any mode) or the on-disk output file; in interactive mode the Background "
        "tasks dialog also has a per-entry detail view + live updates."
    )


async def test_timeout_through_the_pipeline(config: Config) -> None:
    script = "import sys,time; print('start'); sys.stdout.flush(); time.sleep(4)"
    done = await call(config, {"command": f'{sys.executable} -c "{script}"', "timeout": 1000})
    assert done.response_text == (
        "Command timed out after 1000ms before it could complete. "
        "Below is the output before it timed out:\nstart"
    )
    assert done.error_type is ToolErrorType.EXECUTION_TIMEOUT


# -- validation -------------------------------------------------------------------------------------

SLEEP_5 = (
    "Blocked: standalone sleep 5. Run blocking commands in the background with is_background: "
    "true. For streaming events (watching logs, polling APIs), use the Monitor tool. If you "
    "genuinely need a standalone delay (rate limiting, deliberate pacing), add a trailing "
    "comment like `# intentional-sleep: wait for MCP rate limit reset` (up to 10 minutes)."
)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"command": "   "}, "Command cannot be empty."),
        ({"command": "ls", "directory": "sub"}, "Directory must be an absolute path."),
        ({"command": "ls", "timeout": 0}, "params/timeout must be >= 1"),
        ({"command": "ls", "timeout": 1.5}, "params/timeout must be integer"),
        ({"command": "ls", "timeout": 700000}, "params/timeout must be <= 600000"),
        ({"command": "sleep 5"}, SLEEP_5),
        ({"command": "sleep 5", "directory": "rel"}, "Directory must be an absolute path."),
        (
            {"command": "pkill node"},
            "Blocked: this command may terminate the running qwen-code process because it "
            "targets all node/qwen-code processes. Use task_stop for managed background shells, "
            "or kill a specific PID instead.",
        ),
        ({}, "params must have required property 'command'"),
    ],
)
async def test_validation_messages(config: Config, args: dict[str, Any], message: str) -> None:
    assert await model_sees(config, args) == message


async def test_directory_outside_the_workspace(config: Config, tmp_path: Path) -> None:
    outside = str(tmp_path)
    assert await model_sees(config, {"command": "ls", "directory": outside}) == (
        f"Directory '{outside}' is not within any of the registered workspace directories."
    )


async def test_user_skills_directory_is_refused(ws: Path, home: Path) -> None:
    skills = home / "skills" / "mine"
    skills.mkdir(parents=True)
    config = Config(ws, home_dir=home, include_directories=[home])
    assert ShellTool(config).validate_tool_params({"command": "ls", "directory": str(skills)}) == (
        "Explicitly running shell commands from within the user skills directory is not "
        "allowed. Please use absolute paths for command parameter instead."
    )


async def test_string_timeout_is_coerced(config: Config) -> None:
    assert await model_sees(config, {"command": "echo ok", "timeout": "5000"}) == block(
        "echo ok", "ok"
    )


# -- identity, description, confirmation ------------------------------------------------------------


def test_identity_and_schema(config: Config) -> None:
    tool = ShellTool(config)
    assert (tool.name, tool.display_name, tool.kind) == ("run_shell_command", "Shell", Kind.EXECUTE)
    assert tool.is_output_markdown is False and tool.can_update_output is True
    assert tool.max_output_chars == 30000
    schema = tool.schema.parameters_json_schema
    shapes = json.loads((QWEN_DIFF / "tool-shapes.json").read_text())
    (reference,) = [t for t in shapes["tools"] if t["name"] == "run_shell_command"]
    for name, shape in reference["parameters"]["properties"].items():
        assert {k: schema["properties"][name][k] for k in shape} == shape
    assert schema["required"] == ["command"]
    assert schema["properties"]["timeout"] == {
        **schema["properties"]["timeout"],
        "type": "integer",
        "minimum": 1,
        "maximum": 600000,
    }
    assert schema["properties"]["description"]["type"] == "string"


def test_get_description(config: Config, ws: Path) -> None:
    tool = ShellTool(config)
    describe = lambda args: tool.build(args).get_description()  # noqa: E731
    assert describe({"command": "ls"}) == "ls"
    assert describe(
        {"command": "ls", "directory": str(ws), "timeout": 5, "description": "a\nb"}
    ) == (f"ls [in {ws}] [timeout: 5ms] (a b)")
    assert describe({"command": "npm start", "is_background": True, "timeout": 5}) == (
        "npm start [background]"
    )


async def test_confirmation(config: Config) -> None:
    tool = ShellTool(config)
    never = AbortSignal.never()
    assert (
        await tool.build({"command": "ls -la && git status"}).should_confirm_execute(never) is False
    )
    details = await tool.build({"command": "ls && rm -rf build"}).should_confirm_execute(never)
    assert isinstance(details, ExecConfirmationDetails)
    assert details.title == "Confirm Shell Command" and details.command == "ls && rm -rf build"
    assert details.root_commands == ("rm",) and details.warnings == ()
    sub = await tool.build({"command": "echo $(whoami)"}).should_confirm_execute(never)
    assert isinstance(sub, ExecConfirmationDetails)
    assert sub.warnings == (
        "Contains command substitution ($(...), backticks, <(...), >(...), or ${parameter@P}).",
    )


async def test_remembered_roots_never_cover_substitution(ws: Path, home: Path) -> None:
    config = Config(ws, home_dir=home, approval_mode=ApprovalMode.DEFAULT)
    config.session.always_allowed_shell_roots.update({"echo", "whoami", "touch"})
    touched = await call(config, {"command": "touch made.txt"})
    assert touched.status == "success" and (ws / "made.txt").exists()
    refused = await call(config, {"command": "echo $(whoami)"})
    assert refused.status == "error" and refused.error_type is ToolErrorType.EXECUTION_DENIED


def test_concurrency_safety(config: Config) -> None:
    tool = ShellTool(config)
    assert tool.is_concurrency_safe({"command": "ls -la"}) is True
    assert tool.is_concurrency_safe({"command": "rm -rf x"}) is False


def test_threshold_disabled_by_setting(ws: Path, home: Path) -> None:
    from qwen_tools.config.tool_settings import ToolSettings

    config = Config(ws, home_dir=home, settings=ToolSettings(truncate_tool_output_threshold=0))
    assert ShellTool(config).max_output_chars == float("inf")
    assert os.path.isdir(ws)
