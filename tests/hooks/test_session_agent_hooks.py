"""SessionStart/SessionEnd around a Session, UserPromptSubmit/Stop/SubagentStop in the agent loop
(against the scripted fake model server), and laziness when no hook is configured."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from qwen_tools import AbortController, Session
from qwen_tools.agent.events import StopReason
from qwen_tools.agent.session import AgentSession
from qwen_tools.model.model_config import ModelConfig
from qwen_tools.model.retry import RetryPolicy
from qwen_tools.subagents.protocol import SubagentRequest
from support.fake_openai import FakeOpenAI, Reply

from .conftest import command_hook, hook_script, records, write_hooks

FAST = RetryPolicy(attempts=1, initial_delay_s=0.001, max_delay_s=0.002)


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


def _agent(session: Session, server: FakeOpenAI) -> AgentSession:
    model = ModelConfig(model="fake-model", api_key="sk-test", base_url=server.url)
    return AgentSession(session.config, session.registry, model, policy=FAST, system_prompt="SYS")


def _texts(message: dict[str, object]) -> list[str]:
    content = message["content"]
    if isinstance(content, str):
        return [content]
    assert isinstance(content, list)
    return [part["text"] for part in content]


async def test_session_start_context_reaches_the_system_prompt_and_session_end_fires(
    ws: Path, env: dict[str, str], tmp_path: Path, server: FakeOpenAI
) -> None:
    start = hook_script(tmp_path, "start", "record()\nprint('Use <tabs>.')")
    end = hook_script(tmp_path, "end", "record()")
    write_hooks(
        ws,
        {
            "SessionStart": [command_hook(start, "startup")],
            "SessionEnd": [command_hook(end)],
        },
    )
    server.script = [Reply(content="ok")]
    async with Session(ws, env=env, approval_mode="yolo") as session:
        (started,) = records(tmp_path, "start")
        async with _agent(session, server) as agent:
            finished = await agent.new_loop().send("hi")
        assert records(tmp_path, "end") == []
    assert finished.reason is StopReason.GOAL
    assert (started["hook_event_name"], started["source"], started["model"]) == (
        "SessionStart",
        "startup",
        "",
    )
    system = server.requests[0]["messages"][0]["content"]
    assert system == (
        'SYS\n\n<qwen:session-start-context hidden="true">\nSessionStart additional context:\n'
        "Use &lt;tabs&gt;.\n</qwen:session-start-context>"
    )
    (ended,) = records(tmp_path, "end")
    assert (ended["hook_event_name"], ended["reason"]) == ("SessionEnd", "other")
    assert ended["session_id"] == started["session_id"]


async def test_user_prompt_submit_adds_context_or_blocks(
    ws: Path, env: dict[str, str], tmp_path: Path, server: FakeOpenAI
) -> None:
    context = hook_script(
        tmp_path,
        "ctx",
        "record()\nprint(json.dumps({'hookSpecificOutput': {'additionalContext': 'be brief'}}))",
    )
    write_hooks(ws, {"UserPromptSubmit": [command_hook(context)]})
    server.script = [Reply(content="ok")]
    async with (
        Session(ws, env=env, approval_mode="yolo") as session,
        _agent(session, server) as agent,
    ):
        await agent.new_loop().send("what now?")
    user = server.requests[0]["messages"][1]
    assert _texts(user)[-2:] == [
        "what now?",
        "<qwen:user-prompt-submit-context>\nbe brief\n</qwen:user-prompt-submit-context>",
    ]
    assert records(tmp_path, "ctx")[0]["prompt"] == "what now?"

    block = hook_script(tmp_path, "block", "sys.stderr.write('no secrets')\nsys.exit(2)")
    write_hooks(ws, {"UserPromptSubmit": [command_hook(block)]})
    async with (
        Session(ws, env=env, approval_mode="yolo") as session,
        _agent(session, server) as agent,
    ):
        finished = await agent.new_loop().send("my password is x")
    assert finished.reason is StopReason.ERROR and len(server.requests) == 1
    assert finished.error == (
        "\u2715 UserPromptSubmit operation blocked by hook:\nno secrets\n\n"
        "Original prompt: my password is x"
    )


async def test_stop_hook_sends_the_model_back_once(
    ws: Path, env: dict[str, str], tmp_path: Path, server: FakeOpenAI
) -> None:
    stop = hook_script(
        tmp_path,
        "stop",
        "record()\n"
        "if not data['stop_hook_active']:\n"
        "    print(json.dumps({'decision': 'block', 'reason': 'Run the tests first.'}))",
    )
    write_hooks(ws, {"Stop": [command_hook(stop)]})
    server.script = [Reply(content="done"), Reply(content="tests pass")]
    async with (
        Session(ws, env=env, approval_mode="yolo") as session,
        _agent(session, server) as agent,
    ):
        finished = await agent.new_loop().send("fix it")
    assert (finished.reason, finished.text, finished.turns) == (StopReason.GOAL, "tests pass", 2)
    assert _texts(server.requests[1]["messages"][-1]) == ["Run the tests first."]
    seen = records(tmp_path, "stop")
    assert [(r["stop_hook_active"], r["last_assistant_message"]) for r in seen] == [
        (False, "done"),
        (True, "tests pass"),
    ]


async def test_a_stop_hook_that_always_blocks_is_capped(
    ws: Path,
    env: dict[str, str],
    tmp_path: Path,
    server: FakeOpenAI,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("QWEN_CODE_STOP_HOOK_BLOCK_CAP", "3")
    stop = hook_script(
        tmp_path, "stop", "print(json.dumps({'continue': False, 'stopReason': 'more'}))"
    )
    write_hooks(ws, {"Stop": [command_hook(stop)]})
    server.script = [Reply(content=f"answer {i}") for i in range(5)]
    async with (
        Session(ws, env=env, approval_mode="yolo") as session,
        _agent(session, server) as agent,
    ):
        finished = await agent.new_loop().send("go")
    assert finished.reason is StopReason.GOAL and len(server.requests) == 3


async def test_subagent_stop_fires_for_subagents_with_their_type(
    ws: Path, env: dict[str, str], tmp_path: Path, server: FakeOpenAI
) -> None:
    sub = hook_script(
        tmp_path,
        "sub",
        "record()\n"
        "if not data['stop_hook_active']:\n"
        "    print(json.dumps({'decision': 'block', 'reason': 'double-check'}))",
    )
    main = hook_script(tmp_path, "main", "record()")
    write_hooks(
        ws,
        {"SubagentStop": [command_hook(sub, "^helper$")], "Stop": [command_hook(main)]},
    )
    server.script = [Reply(content="first"), Reply(content="checked")]
    async with (
        Session(ws, env=env, approval_mode="yolo") as session,
        _agent(session, server) as agent,
    ):
        report = await agent.subagents.run_subagent(
            SubagentRequest(name="helper", system_prompt="You help.", prompt="look"),
            signal=AbortController().signal,
        )
    assert report.text == "checked"
    first, second = records(tmp_path, "sub")
    assert (first["hook_event_name"], first["agent_type"]) == ("SubagentStop", "helper")
    assert first["agent_id"].startswith("helper-") and second["stop_hook_active"] is True
    assert records(tmp_path, "main") == []


def test_a_session_without_hooks_never_imports_the_runner(ws: Path, env: dict[str, str]) -> None:
    script = (
        "import asyncio, json, sys\n"
        "from qwen_tools import Session\n"
        "async def main():\n"
        "    async with Session(sys.argv[1], approval_mode='yolo') as s:\n"
        "        done = await s.call('read_file', {'file_path': sys.argv[1] + '/notes.txt'})\n"
        "    assert done.status == 'success', done\n"
        "asyncio.run(main())\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('qwen_tools.hooks'))))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script, str(ws)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert set(json.loads(out.stdout)) <= {"qwen_tools.hooks", "qwen_tools.hooks.gate"}


async def test_subagent_start_context_and_the_subagent_stop_cap(
    ws: Path,
    env: dict[str, str],
    tmp_path: Path,
    server: FakeOpenAI,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("QWEN_CODE_STOP_HOOK_BLOCK_CAP", "2")
    start = hook_script(
        tmp_path,
        "start",
        "record()\nprint(json.dumps({'hookSpecificOutput': {'additionalContext': 'stay read-only'}}))",
    )
    stop = hook_script(
        tmp_path, "stop", "print(json.dumps({'decision': 'block', 'reason': 'again'}))"
    )
    write_hooks(
        ws,
        {
            "SubagentStart": [command_hook(start, "Explore|helper")],
            "SubagentStop": [command_hook(stop)],
        },
    )
    server.script = [Reply(content="one"), Reply(content="two"), Reply(content="three")]
    async with (
        Session(ws, env=env, approval_mode="yolo") as session,
        _agent(session, server) as agent,
    ):
        report = await agent.subagents.run_subagent(
            SubagentRequest(name="helper", system_prompt="You help.", prompt="look"),
            signal=AbortController().signal,
        )
    (started,) = records(tmp_path, "start")
    assert (started["hook_event_name"], started["agent_type"]) == ("SubagentStart", "helper")
    assert _texts(server.requests[0]["messages"][1])[-1] == "look\n\nstay read-only"
    assert len(server.requests) == 2
    assert report.text == (
        "two\n\nSubagentStop hook blocked continuation 2 consecutive times; "
        "overriding and ending the turn."
    )
