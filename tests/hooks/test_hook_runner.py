"""One command hook as a real subprocess: stdin, exit codes, output, timeout, process tree."""

from __future__ import annotations

import os
from pathlib import Path

from qwen_tools.hooks.runner import read_hook_output, run_hook
from qwen_tools.hooks.settings import CommandHook, read_timeout_ms
from support.processes import arg_pids, unique_sleep

from .conftest import hook_script, records


async def _run(command: str, event: str = "PreToolUse", timeout_ms: int = 60000, **fields: object):
    hook = CommandHook(command=command, timeout_ms=timeout_ms)
    payload = {"hook_event_name": event, "cwd": os.getcwd(), **fields}
    return await run_hook(hook, event, payload, cwd=os.getcwd(), session_id="s-1")


async def test_stdin_json_and_a_json_answer(tmp_path: Path) -> None:
    command = hook_script(
        tmp_path,
        "answer",
        "record()\n"
        "print(json.dumps({'decision': 'block', 'reason': os.environ['QWEN_PROJECT_DIR']}))",
    )
    run = await _run(command, tool_name="write_file", tool_input={"a": 1})
    assert run.outcome == "success" and run.exit_code == 0
    assert run.output == {"decision": "block", "reason": os.getcwd()}
    (seen,) = records(tmp_path, "answer")
    assert seen["tool_name"] == "write_file" and seen["tool_input"] == {"a": 1}


async def test_exit_2_is_a_block_with_stderr_as_reason(tmp_path: Path) -> None:
    command = hook_script(
        tmp_path,
        "two",
        "print('{\"decision\": \"allow\"}')\nsys.stderr.write('no way\\n')\nsys.exit(2)",
    )
    run = await _run(command)
    assert run.outcome == "blocking"
    assert run.output == {"decision": "deny", "reason": "no way"}


async def test_a_crash_is_a_non_blocking_error_that_never_allows(tmp_path: Path) -> None:
    command = hook_script(tmp_path, "crash", "raise RuntimeError('kaboom')")
    run = await _run(command)
    assert run.outcome == "non_blocking_error" and run.exit_code == 1
    assert run.output is not None and "decision" not in run.output
    assert run.output["systemMessage"].startswith("Warning: Traceback")
    assert "kaboom" in run.output["reason"]


async def test_garbage_that_looks_like_json_gives_one_clear_error(tmp_path: Path) -> None:
    command = hook_script(tmp_path, "garbage", "print('{not json at all')")
    run = await _run(command)
    assert (run.outcome, run.output, run.error) == (
        "non_blocking_error",
        None,
        "Hook output is not valid JSON",
    )


async def test_plain_text_is_context_on_session_start_and_a_message_elsewhere(
    tmp_path: Path,
) -> None:
    command = hook_script(tmp_path, "plain", "print('\\x1b[31mred\\x1b[0m note')")
    start = await _run(command, "SessionStart")
    assert start.output == {
        "reason": "Hook executed successfully",
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "red note"},
    }
    other = await _run(command, "PreToolUse")
    assert other.output is not None and other.output["systemMessage"] == "\x1b[31mred\x1b[0m note"
    assert "decision" not in other.output


async def test_a_hanging_hook_times_out_and_its_whole_tree_ends(tmp_path: Path) -> None:
    token = unique_sleep()
    command = hook_script(
        tmp_path,
        "hang",
        "import subprocess\n"
        f"subprocess.Popen(['sleep', {token!r}], start_new_session=True)\n"
        f"subprocess.Popen(['sleep', {token!r}])\n"
        "print('started', flush=True)\n"
        "time.sleep(3600)",
    )
    run = await _run(command, timeout_ms=1500)
    assert (run.outcome, run.error, run.output) == ("timeout", "Hook timed out after 1.5s", None)
    assert arg_pids(token) == []


async def test_a_command_that_does_not_exist(tmp_path: Path) -> None:
    run = await _run(str(tmp_path / "missing-hook"))
    assert run.outcome == "non_blocking_error" and run.exit_code == 127
    assert run.output is not None and "No such file" in run.output["reason"]


def test_exit_codes_and_texts_without_a_process() -> None:
    assert read_hook_output("Stop", 2, "ignored", "") == ("blocking", None, None)
    assert read_hook_output("Stop", 0, '"{\\"continue\\": false}"', "") == (
        "success",
        {"continue": False},
        None,
    )
    assert read_hook_output("Stop", 0, "42", "")[1] == {
        "reason": "Hook executed successfully",
        "systemMessage": "42",
    }
    assert read_hook_output("Stop", None, "", "")[2] == "Hook killed by signal"
    assert read_hook_output("UserPromptSubmit", 0, "", "from stderr")[1] == {
        "reason": "Hook executed successfully",
        "systemMessage": "from stderr",
    }


def test_timeouts_are_seconds_or_legacy_milliseconds() -> None:
    assert read_timeout_ms(None) == 60000
    assert read_timeout_ms(10) == 10000
    assert read_timeout_ms(0.5) == 500
    assert read_timeout_ms("5") == 5000
    assert read_timeout_ms(1000) == 1000
    assert read_timeout_ms(300000) == 300000
    for unusable in ("30s", -1, 0, True, [], float("nan")):
        assert read_timeout_ms(unusable) == 60000
