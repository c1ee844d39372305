"""The ``task`` tool in tests: ``ScriptedRunner``, a model-boundary double of the agent loop
(records requests, emits progress, honours the signal), and helpers to run the tool."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import anyio

from qwen_tools.config.config import Config
from qwen_tools.contract.abort import AbortSignal
from qwen_tools.contract.display import ToolResultDisplay
from qwen_tools.contract.parts import TextPart
from qwen_tools.contract.results import ToolResult
from qwen_tools.subagents.protocol import (
    SubagentProgress,
    SubagentReport,
    SubagentRequest,
    SubagentRunner,
)
from qwen_tools.tools.task.tool import TaskTool

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
    config.services.model.lend(subagent_runner=runner)
    shown: list[ToolResultDisplay] = []
    args = {"description": "Review parser", "prompt": "Review src/parser.py", **params}
    result = await TaskTool(config).build_and_execute(args, update_output=shown.append)
    return result, shown


# -- identity, schema, description ------------------------------------------------------------
