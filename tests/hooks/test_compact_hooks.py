"""PreCompact and PostCompact around the compression of a conversation (real hook programs, the
scripted fake model server, a 4,000-token window so that a reported 3,500-token prompt compresses).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from qwen_tools import Session
from qwen_tools.agent.compression_texts import COMPRESSION_PROMPT, CompressionStatus
from qwen_tools.agent.session import AgentSession
from qwen_tools.model.model_config import ModelConfig
from qwen_tools.model.retry import RetryPolicy
from support.fake_openai import FakeOpenAI, Reply

from .conftest import command_hook, hook_script, records, write_hooks

FAST = RetryPolicy(attempts=1, initial_delay_s=0.001, max_delay_s=0.002)
SUMMARY = "<analysis>draft</analysis><state_snapshot>S</state_snapshot>"
BIG = {"prompt_tokens": 3500, "completion_tokens": 10, "total_tokens": 3510}
SMALL = {"prompt_tokens": 2000, "completion_tokens": 10, "total_tokens": 2010}


def _agent(session: Session, server: FakeOpenAI) -> AgentSession:
    model = ModelConfig(
        model="fake-model", api_key="sk-test", base_url=server.url, context_window=4000
    )
    return AgentSession(session.config, session.registry, model, policy=FAST, system_prompt="SYS")


def _summary_system(server: FakeOpenAI) -> list[str]:
    systems = [str(r["messages"][0]["content"]) for r in server.requests]
    return [s for s in systems if s.startswith(COMPRESSION_PROMPT)]


async def test_pre_compact_adds_instructions_and_post_compact_gets_the_summary(
    ws: Path, env: dict[str, str], tmp_path: Path
) -> None:
    context = "print(json.dumps({'hookSpecificOutput': {'additionalContext': 'Keep <names>'}}))"
    pre = hook_script(tmp_path, "pre", "record()\n" + context)
    manual_only = hook_script(tmp_path, "manual", "record()")
    post = hook_script(tmp_path, "post", "record()")
    write_hooks(
        ws,
        {
            "PreCompact": [command_hook(pre), command_hook(manual_only, "manual")],
            "PostCompact": [command_hook(post)],
        },
    )
    script = [Reply(content="one", usage=BIG), Reply(content=SUMMARY, usage=SMALL)]
    server = FakeOpenAI([*script, Reply(content="two"), Reply(content=SUMMARY, usage=SMALL)])
    with server:
        async with (
            Session(ws, env=env, approval_mode="yolo") as session,
            _agent(session, server) as agent,
        ):
            loop = agent.new_loop()
            await loop.send("first")
            await loop.send("second")  # 3,510 tokens and more: compressed first
            manual = await loop.compression.compress(loop.history, instructions="be short")
    assert manual.status is CompressionStatus.COMPRESSED
    auto_run, manual_run = records(tmp_path, "pre")
    assert {k: auto_run[k] for k in ("hook_event_name", "trigger", "custom_instructions")} == {
        "hook_event_name": "PreCompact",
        "trigger": "auto",
        "custom_instructions": "",
    }
    assert auto_run["session_id"] and auto_run["cwd"] == str(ws)
    assert (manual_run["trigger"], manual_run["custom_instructions"]) == ("manual", "be short")
    (only_manual,) = records(tmp_path, "manual")  # its matcher names the manual trigger
    assert only_manual["trigger"] == "manual"
    auto_system, manual_system = _summary_system(server)
    assert auto_system == COMPRESSION_PROMPT + "\n\nAdditional Instructions:\nKeep &lt;names&gt;"
    assert manual_system.endswith("Additional Instructions:\nbe short\n\nKeep &lt;names&gt;")
    posted = records(tmp_path, "post")
    assert [(p["trigger"], p["compact_summary"]) for p in posted] == [
        ("auto", "<state_snapshot>S</state_snapshot>"),
        ("manual", "<state_snapshot>S</state_snapshot>"),
    ]


async def test_a_blocking_or_failing_pre_compact_hook_does_not_stop_compression(
    ws: Path, env: dict[str, str], tmp_path: Path
) -> None:
    bodies = {
        "exit2": "record()\nsys.stderr.write('do not compress')\nsys.exit(2)",
        "block": "record()\nprint(json.dumps({'decision': 'block', 'reason': 'no'}))",
        "crash": "record()\nraise SystemExit('crashed')",
    }
    for name, body in bodies.items():
        write_hooks(ws, {"PreCompact": [command_hook(hook_script(tmp_path, name, body))]})
        script = [Reply(content="one", usage=BIG), Reply(content=SUMMARY, usage=SMALL)]
        with FakeOpenAI([*script, Reply(content="two")]) as server:
            async with (
                Session(ws, env=env, approval_mode="yolo") as session,
                _agent(session, server) as agent,
            ):
                loop = agent.new_loop()
                await loop.send("first")
                await loop.send("second")
        assert len(records(tmp_path, name)) == 1, name
        after: list[dict[str, Any]] = server.requests[2]["messages"]
        assert [m["role"] for m in after] == ["system", "user", "assistant", "user"], name
        assert "<state_snapshot>S</state_snapshot>" in after[1]["content"][-1]["text"], name
