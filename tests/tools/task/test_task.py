"""The ``task`` tool: schema, description, validation, requests and progress (``ScriptedRunner``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from qwen_tools.config.config import Config
from qwen_tools.config.tool_settings import ApprovalMode
from qwen_tools.contract.abort import AbortSignal
from qwen_tools.contract.confirmation import (
    ToolCallConfirmationDetails,
    ToolConfirmationOutcome,
    ToolConfirmationPayload,
)
from qwen_tools.contract.display import TaskExecutionDisplay, ToolResultDisplay
from qwen_tools.contract.errors import ToolErrorType
from qwen_tools.contract.kinds import Kind
from qwen_tools.execution.call_types import ToolCallRequest
from qwen_tools.execution.tool_call import run_tool_call
from qwen_tools.registry.registry import ToolRegistry
from qwen_tools.subagents.protocol import (
    SubagentProgress,
    SubagentReport,
)
from qwen_tools.tools.task.tool import TaskTool
from support.task_runs import PROMPT, ScriptedRunner, run, write_agent


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = Path(os.path.realpath(tmp_path)) / "qwen-home"
    path.mkdir()
    return path


@pytest.fixture
def config(ws: Path, home: Path) -> Config:
    return Config(ws, home_dir=home)


def test_identity_and_schema(config: Config) -> None:
    tool = TaskTool(config)
    assert (tool.name, tool.display_name, tool.kind) == ("task", "Task", Kind.AGENT)
    assert tool.can_update_output and tool.is_output_markdown
    assert tool.is_concurrency_safe({})
    assert (tool.max_output_chars, tool.truncate_keep) == (32_000, "tail")
    schema = tool.schema.to_dict()["parametersJsonSchema"]
    assert list(schema["properties"]) == ["description", "prompt", "subagent_type"]
    assert schema["required"] == ["description", "prompt"]
    assert "additionalProperties" not in schema  # 0.24.4 ignores unknown keys


def test_agent_alias_reaches_the_tool(config: Config) -> None:
    tool = TaskTool(config)
    assert ToolRegistry([tool]).get_tool("agent") is tool


def test_description_lists_subagents_and_follows_files(config: Config, home: Path) -> None:
    tool = TaskTool(config)
    assert "- **general-purpose**: Does open-ended work" in tool.description
    assert "- **Explore**: Fast, read-only codebase explorer" in tool.description
    assert "rev" not in tool.description
    write_agent(home / "agents", "rev.md", "name: rev\ndescription: Reviews diffs")
    listing = [line for line in tool.schema.description.splitlines() if line.startswith("- **")]
    assert listing[0] == "- **rev**: Reviews diffs"
    assert [line.split("**")[1] for line in listing] == ["rev", "general-purpose", "Explore"]


def _empty(key: str) -> str:
    return f'Parameter "{key}" must be a non-empty string.'


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"prompt": "x"}, _empty("description")),
        ({"description": "d"}, _empty("prompt")),
        ({"description": 5, "prompt": "p"}, _empty("description")),
        ({"description": "d", "prompt": " "}, _empty("prompt")),
        ({"description": "\t", "prompt": "p"}, _empty("description")),
        ({"description": "d", "prompt": "p", "subagent_type": " "}, _empty("subagent_type")),
        ({"description": "d", "prompt": "p", "subagent_type": 5}, _empty("subagent_type")),
        (
            {"description": "d", "prompt": "p", "subagent_type": "nope"},
            'Subagent "nope" not found. Available subagents: general-purpose, Explore',
        ),
        ({"description": "d", "prompt": "p", "run_in_background": False, "x": 1}, None),
    ],
)
def test_validation_messages(config: Config, args: dict[str, Any], message: str | None) -> None:
    """The reference's own checks replace the schema pass (qwen-diff issue6 calls 26-32)."""
    assert TaskTool(config).validate_tool_params(args) == message


def test_subagent_type_is_case_insensitive(config: Config, ws: Path) -> None:
    write_agent(ws / ".qwen" / "agents", "rev.md", "name: rev\ndescription: Reviews")
    tool = TaskTool(config)
    assert (
        tool.validate_tool_params({"description": "d", "prompt": "p", "subagent_type": "REV"})
        is None
    )
    assert tool.validate_tool_params({"description": "d", "prompt": "p", "subagent_type": "x"}) == (
        'Subagent "x" not found. Available subagents: rev, general-purpose, Explore'
    )


# -- confirmation and the no-model case ---------------------------------------------------------


async def test_without_runner_fails_with_a_typed_error(config: Config) -> None:
    tool = TaskTool(config)
    invocation = tool.build({"description": "Review parser", "prompt": "p"})
    assert await invocation.should_confirm_execute(AbortSignal.never()) is False
    result, shown = await run(config, None)
    assert result.error is not None
    assert result.error.type is ToolErrorType.EXECUTION_FAILED
    assert result.error.message.startswith("Subagents are unavailable: no model is configured")
    assert isinstance(result.return_display, TaskExecutionDisplay)
    assert result.return_display.status == "failed"
    assert shown == []


async def test_confirmation_is_an_info_prompt(config: Config) -> None:
    config.services.model.lend(subagent_runner=ScriptedRunner())
    invocation = TaskTool(config).build({"description": "Review parser", "prompt": "p"})
    assert invocation.get_description() == "Review parser"
    details = await invocation.should_confirm_execute(AbortSignal.never())
    assert details is not False
    assert details.to_dict()["type"] == "info"
    assert details.to_dict()["prompt"] == "Review parser"


async def test_scheduler_asks_in_default_mode_and_runs_through_the_alias(config: Config) -> None:
    runner = ScriptedRunner(SubagentReport(text="Found two bugs."))
    config.services.model.lend(subagent_runner=runner)
    asked: list[ToolCallConfirmationDetails] = []

    async def confirm(
        request: ToolCallRequest, details: ToolCallConfirmationDetails
    ) -> tuple[ToolConfirmationOutcome, ToolConfirmationPayload | None]:
        asked.append(details)
        return ToolConfirmationOutcome.PROCEED_ONCE, None

    shown: list[ToolResultDisplay] = []
    registry = ToolRegistry([TaskTool(config)])
    request = ToolCallRequest("agent", {"description": "Find bugs", "prompt": "Look for bugs"})
    done = await run_tool_call(
        registry, config, request, confirm=confirm, update_output=shown.append
    )
    assert done.response_text == "Found two bugs."
    assert len(asked) == 1
    assert shown and all(isinstance(item, TaskExecutionDisplay) for item in shown)

    refused = await run_tool_call(registry, config, request)
    assert refused.error_type is ToolErrorType.EXECUTION_DENIED
    assert len(runner.requests) == 1
    config.approval_mode = ApprovalMode.YOLO
    done = await run_tool_call(registry, config, request)
    assert done.response_text == "Found two bugs."


# -- running ------------------------------------------------------------------------------------


async def test_request_for_the_default_subagent(config: Config) -> None:
    runner = ScriptedRunner()
    await run(config, runner)
    (request,) = runner.requests
    assert request.name == "general-purpose"
    assert request.prompt == "Review src/parser.py"
    assert request.system_prompt.startswith("You are a subagent")
    assert (request.tools, request.model, request.max_turns) == (None, None, None)
    await run(config, runner, subagent_type="explore")
    assert runner.requests[1].name == "Explore"
    assert "read_file" in (runner.requests[1].tools or ())
    assert "write_file" not in (runner.requests[1].tools or ())


async def test_request_from_a_definition(config: Config, home: Path) -> None:
    write_agent(
        home / "agents",
        "rev.md",
        "name: rev\ndescription: Reviews\ntools: ReadFile, grep_search, Shell, task, Agent\n"
        "disallowedTools: [run_shell_command]\nmodel: qwen3-coder\nmaxTurns: 4",
    )
    runner = ScriptedRunner()
    await run(config, runner, subagent_type="Rev")
    (request,) = runner.requests
    assert request.name == "rev"
    assert request.system_prompt == PROMPT
    assert list(request.tools or ()) == ["read_file", "grep_search"]
    assert (request.model, request.max_turns) == ("qwen3-coder", 4)


async def test_deny_list_without_a_tool_list_goes_to_the_runner(config: Config, ws: Path) -> None:
    write_agent(
        ws / ".qwen" / "agents",
        "ro.md",
        "name: ro\ndescription: d\ndisallowedTools: Shell\napprovalMode: plan",
    )
    runner = ScriptedRunner()
    await run(config, runner, subagent_type="ro")
    (request,) = runner.requests
    assert request.tools is None
    assert {"run_shell_command", "task", "agent"} <= set(request.disallowed_tools)
    assert request.approval_mode == "plan"


async def test_progress_reaches_update_output(config: Config) -> None:
    progress = [
        SubagentProgress("text", "Let me look."),
        SubagentProgress("tool_call", "read_file(parser.py)", tool_name="read_file", call_id="c1"),
        SubagentProgress("tool_call", "grep_search(TODO)", tool_name="grep_search", call_id="c2"),
        SubagentProgress("tool_result", "120 lines", tool_name="read_file", call_id="c1"),
        SubagentProgress("tool_result", "bad regex", tool_name="grep_search", is_error=True),
    ]
    runner = ScriptedRunner(SubagentReport(text="Report."), progress=progress)
    result, shown = await run(config, runner)
    assert all(isinstance(item, TaskExecutionDisplay) for item in shown)
    states = [item.to_dict() for item in shown if isinstance(item, TaskExecutionDisplay)]
    assert [s["status"] for s in states] == ["running"] * 5 + ["completed"]
    assert "toolCalls" not in states[0]
    assert states[1]["toolCalls"] == [
        {
            "callId": "c1",
            "name": "read_file",
            "status": "executing",
            "description": "read_file(parser.py)",
        }
    ]
    final_calls = states[-1]["toolCalls"]
    assert [(c["name"], c["status"]) for c in final_calls] == [
        ("read_file", "success"),
        ("grep_search", "failed"),
    ]
    assert final_calls[0]["resultDisplay"] == "120 lines"
    assert final_calls[1]["error"] == "bad regex"
    assert states[-1]["terminateReason"] == "GOAL"
    assert states[-1]["result"] == "Report."
    assert result.return_display == shown[-1]
