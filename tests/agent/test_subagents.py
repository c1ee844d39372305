"""``run_subagent``: a nested loop with its own prompt, tool subset, turn limit and cancellation."""

from __future__ import annotations

from pathlib import Path

import pytest

from qwen_tools import AbortController, Config
from qwen_tools.agent.session import AgentSession
from qwen_tools.model.protocol import ContentGenerator
from qwen_tools.registry.registry import ToolRegistry
from qwen_tools.subagents.protocol import SubagentProgress, SubagentRequest, SubagentRunner
from support.fake_openai import FakeOpenAI, Reply, call

from .conftest import FAST, environment_text, message_texts, model_for


def session_for(server: FakeOpenAI, config: Config, registry: ToolRegistry) -> AgentSession:
    return AgentSession(config, registry, model_for(server), policy=FAST)


async def test_session_wires_config(
    server: FakeOpenAI, config: Config, registry: ToolRegistry
) -> None:
    async with session_for(server, config, registry) as session:
        assert isinstance(config.content_generator, ContentGenerator)
        assert isinstance(config.subagent_runner, SubagentRunner)
        assert config.subagent_runner is session.subagents
    assert config.content_generator is None and config.subagent_runner is None


async def test_subagent_runs_with_its_tool_subset(
    server: FakeOpenAI, config: Config, registry: ToolRegistry, ws: Path
) -> None:
    server.script = [
        Reply(
            content="Checking.",
            tool_calls=[
                call("read_file", {"file_path": f"{ws}/notes.txt"}, "a"),
                call("write_file", {"file_path": f"{ws}/no.txt", "content": "x"}, "b"),
            ],
        ),
        Reply(content="Report: notes has three lines."),
    ]
    progress: list[SubagentProgress] = []
    request = SubagentRequest(
        name="explorer",
        system_prompt="You explore.",
        prompt="Count the lines of notes.txt",
        tools=["read_file", "glob", "task"],
    )
    async with session_for(server, config, registry) as session:
        assert "task" in registry
        report = await session.subagents.run_subagent(
            request, signal=AbortController().signal, on_progress=progress.append
        )
    assert (report.text, report.terminate_reason, report.turns, report.tool_calls) == (
        "Report: notes has three lines.",
        "GOAL",
        2,
        2,
    )
    first = server.requests[0]
    assert sorted(t["function"]["name"] for t in first["tools"]) == ["glob", "read_file"]
    assert first["messages"][0]["content"] == "You explore."
    # as in 0.24.4: the environment opens the subagent's message, without a date reminder
    assert message_texts(first["messages"][1]) == [
        environment_text(ws),
        "Count the lines of notes.txt",
    ]
    denied = server.requests[1]["messages"][-1]["content"][0]["text"]
    assert denied.startswith('Tool "write_file" not found in registry.')
    assert not (ws / "no.txt").exists()
    kinds = [(p.kind, p.tool_name, p.is_error) for p in progress]
    assert kinds == [
        ("text", None, False),
        ("tool_call", "read_file", False),
        ("tool_call", "write_file", False),
        ("tool_result", "write_file", True),  # unknown tools fail before anything runs
        ("tool_result", "read_file", False),
        ("text", None, False),
    ]
    assert progress[1].text == f'read_file({{"file_path":"{ws}/notes.txt"}})'


async def test_subagent_without_a_list_gets_everything_but_task_and_task_stop(
    server: FakeOpenAI, config: Config, registry: ToolRegistry
) -> None:
    server.script = [Reply(content="done")]
    request = SubagentRequest(name="general-purpose", system_prompt="p", prompt="go", model="other")
    async with session_for(server, config, registry) as session:
        await session.subagents.run_subagent(request, signal=AbortController().signal)
    names = {t["function"]["name"] for t in server.requests[0]["tools"]}
    assert names == set(registry.get_all_tool_names()) - {"task", "task_stop"}
    assert server.requests[0]["model"] == "other"


async def test_subagent_turn_limit(
    server: FakeOpenAI, config: Config, registry: ToolRegistry
) -> None:
    server.script = lambda _body: Reply(content="more", tool_calls=[call("glob", {"pattern": "*"})])
    request = SubagentRequest(name="x", system_prompt="p", prompt="go", max_turns=3)
    async with session_for(server, config, registry) as session:
        report = await session.subagents.run_subagent(request, signal=AbortController().signal)
    assert (report.terminate_reason, report.turns, len(server.requests)) == ("MAX_TURNS", 3, 3)


async def test_cancellation_reaches_nested_tools(
    server: FakeOpenAI, config: Config, registry: ToolRegistry, ws: Path
) -> None:
    server.script = [
        Reply(tool_calls=[call("run_shell_command", {"command": "sleep 60"}, "s")]),
    ]
    controller = AbortController()

    def on_progress(item: SubagentProgress) -> None:
        if item.kind == "tool_call":
            controller.abort("parent cancelled")

    request = SubagentRequest(name="x", system_prompt="p", prompt="go", tools=["run_shell_command"])
    async with session_for(server, config, registry) as session:
        report = await session.subagents.run_subagent(
            request, signal=controller.signal, on_progress=on_progress
        )
    assert report.terminate_reason == "CANCELLED"
    assert report.tool_calls == 1
    assert len(server.requests) == 1


async def test_subagent_api_error_is_reported(
    server: FakeOpenAI, config: Config, registry: ToolRegistry
) -> None:
    server.script = lambda _body: Reply(status=401, error={"error": {"message": "bad key"}})
    request = SubagentRequest(name="x", system_prompt="p", prompt="go")
    async with session_for(server, config, registry) as session:
        report = await session.subagents.run_subagent(request, signal=AbortController().signal)
    assert (report.terminate_reason, report.errors) == ("ERROR", ["[API Error: 401 bad key]"])


def test_registry_view_applies_the_deny_list(registry: ToolRegistry) -> None:
    from qwen_tools.agent.subagents import subagent_registry

    every = subagent_registry(registry, None)
    assert "read_file" in every and "run_shell_command" in every
    assert not {"task", "agent", "task_stop"} & set(every.get_all_tool_names())
    denied = subagent_registry(registry, None, ["run_shell_command", "write_file", "nonexistent"])
    assert "run_shell_command" not in denied and "write_file" not in denied
    assert "read_file" in denied
    listed = subagent_registry(registry, ["read_file", "edit"], ["edit"])
    assert listed.get_all_tool_names() == ["read_file"]


@pytest.mark.parametrize(
    ("parent", "agent", "trusted", "expected"),
    [
        ("yolo", "plan", True, "yolo"),
        ("auto-edit", "default", False, "auto-edit"),
        ("default", "bubble", True, "default"),
        ("default", "yolo", True, "yolo"),
        ("default", "yolo", False, "default"),
        ("plan", "auto-edit", False, "plan"),
        ("default", "plan", False, "plan"),
        ("plan", None, True, "plan"),
        ("default", None, True, "auto-edit"),
        ("default", None, False, "default"),
    ],
)
def test_subagent_approval_mode_rule(
    parent: str, agent: str | None, trusted: bool, expected: str
) -> None:
    from qwen_tools import ApprovalMode
    from qwen_tools.agent.subagents import resolve_subagent_approval_mode

    mode = resolve_subagent_approval_mode(ApprovalMode(parent), agent, trusted)
    assert mode is ApprovalMode(expected)


async def test_subagent_runs_under_its_own_mode(
    server: FakeOpenAI, ws: Path, tmp_path: Path
) -> None:
    from qwen_tools import ApprovalMode, build_registry

    config = Config(ws, approval_mode=ApprovalMode.DEFAULT, home_dir=tmp_path / "home2")
    registry = build_registry(config)
    write = call("write_file", {"file_path": f"{ws}/sub.txt", "content": "x\n"}, "w")
    server.script = [Reply(tool_calls=[write]), Reply(content="done"), Reply(tool_calls=[write])]
    server.script.append(Reply(content="refused"))
    async with session_for(server, config, registry) as session:
        signal = AbortController().signal
        # trusted folder, no mode in the definition: auto-edit, so the write needs no answer
        first = await session.subagents.run_subagent(
            SubagentRequest(name="w", system_prompt="S", prompt="write"), signal=signal
        )
        assert (ws / "sub.txt").read_text() == "x\n"
        (ws / "sub.txt").unlink()
        # the definition asks for default: nobody can answer here, so the write is refused
        second = await session.subagents.run_subagent(
            SubagentRequest(name="w", system_prompt="S", prompt="w", approval_mode="default"),
            signal=signal,
        )
    assert (first.text, second.text) == ("done", "refused")
    assert not (ws / "sub.txt").exists()
    assert config.approval_mode is ApprovalMode.DEFAULT  # the parent's mode is untouched


async def test_untrusted_workspace_content_gives_a_subagent_no_more_than_its_parent(
    server: FakeOpenAI, ws: Path, tmp_path: Path
) -> None:
    """A session whose workspace configures nothing (a pool's template) is not a trusted
    folder for the subagent rule: no auto-edit beyond the parent's default."""
    from qwen_tools import ApprovalMode, build_registry

    env = {"HOME": str(tmp_path), "QWEN_HOME": str(tmp_path / "home3")}
    config = Config.load(ws, approval_mode=ApprovalMode.DEFAULT, env=env, workspace_settings=False)
    registry = build_registry(config)
    write = call("write_file", {"file_path": f"{ws}/sub.txt", "content": "x\n"}, "w")
    server.script = [Reply(tool_calls=[write]), Reply(content="refused")]
    async with session_for(server, config, registry) as session:
        done = await session.subagents.run_subagent(
            SubagentRequest(name="w", system_prompt="S", prompt="write"),
            signal=AbortController().signal,
        )
    assert done.text == "refused"
    assert not (ws / "sub.txt").exists()
