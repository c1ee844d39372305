"""Limits of a foreground command: cancellation, timeouts, process groups, big and odd output.

Real processes only. The conftest guard fails any test that leaves one of its processes alive.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from qwen_tools import Config
from qwen_tools.config.tool_settings import ToolSettings
from qwen_tools.contract.abort import AbortController, AbortSignal
from qwen_tools.contract.errors import ToolErrorType
from qwen_tools.shell.execution import ShellRun, run_foreground, shell_argv, shell_env
from qwen_tools.shell.output import (
    BINARY_NOTICE,
    capture_limit_notice,
    format_memory_usage,
    strip_ansi,
    truncate_and_save,
)
from qwen_tools.tools.shell.tool import ShellTool
from support.processes import kill_marked, marked_pids, wait_group_gone

DATA = Path(__file__).parent / "data"


async def run(command: str, cwd: Path, **kwargs: Any) -> ShellRun:
    kwargs.setdefault("signal", AbortSignal.never())
    return await run_foreground(shell_argv(command), cwd=str(cwd), env=shell_env("s"), **kwargs)


# -- cancellation and timeouts -------------------------------------------------------------------


async def test_cancel_mid_run_returns_quickly_and_kills_the_group(ws: Path) -> None:
    controller = AbortController()

    def on_output(text: str) -> None:
        if "begun" in text:
            controller.abort()

    # Bounded far below the command's 3600 s: fails only if the abort does not end it.
    result = await asyncio.wait_for(
        run("echo begun; sleep 3600", ws, signal=controller.signal, on_output=on_output), 60
    )
    assert result.aborted and not result.timed_out
    assert (result.exit_code, result.signal) == (None, signal.SIGTERM)  # killed, not finished
    assert result.output == "begun"
    assert result.pid is not None and wait_group_gone(result.pid)


async def test_cancel_through_the_tool_uses_the_reference_text(config: Config) -> None:
    controller = AbortController()

    def on_output(text: Any) -> None:
        if "begun" in str(text):
            controller.abort()

    tool = ShellTool(config)
    result = await tool.build_and_execute(
        {"command": "echo begun; sleep 3600 # intentional-sleep: cancelled by the test"},
        controller.signal,
        on_output,
    )
    assert result.llm_content == (
        "Command was cancelled by user before it could complete. "
        "Below is the output before it was cancelled:\nbegun"
    )
    assert result.error is None
    quiet = AbortController()
    asyncio.get_running_loop().call_later(0.3, quiet.abort)
    result = await tool.build_and_execute(
        {"command": "sleep 30 # intentional-sleep: a test pause"}, quiet.signal
    )
    assert result.llm_content == (
        "Command was cancelled by user before it could complete. "
        "There was no output before it was cancelled."
    )
    assert result.return_display == "Command cancelled by user."


async def test_cancelled_before_start(config: Config) -> None:
    controller = AbortController()
    controller.abort()
    result = await ShellTool(config).build_and_execute({"command": "echo never"}, controller.signal)
    assert result.llm_content == "Command was cancelled by user before it could start."
    assert result.return_display == "Command cancelled by user."


@pytest.mark.parametrize("how", ["timeout", "cancel"])
async def test_forked_children_die_with_the_command(ws: Path, process_mark: str, how: str) -> None:
    controller = AbortController()

    def on_output(text: str) -> None:
        if how == "cancel" and "started" in text:
            controller.abort()

    timeout = 2000 if how == "timeout" else None
    result = await run(
        "sleep 3600 & trap '' TERM; echo started; sleep 3600",
        ws,
        signal=controller.signal,
        timeout_ms=timeout,
        on_output=on_output,
    )
    assert result.output == "started"
    assert result.timed_out is (how == "timeout")
    assert result.pid is not None and wait_group_gone(result.pid)
    assert marked_pids(process_mark) == []


async def test_timeout_text_with_and_without_output(config: Config) -> None:
    tool = ShellTool(config)
    # A builtin prints at once (a Python start-up could take most of the second under load).
    result = await tool.build_and_execute(
        {"command": "echo start; sleep 30 # intentional-sleep: until the timeout", "timeout": 1000}
    )
    expected = (
        "Command timed out after 1000ms before it could complete. "
        "Below is the output before it timed out:\nstart"
    )
    assert result.llm_content == expected
    assert result.error is not None and result.error.type is ToolErrorType.EXECUTION_TIMEOUT
    assert result.error.message == expected
    assert result.return_display == (
        "Command timed out after 1000ms before it could complete.\nstart"
    )
    result = await tool.build_and_execute(
        {"command": "sleep 3 # intentional-sleep: waiting for test", "timeout": 1000}
    )
    assert result.llm_content == (
        "Command timed out after 1000ms before it could complete. "
        "There was no output before it timed out."
    )


async def test_default_timeout_comes_from_settings(ws: Path, home: Path) -> None:
    settings = ToolSettings(shell_default_timeout_ms=700)
    tool = ShellTool(Config(ws, home_dir=home, settings=settings))
    result = await tool.build_and_execute({"command": "sleep 5 # intentional-sleep: check default"})
    assert str(result.llm_content).startswith("Command timed out after 700ms")


async def test_straggler_does_not_hold_up_the_result(ws: Path, process_mark: str) -> None:
    # Bounded far below the straggler's 3600 s: fails only if the result waits for it.
    result = await asyncio.wait_for(run("sleep 3600 & echo started", ws), 60)
    assert (result.output, result.exit_code) == ("started", 0)
    # Like Qwen Code, a child deliberately left in the background keeps running.
    assert kill_marked(process_mark) != []


async def test_signals_are_reported(ws: Path) -> None:
    result = await run("kill -TERM $$", ws)
    assert (result.exit_code, result.signal) == (None, 15)


# -- output ----------------------------------------------------------------------------------------


async def test_ten_megabytes_complete_with_bounded_memory(tmp_path: Path) -> None:
    script = f"""
import asyncio, json, resource
from qwen_tools import Config
from qwen_tools.config.tool_settings import ApprovalMode
from qwen_tools.tools.shell.tool import ShellTool

async def main():
    tool = ShellTool(Config({str(tmp_path)!r}, home_dir={str(tmp_path / "home")!r}))
    await tool.build_and_execute({{"command": "echo warm"}})
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result = await tool.build_and_execute({{"command": "head -c 10000000 /dev/zero | tr '\\\\0' a"}})
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({{"growth_kb": after - before, "llm": len(result.llm_content),
                      "files": result.result_file_paths, "error": result.error is not None}}))

asyncio.run(main())
"""
    env = {k: v for k, v in os.environ.items() if k != "QWEN_RUNTIME_DIR"}
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        env=env,
    )
    report = json.loads(done.stdout)
    assert not report["error"] and report["llm"] < 5000
    assert Path(report["files"][0]).stat().st_size > 10_000_000
    # The output is 10 MB; holding it costs about twice that (bytes read, then the text).
    assert report["growth_kb"] < 3 * 10_000


async def test_capture_cap_drops_the_rest_with_a_notice(ws: Path) -> None:
    result = await run("head -c 5000 /dev/zero | tr '\\0' a", ws, max_buffered_bytes=1000)
    assert result.output == "a" * 1000 + "\n\n" + capture_limit_notice(1000, 5000)
    assert capture_limit_notice(1000, 5000) == (
        "[Output exceeded the maximum captured size of 1.0 KB; captured the first 1.0 KB "
        "of 4.9 KB and discarded the rest to avoid constructing an oversized JavaScript string.]"
    )
    assert format_memory_usage(64 * 1024 * 1024) == "64.0 MB"
    assert format_memory_usage(3 * 1024**3) == "3.00 GB"


async def test_ansi_is_stripped(ws: Path) -> None:
    result = await run(r"printf 'a\033[31mred\033[0m\n'; printf '\033]0;title\007x\n'", ws)
    assert result.output == "ared\nx"
    assert strip_ansi("\x1b[1;31mbold\x1b[0m \x9b2Kz") == "bold z"


async def test_binary_output_is_detected(ws: Path) -> None:
    updates: list[str] = []
    result = await run(r"printf 'ab\000cd'", ws, on_output=updates.append)
    assert result.binary and result.output == ""
    assert updates == [BINARY_NOTICE]


async def test_stdout_and_stderr_are_joined_not_interleaved(ws: Path) -> None:
    result = await run("printf out; printf err >&2", ws)
    assert result.output == "out\nerr"
    result = await run(r"echo e1 >&2; echo o1; echo e2 >&2; echo o2", ws)
    assert result.output == "o1\no2\ne1\ne2"
    result = await run(r"printf '  padded  \n\n'; printf '\n  e  \n' >&2", ws)
    assert result.output == "padded  \n\n\n  e"


async def test_live_output_is_throttled_plain_text(ws: Path) -> None:
    updates: list[tuple[float, str]] = []
    loop = asyncio.get_running_loop()

    def record(text: str) -> None:
        # The loop's clock, which the throttle itself reads just before calling us: load can
        # only make the gaps longer, never shorter.
        updates.append((loop.time(), text))

    command = "for i in 1 2 3 4 5 6 7 8 9 10; do echo line$i; sleep 0.05; done"
    result = await run(command, ws, on_output=record)
    assert result.output.splitlines()[-1] == "line10"
    assert len(updates) >= 3 and all(isinstance(text, str) for _, text in updates)
    live = updates[:-1]
    assert all(b - a >= 0.09 for (a, _), (b, _) in itertools.pairwise(live))
    assert updates[-1][1] == result.output
    assert updates[0][1].startswith("line1")


async def test_live_output_reaches_the_pipeline(config: Config) -> None:
    seen: list[Any] = []
    tool = ShellTool(config)
    invocation = tool.build({"command": "echo one; sleep 0.3; echo two"})
    await invocation.execute(AbortSignal.never(), seen.append)
    assert seen[0].strip() == "one" and seen[-1] == "one\ntwo"


# -- the head + tail preview ---------------------------------------------------------------------


def _normalise(text: str, directory: str) -> str:
    text = re.sub(r"\{\{HOME\}\}/\.qwen/tmp/[0-9a-f]+", "<TMP>", text).replace(directory, "<TMP>")
    return re.sub(r"run_shell_command_[0-9a-f]{12}\.output", "run_shell_command_<hex>.output", text)


@pytest.mark.parametrize(
    ("name", "command", "body"),
    [
        ("seq_1_20000", "seq 1 20000", "\n".join(str(i) for i in range(1, 20001))),
        ("x40000", "python3 -c 'print(\"x\"*40000)'; echo tail", "x" * 40000 + "\ntail"),
    ],
)
def test_preview_matches_the_reference_byte_for_byte(
    tmp_path: Path, name: str, command: str, body: str
) -> None:
    content = (
        f"Command: {command}\nDirectory: (root)\nOutput: {body}\nError: (none)\nExit Code: 0\n"
        "Signal: (none)\nProcess Group PGID: (none)"
    )
    result = truncate_and_save(
        content,
        directory=tmp_path,
        tool_name="run_shell_command",
        threshold=30000,
        preview_chars=4000,
    )
    observed = (DATA / f"{name}.observed.txt").read_text()
    assert _normalise(result.content, str(tmp_path)) == _normalise(observed, str(tmp_path))
    assert result.output_file is not None
    saved = Path(result.output_file)
    assert saved.read_text() == content and saved.stat().st_mode & 0o777 == 0o600


def test_preview_edge_cases(tmp_path: Path) -> None:
    small = truncate_and_save(
        "short", directory=tmp_path, tool_name="t", threshold=10, preview_chars=10
    )
    assert small.content == "short" and small.output_file is None
    # A wrapper that would not be shorter keeps the original (and saves nothing).
    mid = "y" * 400
    kept = truncate_and_save(
        mid, directory=tmp_path, tool_name="t", threshold=10, preview_chars=4000
    )
    assert kept.content == mid and kept.output_file is None
    # Characters outside the BMP count twice, as in JavaScript (a split pair is dropped).
    face = "\U0001f600"
    cut = truncate_and_save(
        f"{face * 20000}\n{face * 20000}",
        directory=tmp_path,
        tool_name="t",
        threshold=30000,
        preview_chars=4000,
    )
    assert cut.output_file is not None
    head, tail = cut.content.split("Truncated part of the output:\n")[1].split(
        "\n\n---\n... [CONTENT TRUNCATED] ...\n---\n\n"
    )
    assert head == face * 394 + "..."  # 792 - 3 = 789 units
    assert tail == "..." + face * 1583  # 3961 - 792 - 3 = 3166 units


async def test_large_output_through_the_tool(config: Config) -> None:
    result = await ShellTool(config).build_and_execute({"command": "seq 1 20000"})
    text = str(result.llm_content)
    assert text.startswith("Tool output was too large and has been truncated.\n")
    assert (
        "Truncated part of the output:\nCommand: seq 1 20000\nDirectory: (root)\nOutput: 1\n2\n"
        in text
    )
    assert text.endswith(
        "20000\nError: (none)\nExit Code: 0\nSignal: (none)\nProcess Group PGID: (none)"
    )
    saved = result.result_file_paths[0]
    assert saved.startswith(str(config.get_project_temp_dir() / "run_shell_command_"))
    assert result.return_display == f"Output too long and was saved to: {saved}"
    assert result.output_budget_applied and result.error is None


async def test_explicit_threshold_setting_replaces_the_shell_budget(ws: Path, home: Path) -> None:
    config = Config(ws, home_dir=home, settings=ToolSettings(truncate_tool_output_threshold=2000))
    tool = ShellTool(config)
    assert tool.max_output_chars == 2000
    result = await tool.build_and_execute({"command": "seq 1 1000"})
    assert str(result.llm_content).startswith("Tool output was too large")
    assert ShellTool(Config(ws, home_dir=home)).max_output_chars == 30000


# -- the sandbox ------------------------------------------------------------------------------------

# In CI (CI=true) bubblewrap is installed by scripts/system-deps.sh: never skip there.
needs_bwrap = pytest.mark.skipif(
    shutil.which("bwrap") is None and not os.environ.get("CI"), reason="bubblewrap is not installed"
)


@needs_bwrap
async def test_sandbox_allows_the_workspace_only(ws: Path, home: Path) -> None:
    # /tmp is writable in the sandbox, so the forbidden directory must live elsewhere.
    outside = Path(tempfile.mkdtemp(dir="/var/tmp"))
    try:
        await _check_sandbox_writes(ws, home, outside)
    finally:
        shutil.rmtree(outside)


async def _check_sandbox_writes(ws: Path, home: Path, outside: Path) -> None:
    tool = ShellTool(Config(ws, home_dir=home, settings=ToolSettings(sandbox="bwrap")))
    inside = await tool.build_and_execute({"command": "echo hi > in.txt && cat in.txt"})
    assert "Output: hi\n" in str(inside.llm_content) and (ws / "in.txt").read_text() == "hi\n"
    denied = await tool.build_and_execute({"command": f"echo no > {outside}/x.txt"})
    assert denied.error is not None and not (outside / "x.txt").exists()
    assert "Exit Code: 1" in str(denied.llm_content)


@needs_bwrap
async def test_sandbox_has_no_network_by_default(ws: Path, home: Path) -> None:
    tool = ShellTool(Config(ws, home_dir=home, settings=ToolSettings(sandbox="bwrap")))
    result = await tool.build_and_execute(
        {"command": "cat /proc/net/dev | tail -n +3 | cut -d: -f1"}
    )
    assert str(result.llm_content).split("Output: ")[1].split("\n")[0].strip() == "lo"


async def test_sandbox_unavailable_is_a_clear_error(
    ws: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from qwen_tools.shell import sandbox

    monkeypatch.setattr(sandbox.shutil, "which", lambda _name: None)
    sandbox.bwrap_path.cache_clear()
    tool = ShellTool(Config(ws, home_dir=home, settings=ToolSettings(sandbox="bwrap")))
    result = await tool.build_and_execute({"command": "echo hi"})
    assert result.error is not None and result.error.type is ToolErrorType.SHELL_EXECUTE_ERROR
    assert result.llm_content == (
        "Sandbox payload did not run: setup failed before execution (bubblewrap or the payload "
        "binary may be missing)."
    )
    assert "bwrap was not found on PATH" in str(result.return_display)
    monkeypatch.undo()
    sandbox.bwrap_path.cache_clear()
