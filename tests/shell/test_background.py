"""Background shells: the start block, output and status files, stopping, ``task_stop``."""

from __future__ import annotations

import asyncio
import json
import os
import re
import time
from pathlib import Path
from typing import Any

from qwen_tools import Config
from qwen_tools.contract.errors import ToolErrorType
from qwen_tools.shell.background import (
    MAX_RETAINED_TERMINAL_SHELLS,
    BackgroundShell,
    BackgroundShellRegistry,
    status_path_for,
)
from qwen_tools.shell.execution import shell_argv, shell_env
from qwen_tools.tools.shell.tool import ShellTool
from qwen_tools.tools.task_stop import TaskStopTool
from support.processes import marked_pids, wait_group_gone

START = re.compile(
    r"Background shell started\.\n"
    r"id: (?P<id>bg_[0-9a-f]{8})\n"
    r"pid: (?P<pid>\d+)\n"
    r"output file: (?P<out>/\S+/shell-bg_[0-9a-f]{8}\.output)\n"
    r"status file: (?P<status>/\S+/shell-bg_[0-9a-f]{8}\.status)\n"
    r"To check whether this process is still running, Read the status file \(status: "
    r"running\|completed\|failed\|cancelled\)\. Do NOT infer liveness from the output file: "
    r"programs often block-buffer stdout when not attached to a TTY, so an empty output file is "
    r"normal while the process is alive \(for live output, re-run with e\.g\. `python -u` or "
    r"`stdbuf -oL`\)\.\n"
    r"To inspect: Read the output file directly to view the captured output\.\Z"
)


async def wait_settled(entry: BackgroundShell, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while entry.status == "running":
        assert time.monotonic() < deadline, "background shell did not finish"
        await asyncio.sleep(0.02)


def status_of(entry: BackgroundShell) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(Path(entry.status_path).read_text())
    return data


async def start(
    registry: BackgroundShellRegistry, command: str, cwd: Path, out: Path
) -> BackgroundShell:
    return await registry.start(
        command, argv=shell_argv(command), cwd=str(cwd), env=shell_env("s"), output_dir=out
    )


async def test_start_block_and_files(config: Config) -> None:
    tool = ShellTool(config)
    command = r"echo bgout; echo bgerr >&2; printf '\033[31mred\033[0m'"
    result = await tool.build_and_execute({"command": command, "is_background": True})
    match = START.match(str(result.llm_content))
    assert match, result.llm_content
    shell_id, pid = match["id"], int(match["pid"])
    expected_dir = config.get_project_temp_dir() / "background-shells" / config.session_id
    assert match["out"] == str(expected_dir / f"shell-{shell_id}.output")
    assert match["status"] == status_path_for(match["out"])
    assert result.return_display == f"Background shell {shell_id} started (pid {pid})."
    entry = config.session.background_shells.get(shell_id)
    assert entry is not None and entry.pid == pid
    await wait_settled(entry)
    # Streamed as it came (stderr may land anywhere), ANSI stripped.
    text = Path(match["out"]).read_text()
    assert sorted(text.replace("red", "\nred\n").split()) == ["bgerr", "bgout", "red"]
    assert "\x1b" not in text
    status = status_of(entry)
    assert list(status) == [
        "id",
        "status",
        "command",
        "cwd",
        "startTime",
        "updatedAt",
        "pid",
        "endTime",
        "exitCode",
    ]
    assert status["status"] == "completed" and status["exitCode"] == 0
    assert status["command"] == command and status["cwd"] == str(config.target_dir)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", status["startTime"])
    assert os.stat(entry.status_path).st_mode & 0o777 == 0o600


async def test_trailing_ampersand_is_rejected_and_stripped(config: Config) -> None:
    tool = ShellTool(config)
    message = (
        'Background shell commands must not end with a bare "&". Remove the trailing "&" and '
        "rely on is_background: true instead."
    )
    assert (
        tool.validate_tool_params({"command": "node server.js &", "is_background": True}) == message
    )
    assert (
        tool.validate_tool_params({"command": 'bash -c "node server.js &"', "is_background": True})
        == message
    )
    assert tool.validate_tool_params({"command": "a && b", "is_background": True}) is None
    assert tool.validate_tool_params({"command": "sleep 30", "is_background": True}) is None


async def test_git_commit_is_refused(config: Config) -> None:
    result = await ShellTool(config).build_and_execute(
        {"command": "git add . && git commit -m x", "is_background": True}
    )
    assert result.llm_content == (
        "Refusing to run `git commit` in background mode: AI-attribution notes are written by "
        "the foreground completion path. Re-run the commit with is_background=false (or split "
        "it out of the compound command)."
    )
    assert result.error is None
    assert config.session.background_shells.list() == []


async def test_failed_exit_and_signal(ws: Path, tmp_path: Path) -> None:
    registry = BackgroundShellRegistry()
    failed = await start(registry, "echo bg; exit 4", ws, tmp_path / "bg")
    killed = await start(registry, "kill -9 $$", ws, tmp_path / "bg")
    await wait_settled(failed)
    await wait_settled(killed)
    assert (failed.status, failed.error, failed.exit_code) == ("failed", "exited with code 4", None)
    assert status_of(failed)["error"] == "exited with code 4"
    assert "exitCode" not in status_of(failed)
    assert (killed.status, killed.error) == ("failed", "terminated by signal 9")
    assert [e.id for e in registry.list()] == [failed.id, killed.id]


async def test_stop_kills_the_group(ws: Path, tmp_path: Path, process_mark: str) -> None:
    registry = BackgroundShellRegistry()
    entry = await start(registry, "sleep 300 & echo up; sleep 300", ws, tmp_path / "bg")
    assert status_of(entry)["status"] == "running"
    for _ in range(3000):  # until the shell has printed (bounded: fails only if it never does)
        if Path(entry.output_path).read_text():
            break
        await asyncio.sleep(0.01)
    assert await registry.stop(entry.id) is True
    assert entry.status == "cancelled" and status_of(entry)["status"] == "cancelled"
    assert entry.pid is not None and wait_group_gone(entry.pid)
    assert marked_pids(process_mark) == []
    assert Path(entry.output_path).read_text() == "up\n"
    assert await registry.stop(entry.id) is False


async def test_stop_all(ws: Path, tmp_path: Path) -> None:
    registry = BackgroundShellRegistry()
    entries = [await start(registry, "sleep 300", ws, tmp_path / "bg") for _ in range(3)]
    await registry.stop_all()
    assert [e.status for e in entries] == ["cancelled"] * 3


async def test_spawn_failure_is_a_failed_shell(config: Config, ws: Path) -> None:
    missing = ws / "gone"
    missing.mkdir()
    tool = ShellTool(config)
    invocation = tool.build(
        {"command": "echo hi", "is_background": True, "directory": str(missing)}
    )
    missing.rmdir()
    from qwen_tools.contract.abort import AbortSignal

    result = await invocation.execute(AbortSignal.never())
    text = str(result.llm_content)
    assert text.startswith("Background shell started.\nid: bg_") and "\npid:" not in text
    (entry,) = config.session.background_shells.list()
    assert (entry.status, entry.error) == ("failed", "spawn bash ENOENT")
    assert result.return_display == f"Background shell {entry.id} started."


async def test_terminal_shells_are_pruned(ws: Path, tmp_path: Path) -> None:
    registry = BackgroundShellRegistry()
    entries = [await start(registry, "true", ws, tmp_path / "bg") for _ in range(34)]
    for entry in entries:
        await wait_settled(entry)
    kept = registry.list()
    assert len(kept) == MAX_RETAINED_TERMINAL_SHELLS
    assert entries[0] not in kept and entries[-1] in kept


async def test_task_stop_messages(config: Config) -> None:
    shell, stop = ShellTool(config), TaskStopTool(config)
    assert stop.name == "task_stop" and stop.display_name == "TaskStop"
    missing = await stop.build_and_execute({"task_id": "bg_00000000"})
    assert missing.llm_content == 'Error: No background task found with ID "bg_00000000".'
    assert missing.error is not None and missing.error.message == "Task not found: bg_00000000"
    assert missing.error.type is ToolErrorType.TASK_STOP_NOT_FOUND
    assert stop.validate_tool_params({"task_id": "x", "extra": 1}) is not None

    started = await shell.build_and_execute({"command": "sleep 300", "is_background": True})
    match = START.match(str(started.llm_content))
    assert match
    shell_id = match["id"]
    assert stop.build({"task_id": shell_id}).get_description() == f"Stop background task {shell_id}"
    stopped = await stop.build_and_execute({"task_id": shell_id})
    assert stopped.error is None
    assert stopped.llm_content == (
        f'Cancellation requested for background shell "{shell_id}". Final status will be visible '
        f"in its status file ({match['status']}) once the process drains; captured output "
        f"remains at {match['out']}.\nCommand: sleep 300"
    )
    assert stopped.return_display == "Cancelled shell: sleep 300"
    entry = config.session.background_shells.get(shell_id)
    assert entry is not None and entry.status == "cancelled"
    assert entry.pid is not None and wait_group_gone(entry.pid)

    again = await stop.build_and_execute({"task_id": shell_id})
    assert (
        again.llm_content
        == f'Error: Background shell "{shell_id}" is not running (status: cancelled).'
    )
    assert again.error is not None and again.error.message == f"shell is cancelled: {shell_id}"
    assert again.error.type is ToolErrorType.TASK_STOP_NOT_RUNNING


async def test_loop_shutdown_kills_running_shells(
    ws: Path, tmp_path: Path, process_mark: str
) -> None:
    registry = BackgroundShellRegistry()

    async def session() -> BackgroundShell:
        return await start(registry, "sleep 300", ws, tmp_path / "bg")

    # A separate event loop that ends while the shell runs (as a CLI run would).
    entry = await asyncio.to_thread(asyncio.run, session())
    assert entry.status == "cancelled"
    assert entry.pid is not None and wait_group_gone(entry.pid)
    assert marked_pids(process_mark) == []
