"""The ``task`` tool: how a subagent run ends (reasons, cancellation, crashes, refusals)."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest

from qwen_tools.config.config import Config
from qwen_tools.contract.abort import AbortController, AbortError, AbortSignal
from qwen_tools.contract.display import TaskExecutionDisplay
from qwen_tools.contract.errors import ToolErrorType
from qwen_tools.contract.results import ToolResult
from qwen_tools.subagents.protocol import (
    SubagentReport,
)
from qwen_tools.tools.task.tool import TaskTool
from support.task_runs import ScriptedRunner, run, text_of, write_agent


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = Path(os.path.realpath(tmp_path)) / "qwen-home"
    path.mkdir()
    return path


@pytest.fixture
def config(ws: Path, home: Path) -> Config:
    return Config(ws, home_dir=home)


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
    config.services.model.lend(subagent_runner=runner)
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
    config.services.model.lend(subagent_runner=ScriptedRunner())
    invocation = TaskTool(config).build({"description": "d", "prompt": "p", "subagent_type": "rev"})
    (folder / "rev.md").unlink()
    result = await invocation.execute(AbortSignal.never())
    assert result.error is not None
    assert result.error.message == (
        'Subagent "rev" not found. Available subagents: general-purpose, Explore'
    )
