"""The ``task`` tool: schema, description, validation, and runs through ``ScriptedRunner``, a
model-boundary double of the agent loop (records requests, emits progress, honours the signal).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest

from qwen_tools._agent.protocol import (
    SubagentProgress,
    SubagentReport,
    SubagentRequest,
    SubagentRunner,
)
from qwen_tools._config.config import Config
from qwen_tools._config.tool_settings import ApprovalMode
from qwen_tools._contract.abort import AbortController, AbortError, AbortSignal
from qwen_tools._contract.confirmation import (
    ToolCallConfirmationDetails,
    ToolConfirmationOutcome,
    ToolConfirmationPayload,
)
from qwen_tools._contract.display import TaskExecutionDisplay, ToolResultDisplay
from qwen_tools._contract.errors import ToolErrorType
from qwen_tools._contract.kinds import Kind
from qwen_tools._contract.parts import TextPart
from qwen_tools._contract.results import ToolResult
from qwen_tools._execution.call_types import ToolCallRequest
from qwen_tools._execution.tool_call import run_tool_call
from qwen_tools._registry.registry import ToolRegistry
from qwen_tools.builtin.task import TaskTool

PROMPT = "You review code carefully."


class ScriptedRunner:
    """A model-boundary double for the agent loop's subagent runner."""

    def __init__(
        self,
        report: SubagentReport | None = None,
        *,
        progress: Sequence[SubagentProgress] = (),
        wait_for_abort: bool = False,
        error: Exception | None = None,
    ) -> None:
        self.report = report or SubagentReport(text="All done.")
        self.progress = list(progress)
        self.wait_for_abort = wait_for_abort
        self.error = error
        self.requests: list[SubagentRequest] = []
        self.started = anyio.Event()

    async def run_subagent(
        self,
        request: SubagentRequest,
        *,
        signal: AbortSignal,
        on_progress: Callable[[SubagentProgress], None] | None = None,
    ) -> SubagentReport:
        self.requests.append(request)
        for notice in self.progress:
            if on_progress is not None:
                on_progress(notice)
        self.started.set()
        if self.wait_for_abort:
            await signal.wait()
            return SubagentReport(text="half of it", terminate_reason="CANCELLED")
        if self.error is not None:
            raise self.error
        return self.report


def write_agent(folder: Path, file: str, front: str, body: str = PROMPT) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / file).write_text(f"---\n{front}\n---\n{body}\n", encoding="utf-8")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = Path(os.path.realpath(tmp_path)) / "qwen-home"
    path.mkdir()
    return path


@pytest.fixture
def config(ws: Path, home: Path) -> Config:
    return Config(ws, home_dir=home)


def text_of(result: ToolResult) -> str:
    content = result.llm_content
    if isinstance(content, str):
        return content
    assert isinstance(content, list) and len(content) == 1
    assert isinstance(content[0], TextPart)
    return content[0].text


async def run(
    config: Config, runner: SubagentRunner | None, **params: Any
) -> tuple[ToolResult, list[ToolResultDisplay]]:
    config.subagent_runner = runner
    shown: list[ToolResultDisplay] = []
    args = {"description": "Review parser", "prompt": "Review src/parser.py", **params}
    result = await TaskTool(config).build_and_execute(args, update_output=shown.append)
    return result, shown


# -- identity, schema, description ------------------------------------------------------------


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
    config.subagent_runner = ScriptedRunner()
    invocation = TaskTool(config).build({"description": "Review parser", "prompt": "p"})
    assert invocation.get_description() == "Review parser"
    details = await invocation.should_confirm_execute(AbortSignal.never())
    assert details is not False
    assert details.to_dict()["type"] == "info"
    assert details.to_dict()["prompt"] == "Review parser"


async def test_scheduler_asks_in_default_mode_and_runs_through_the_alias(config: Config) -> None:
    runner = ScriptedRunner(SubagentReport(text="Found two bugs."))
    config.subagent_runner = runner
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


NO_OUTPUT = "(subagent produced no model-visible output)"
PARTIAL = "Agent was cancelled by the user. Partial result follows:\n\n"


@pytest.mark.parametrize(
    ("text", "reason", "expected"),
    [
        ("  Done.  ", "GOAL", "Done."),
        ("", "GOAL", NO_OUTPUT),
        ("<analysis>scratch</analysis>\n<summary>Fixed it.</summary>", "GOAL", "Fixed it."),
        ("A <analysis>x<analysis>y</analysis></analysis> B", "GOAL", "A B"),
        ("<summary>S <analysis>n</analysis> T</summary>", "GOAL", "S T"),
        ("x <analysis>open <summary>kept</summary>", "GOAL", "x kept"),
        ("Keep <analysis>never closed", "GOAL", "Keep"),
        ("Partial <analysis>x</analysis>", "MAX_TURNS", "Partial <analysis>x</analysis>"),
        ("", "MAX_TURNS", NO_OUTPUT),
        ("", "ERROR", "Subagent execution failed."),
        ("Quota hit", "ERROR", "Quota hit"),
        ("", "CANCELLED", PARTIAL + "(no partial result captured)"),
    ],
)
async def test_terminate_reasons(config: Config, text: str, reason: str, expected: str) -> None:
    result, _ = await run(config, ScriptedRunner(SubagentReport(text, terminate_reason=reason)))
    assert result.error is None
    assert text_of(result) == expected
    assert isinstance(result.return_display, TaskExecutionDisplay)
    assert result.return_display.status == ("completed" if reason == "GOAL" else "failed")
    assert result.return_display.terminate_reason == reason


async def test_cancellation_reaches_the_runner(config: Config) -> None:
    runner = ScriptedRunner(wait_for_abort=True)
    config.subagent_runner = runner
    invocation = TaskTool(config).build({"description": "Long job", "prompt": "p"})
    controller = AbortController()
    results: list[ToolResult] = []

    async def execute() -> None:
        results.append(await invocation.execute(controller.signal))

    async with anyio.create_task_group() as group:
        group.start_soon(execute)
        await runner.started.wait()
        controller.abort()
    (result,) = results
    assert text_of(result) == PARTIAL + "half of it"
    assert isinstance(result.return_display, TaskExecutionDisplay)
    assert result.return_display.status == "cancelled"
    assert result.return_display.terminate_reason == "Agent was cancelled by user"


async def test_runner_raising_abort_error_counts_as_cancelled(config: Config) -> None:
    result, _ = await run(config, ScriptedRunner(error=AbortError("stop")))
    assert text_of(result).startswith("Agent was cancelled by the user.")


async def test_runner_crash_is_a_failed_call(config: Config) -> None:
    result, shown = await run(config, ScriptedRunner(error=RuntimeError("model unreachable")))
    assert result.error is not None
    assert result.error.message == "Failed to run subagent: model unreachable"
    assert result.error.type is ToolErrorType.EXECUTION_FAILED
    assert isinstance(shown[-1], TaskExecutionDisplay)
    assert shown[-1].status == "failed"
    assert shown[-1].terminate_reason == "Failed to run subagent: model unreachable"


@pytest.mark.parametrize(
    ("front", "reason"),
    [
        (
            "executor: {kind: codex, command: codex}",
            'Subagent "ext" declares an external executor and cannot be converted to an '
            "in-process agent.",
        ),
        (
            "executionBackend: container",
            'Subagent "ext" requires a container execution environment. Refusing to run it '
            "locally.",
        ),
    ],
)
async def test_definitions_this_session_cannot_run(
    config: Config, ws: Path, front: str, reason: str
) -> None:
    write_agent(ws / ".qwen" / "agents", "ext.md", f"name: ext\ndescription: d\n{front}")
    runner = ScriptedRunner()
    result, _ = await run(config, runner, subagent_type="ext")
    assert result.error is not None
    assert result.error.message.startswith(f"Failed to run subagent: {reason}")
    assert runner.requests == []


async def test_subagent_removed_after_validation(config: Config, ws: Path) -> None:
    folder = ws / ".qwen" / "agents"
    write_agent(folder, "rev.md", "name: rev\ndescription: d")
    config.subagent_runner = ScriptedRunner()
    invocation = TaskTool(config).build({"description": "d", "prompt": "p", "subagent_type": "rev"})
    (folder / "rev.md").unlink()
    result = await invocation.execute(AbortSignal.never())
    assert result.error is not None
    assert result.error.message == (
        'Subagent "rev" not found. Available subagents: general-purpose, Explore'
    )
