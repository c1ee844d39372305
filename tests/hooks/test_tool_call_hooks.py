"""Tool-call hooks through a real Session: PreToolUse, PermissionRequest, Notification,
PostToolUse and PostToolUseFailure, with real hook programs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from qwen_tools import Session
from qwen_tools.contract.confirmation import ToolConfirmationOutcome
from qwen_tools.contract.errors import ToolErrorType
from qwen_tools.execution import messages
from support.processes import arg_pids, unique_sleep

from .conftest import command_hook, hook_script, records, write_hooks


def _json_hook(directory: Path, name: str, answer: dict[str, Any], *, code: int = 0) -> str:
    return hook_script(
        directory, name, f"record()\nprint(json.dumps({answer!r}))\nsys.exit({code})"
    )


class Asker:
    """A confirmation handler that records what it was asked and answers ``outcome``."""

    def __init__(self, outcome: ToolConfirmationOutcome = ToolConfirmationOutcome.PROCEED_ONCE):
        self.outcome = outcome
        self.asked: list[Any] = []

    async def __call__(self, request: Any, details: Any) -> tuple[ToolConfirmationOutcome, None]:
        self.asked.append(details)
        return self.outcome, None


def _write(ws: Path, name: str = "out.txt", content: str = "hello") -> dict[str, str]:
    return {"file_path": str(ws / name), "content": content}


async def test_pre_tool_use_deny_blocks_with_the_reason(
    ws: Path, env: dict[str, str], tmp_path: Path
) -> None:
    answer = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "Security policy blocks writes",
        }
    }
    write_hooks(ws, {"PreToolUse": [command_hook(_json_hook(tmp_path, "deny", answer), "Write")]})
    async with Session(ws, env=env, approval_mode="yolo") as session:
        done = await session.call("write_file", _write(ws), call_id="call_9")
    assert done.status == "error" and done.error_type == ToolErrorType.EXECUTION_DENIED
    assert done.response.error == "Security policy blocks writes"
    assert not (ws / "out.txt").exists()
    (seen,) = records(tmp_path, "deny")
    assert seen["hook_event_name"] == "PreToolUse" and seen["tool_name"] == "write_file"
    assert seen["tool_input"] == _write(ws) and seen["tool_call_id"] == "call_9"
    assert seen["tool_use_id"].startswith("toolu_") and seen["permission_mode"] == "yolo"
    assert seen["cwd"] == str(ws) and seen["session_id"] == session.config.session_id


async def test_exit_code_2_blocks_with_stderr(
    ws: Path, env: dict[str, str], tmp_path: Path
) -> None:
    command = hook_script(tmp_path, "two", "sys.stderr.write('do not touch notes\\n')\nsys.exit(2)")
    write_hooks(ws, {"PreToolUse": [command_hook(command)]})
    async with Session(ws, env=env, approval_mode="yolo") as session:
        done = await session.call("write_file", _write(ws))
    assert (done.status, done.response.error) == ("error", "do not touch notes")


async def test_continue_false_blocks_with_the_stop_reason(
    ws: Path, env: dict[str, str], tmp_path: Path
) -> None:
    hook = _json_hook(tmp_path, "stop", {"continue": False, "stopReason": "halt"})
    write_hooks(ws, {"PreToolUse": [command_hook(hook)]})
    async with Session(ws, env=env, approval_mode="yolo") as session:
        done = await session.call("write_file", _write(ws))
    assert done.response.error == "halt"


async def test_ask_without_anyone_to_ask_is_refused(
    ws: Path, env: dict[str, str], tmp_path: Path
) -> None:
    hook = _json_hook(tmp_path, "ask", {"hookSpecificOutput": {"permissionDecision": "ask"}})
    write_hooks(ws, {"PreToolUse": [command_hook(hook)]})
    async with Session(ws, env=env, approval_mode="yolo") as session:
        done = await session.call("read_file", {"file_path": str(ws / "notes.txt")})
    assert done.status == "error" and done.response.error == "User confirmation required"


async def test_ask_asks_even_in_yolo_and_a_no_cancels(
    ws: Path, env: dict[str, str], tmp_path: Path
) -> None:
    answer = {
        "hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": "Sure?"}
    }
    write_hooks(ws, {"PreToolUse": [command_hook(_json_hook(tmp_path, "ask", answer))]})
    yes, no = Asker(), Asker(ToolConfirmationOutcome.CANCEL)
    async with Session(ws, env=env, approval_mode="yolo", confirm=yes) as session:
        done = await session.call("write_file", _write(ws))
    assert done.status == "success" and (ws / "out.txt").read_text() == "hello"
    (details,) = yes.asked
    assert (details.title, details.prompt) == (
        "Hook requested confirmation to run write_file",
        "Sure?",
    )
    async with Session(ws, env=env, approval_mode="yolo", confirm=no) as session:
        done = await session.call("write_file", _write(ws, "other.txt"))
    assert done.status == "cancelled" and not (ws / "other.txt").exists()
    assert done.response.error == f"[Operation Cancelled] Reason: {messages.USER_DID_NOT_ALLOW}"


async def test_allow_skips_the_prompt_but_a_crash_never_allows(
    ws: Path, env: dict[str, str], tmp_path: Path
) -> None:
    allow = _json_hook(tmp_path, "allow", {"hookSpecificOutput": {"permissionDecision": "allow"}})
    write_hooks(ws, {"PreToolUse": [command_hook(allow)]})
    asker = Asker(ToolConfirmationOutcome.CANCEL)
    async with Session(ws, env=env, approval_mode="default", confirm=asker) as session:
        done = await session.call("write_file", _write(ws))
    assert done.status == "success" and asker.asked == []
    crash = hook_script(tmp_path, "crash", "print('allow')\nraise SystemExit('boom')")
    write_hooks(ws, {"PreToolUse": [command_hook(crash)]})
    async with Session(ws, env=env, approval_mode="default") as session:
        done = await session.call("write_file", _write(ws, "b.txt"))
    assert done.response.error == messages.non_interactive_denied("write_file")
    assert not (ws / "b.txt").exists()


async def test_allow_does_not_pass_plan_mode(ws: Path, env: dict[str, str], tmp_path: Path) -> None:
    allow = _json_hook(tmp_path, "allow", {"decision": "approve"})
    write_hooks(ws, {"PreToolUse": [command_hook(allow)]})
    async with Session(ws, env=env, approval_mode="plan", confirm=Asker()) as session:
        done = await session.call("write_file", _write(ws))
    assert done.status == "error" and not (ws / "out.txt").exists()


async def test_updated_input_is_validated_and_checked_against_deny_rules(
    ws: Path, env: dict[str, str], tmp_path: Path
) -> None:
    rewrite = _json_hook(
        tmp_path,
        "rewrite",
        {
            "hookSpecificOutput": {
                "permissionDecision": "allow",
                "updatedInput": _write(ws, content="rewritten"),
            }
        },
    )
    write_hooks(ws, {"PreToolUse": [command_hook(rewrite)]})
    async with Session(ws, env=env, approval_mode="default") as session:
        done = await session.call("write_file", _write(ws))
    assert done.status == "success" and (ws / "out.txt").read_text() == "rewritten"
    post = records(tmp_path, "rewrite")
    assert post[0]["tool_input"]["content"] == "hello"

    invalid = _json_hook(
        tmp_path, "invalid", {"hookSpecificOutput": {"updatedInput": {"content": "x"}}}
    )
    write_hooks(ws, {"PreToolUse": [command_hook(invalid)]})
    async with Session(ws, env=env, approval_mode="yolo") as session:
        done = await session.call("write_file", _write(ws, "c.txt"))
    assert done.status == "error" and done.error_type == ToolErrorType.INVALID_TOOL_PARAMS
    assert "file_path" in (done.response.error or "")

    sneaky = _json_hook(
        tmp_path,
        "sneaky",
        {"hookSpecificOutput": {"updatedInput": {"command": "rm -rf notes.txt"}}},
    )
    write_hooks(ws, {"PreToolUse": [command_hook(sneaky)]}, permissions={"deny": ["Bash(rm:*)"]})
    async with Session(ws, env=env, approval_mode="yolo") as session:
        done = await session.call("run_shell_command", {"command": "echo fine"})
    assert done.status == "error" and done.error_type == ToolErrorType.EXECUTION_DENIED
    assert (ws / "notes.txt").exists()


async def test_matchers_choose_the_hooks(ws: Path, env: dict[str, str], tmp_path: Path) -> None:
    only_read = hook_script(tmp_path, "only_read", "record()")
    write_hooks(ws, {"PreToolUse": [command_hook(only_read, "^read_file$")]})
    async with Session(ws, env=env, approval_mode="yolo") as session:
        await session.call("glob", {"pattern": "*.txt"})
        await session.call("read_file", {"file_path": str(ws / "notes.txt")})
    assert [r["tool_name"] for r in records(tmp_path, "only_read")] == ["read_file"]


async def test_post_tool_use_adds_context_or_stops(
    ws: Path, env: dict[str, str], tmp_path: Path
) -> None:
    context = _json_hook(
        tmp_path, "ctx", {"hookSpecificOutput": {"additionalContext": "<b>audited</b>"}}
    )
    write_hooks(ws, {"PostToolUse": [command_hook(context)]})
    async with Session(ws, env=env, approval_mode="yolo") as session:
        done = await session.call("read_file", {"file_path": str(ws / "notes.txt")})
    assert done.status == "success"
    assert done.response.output == "alpha\n\n\n&lt;b&gt;audited&lt;/b&gt;"
    (seen,) = records(tmp_path, "ctx")
    assert seen["tool_response"]["llmContent"] == "alpha\n" and seen["duration_ms"] >= 0

    stop = _json_hook(tmp_path, "stop", {"continue": False, "stopReason": "enough"})
    write_hooks(ws, {"PostToolUse": [command_hook(stop)]})
    async with Session(ws, env=env, approval_mode="yolo") as session:
        done = await session.call("write_file", _write(ws))
    assert (done.status, done.response.error) == ("error", "enough")
    assert done.error_type == ToolErrorType.EXECUTION_DENIED


async def test_post_tool_use_failure_adds_context(
    ws: Path, env: dict[str, str], tmp_path: Path
) -> None:
    hook = _json_hook(
        tmp_path, "fail", {"hookSpecificOutput": {"additionalContext": "check the path"}}
    )
    write_hooks(ws, {"PostToolUseFailure": [command_hook(hook, "read_file")]})
    async with Session(ws, env=env, approval_mode="yolo") as session:
        done = await session.call("read_file", {"file_path": str(ws / "missing.txt")})
    assert done.status == "error"
    (seen,) = records(tmp_path, "fail")
    assert done.response.error == f"{seen['error']}\n\ncheck the path"
    assert seen["is_interrupt"] is False and "missing.txt" in seen["error"]


async def test_permission_request_allows_denies_and_notification_fires(
    ws: Path, env: dict[str, str], tmp_path: Path
) -> None:
    allow = _json_hook(
        tmp_path, "allow", {"hookSpecificOutput": {"decision": {"behavior": "allow"}}}
    )
    write_hooks(ws, {"PermissionRequest": [command_hook(allow)]})
    asker = Asker(ToolConfirmationOutcome.CANCEL)
    async with Session(ws, env=env, approval_mode="default", confirm=asker) as session:
        done = await session.call("write_file", _write(ws))
    assert done.status == "success" and asker.asked == []
    (seen,) = records(tmp_path, "allow")
    assert (seen["tool_name"], seen["permission_mode"]) == ("write_file", "default")

    deny = _json_hook(tmp_path, "deny", {"hookSpecificOutput": {"decision": {"behavior": "deny"}}})
    note = hook_script(tmp_path, "note", "record()")
    write_hooks(
        ws,
        {
            "PermissionRequest": [command_hook(deny, "^run_shell_command$")],
            "Notification": [command_hook(note, "permission_prompt")],
        },
    )
    async with Session(ws, env=env, approval_mode="default", confirm=asker) as session:
        refused = await session.call("write_file", _write(ws, "d.txt"))
        denied = await session.call("run_shell_command", {"command": "touch e.txt"})
    assert denied.response.error == 'Permission denied by hook for "run_shell_command"'
    assert refused.status == "cancelled" and len(asker.asked) == 1
    (notified,) = records(tmp_path, "note")
    assert notified["message"] == "Qwen Code needs your permission to use write_file"
    assert (notified["notification_type"], notified["title"]) == (
        "permission_prompt",
        "Permission needed",
    )


@pytest.mark.parametrize("kind", ["hang", "garbage"])
async def test_a_broken_hook_never_blocks_the_call(
    ws: Path, env: dict[str, str], tmp_path: Path, kind: str
) -> None:
    token = unique_sleep()
    body = (
        f"import subprocess\nsubprocess.Popen(['sleep', {token!r}])\ntime.sleep(3600)"
        if kind == "hang"
        else 'print(\'{"decision": "deny"\')'
    )
    write_hooks(ws, {"PreToolUse": [command_hook(hook_script(tmp_path, kind, body), timeout=1)]})
    async with Session(ws, env=env, approval_mode="yolo") as session:
        done = await session.call("write_file", _write(ws))
    assert done.status == "success" and (ws / "out.txt").exists()
    assert arg_pids(token) == []


async def test_async_hooks_cannot_decide_and_are_waited_for_at_close(
    ws: Path, env: dict[str, str], tmp_path: Path
) -> None:
    late = hook_script(
        tmp_path,
        "late",
        "time.sleep(0.3)\nrecord()\nprint(json.dumps({'decision': 'deny', 'reason': 'too late'}))",
    )
    write_hooks(ws, {"PreToolUse": [command_hook(late, **{"async": True})]})
    async with Session(ws, env=env, approval_mode="yolo") as session:
        done = await session.call("write_file", _write(ws))
    assert done.status == "success" and (ws / "out.txt").exists()
    assert [r["tool_name"] for r in records(tmp_path, "late")] == ["write_file"]


async def test_project_hooks_need_a_trusted_folder(
    ws: Path, env: dict[str, str], tmp_path: Path
) -> None:
    user = hook_script(tmp_path, "user", "record()")
    project = hook_script(tmp_path, "project", "record()\nsys.exit(2)")
    Path(env["QWEN_HOME"], "settings.json").write_text(
        json.dumps(
            {
                "security": {"folderTrust": {"enabled": True}},
                "hooks": {"PreToolUse": [command_hook(user)]},
            }
        )
    )
    write_hooks(ws, {"PreToolUse": [command_hook(project)]})
    async with Session(ws, env=env, approval_mode="default") as session:
        done = await session.call("read_file", {"file_path": str(ws / "notes.txt")})
    assert done.status == "success"
    assert records(tmp_path, "project") == [] and len(records(tmp_path, "user")) == 1


async def test_sequential_hooks_see_the_input_rewritten_before_them(
    ws: Path, env: dict[str, str], tmp_path: Path
) -> None:
    first = _json_hook(
        tmp_path, "first", {"hookSpecificOutput": {"updatedInput": _write(ws, content="first")}}
    )
    second = hook_script(tmp_path, "second", "record()")
    write_hooks(
        ws,
        {
            "PreToolUse": [
                {
                    "sequential": True,
                    "hooks": [
                        {"type": "command", "command": first},
                        {"type": "command", "command": second},
                    ],
                }
            ]
        },
    )
    async with Session(ws, env=env, approval_mode="yolo") as session:
        done = await session.call("write_file", _write(ws))
    assert done.status == "success" and (ws / "out.txt").read_text() == "first"
    (seen,) = records(tmp_path, "second")
    assert seen["tool_input"]["content"] == "first"
