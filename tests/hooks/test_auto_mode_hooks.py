"""``auto`` mode's classifier block fires the PermissionDenied hooks (a real hook program)."""

from __future__ import annotations

from pathlib import Path

from qwen_tools import Session
from qwen_tools.model.client import ChatClient
from qwen_tools.model.model_config import ModelConfig
from qwen_tools.model.retry import RetryPolicy
from support.fake_openai import FakeOpenAI, Reply

from .conftest import command_hook, hook_script, records, write_hooks

BLOCK = '{"thinking": "t", "shouldBlock": true, "reason": "Deletes the notes."}'


async def test_classifier_block_fires_permission_denied(
    ws: Path, env: dict[str, str], tmp_path: Path
) -> None:
    hook = hook_script(tmp_path, "denied", "record()")
    write_hooks(ws, {"PermissionDenied": [command_hook(hook, "run_shell_command")]})
    args = {"command": "rm notes.txt", "description": "x"}
    script = [Reply(content='{"shouldBlock": true}'), Reply(content=BLOCK)]
    with FakeOpenAI(script) as server:
        model = ModelConfig(model="fake-model", api_key="sk-test", base_url=server.url)
        async with (
            ChatClient(model, policy=RetryPolicy(attempts=1)) as client,
            Session(ws, env=env, approval_mode="auto") as session,
        ):
            session.config.services.model.lend(content_generator=client)
            done = await session.call("run_shell_command", args, call_id="call_7")
    assert done.response_text.startswith("Blocked by auto mode policy: Deletes the notes.\n")
    assert (ws / "notes.txt").exists()
    (seen,) = records(tmp_path, "denied")
    assert seen["hook_event_name"] == "PermissionDenied" and seen["reason"] == "classifier_blocked"
    assert (seen["tool_name"], seen["tool_input"]) == ("run_shell_command", args)
    assert seen["tool_call_id"] == "call_7" and seen["permission_mode"] == "auto"
