"""Subagents for the ``task`` tool: nested agent loops with their own prompt, tools and limit.

:class:`LoopSubagentRunner` implements :class:`~qwen_tools.subagents.protocol.SubagentRunner`.
A subagent gets a registry view holding only the tools its request names (every tool when it
names none), never the ``task`` tool itself, so subagents cannot spawn subagents. It shares
the session's client, statistics and confirmation handler; its system prompt is the
definition's prompt, and its first message opens with the environment reminder (as 0.24.4's
subagents get it, without the main conversation's current-date reminder); the parent's abort
signal reaches its model requests and its tools. Progress goes to ``on_progress`` as it happens.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from qwen_tools.agent.events import (
    AgentEvent,
    Finished,
    ModelTurn,
    StopReason,
    ToolCallFinished,
    ToolCallScheduled,
)
from qwen_tools.config.tool_settings import ApprovalMode
from qwen_tools.contract.abort import AbortSignal
from qwen_tools.contract.tool_names import LEGACY_TOOL_NAMES, ToolNames
from qwen_tools.model.json_args import dumps_arguments
from qwen_tools.registry.registry import ToolRegistry
from qwen_tools.subagents.protocol import SubagentProgress, SubagentReport, SubagentRequest

if TYPE_CHECKING:
    from qwen_tools.agent.events import EventHandler
    from qwen_tools.agent.loop import AgentLoop
    from qwen_tools.config.config import Config
    from qwen_tools.model.model_config import ModelConfig

__all__ = [
    "SUBAGENT_EXCLUDED_TOOLS",
    "LoopSubagentRunner",
    "resolve_subagent_approval_mode",
    "subagent_registry",
]

SUBAGENT_EXCLUDED_TOOLS = frozenset(
    {ToolNames.TASK, ToolNames.TASK_STOP}
    | {legacy for legacy, name in LEGACY_TOOL_NAMES.items() if name == ToolNames.TASK}
)
"""Tools a subagent never gets: the subagent launcher (both names) and, as in 0.24.4, task_stop."""

DEFAULT_MAX_TURNS = 100
_SUMMARY_LIMIT = 300

_REASONS = {
    StopReason.GOAL: "GOAL",
    StopReason.MAX_TURNS: "MAX_TURNS",
    StopReason.CANCELLED: "CANCELLED",
    StopReason.ERROR: "ERROR",
}


def subagent_registry(
    parent: ToolRegistry, names: Sequence[str] | None, denied: Sequence[str] = ()
) -> ToolRegistry:
    """The named tools of ``parent`` (all when ``names`` is ``None``) minus ``denied`` and ``task``.

    Names are resolved as the registry resolves them (legacy names and aliases included); unknown
    names are skipped.
    """
    excluded = set(SUBAGENT_EXCLUDED_TOOLS)
    for name in denied:
        tool = parent.get_tool(name)
        excluded.add(tool.name if tool is not None else name)
    if names is None:
        chosen = [t for t in parent.get_all_tools() if t.name not in excluded]
    else:
        chosen = []
        for name in names:
            tool = parent.get_tool(name)
            if tool is not None and tool.name not in excluded and tool not in chosen:
                chosen.append(tool)
    return ToolRegistry(chosen)


def resolve_subagent_approval_mode(
    parent: ApprovalMode, agent: str | None, trusted: bool
) -> ApprovalMode:
    """The approval mode a subagent runs under, by 0.24.4's rule.

    A parent in ``yolo``, ``auto-edit`` or ``auto`` passes its mode down; ``bubble`` means
    ``default`` (the parent's user answers); otherwise the definition's mode applies, except that
    an untrusted folder never gets a more permissive mode than the parent's; without one, a
    ``plan`` parent gives ``plan``, a trusted folder ``auto-edit``, else the parent's mode.
    """
    if parent in (ApprovalMode.YOLO, ApprovalMode.AUTO_EDIT, ApprovalMode.AUTO):
        return parent
    if agent == "bubble":
        return ApprovalMode.DEFAULT
    if agent:
        permissive = agent in ("yolo", "auto-edit", "auto")
        if permissive and not trusted:
            return parent
        return ApprovalMode.parse(agent)
    if parent is ApprovalMode.PLAN:
        return ApprovalMode.PLAN
    return ApprovalMode.AUTO_EDIT if trusted else parent


def _summary(text: str) -> str:
    text = text.strip()
    return text if len(text) <= _SUMMARY_LIMIT else text[: _SUMMARY_LIMIT - 3] + "..."


class LoopHost(Protocol):
    """What a subagent needs of the session that starts it (an ``AgentSession``)."""

    @property
    def config(self) -> Config: ...
    @property
    def registry(self) -> ToolRegistry: ...
    @property
    def model(self) -> ModelConfig: ...

    def new_loop(
        self,
        *,
        on_event: EventHandler | None = None,
        max_turns: int = -1,
        registry: ToolRegistry | None = None,
        system_prompt: str | None = None,
        model: ModelConfig | None = None,
        date_reminders: bool = True,
        config: Config | None = None,
    ) -> AgentLoop: ...


class LoopSubagentRunner:
    """Runs subagents as nested :class:`~qwen_tools.agent.loop.AgentLoop` instances."""

    def __init__(self, session: LoopHost, *, default_max_turns: int = DEFAULT_MAX_TURNS) -> None:
        self.session = session
        self.default_max_turns = default_max_turns

    async def run_subagent(
        self,
        request: SubagentRequest,
        *,
        signal: AbortSignal,
        on_progress: Callable[[SubagentProgress], None] | None = None,
    ) -> SubagentReport:
        """Run ``request`` to completion and report how it ended (never raises for model errors)."""
        session = self.session
        registry = subagent_registry(session.registry, request.tools, request.disallowed_tools)
        model = session.model.with_model(request.model) if request.model else session.model

        def relay(event: AgentEvent) -> None:
            if on_progress is None:
                return
            if isinstance(event, ModelTurn) and event.completion.text.strip():
                on_progress(SubagentProgress("text", event.completion.text))
            elif isinstance(event, ToolCallScheduled):
                call = event.request
                text = f"{call.name}({dumps_arguments(call.args)})"
                on_progress(SubagentProgress("tool_call", text, call.name, call.call_id))
            elif isinstance(event, ToolCallFinished):
                done = event.completed
                on_progress(
                    SubagentProgress(
                        "tool_result",
                        _summary(done.response_text),
                        done.request.name,
                        done.request.call_id,
                        is_error=done.status != "success",
                    )
                )

        max_turns = request.max_turns if request.max_turns is not None else self.default_max_turns
        parent = session.config
        loaded = parent.loaded_settings
        # a workspace whose content configures nothing (a pool's template) is not trusted here
        trusted = (loaded.trusted if loaded else True) and parent.workspace_settings
        mode = resolve_subagent_approval_mode(parent.approval_mode, request.approval_mode, trusted)
        config = parent
        if mode is not parent.approval_mode:
            config = copy.copy(parent)  # same workspace and session state, its own mode
            config.approval_mode = mode
        loop = session.new_loop(
            config=config,
            on_event=relay,
            max_turns=max_turns,
            registry=registry,
            system_prompt=request.system_prompt,
            model=model,
            date_reminders=False,
        )
        from qwen_tools.agent.hooks import SubagentIdentity, subagent_start

        loop.subagent = SubagentIdentity(f"{request.name}-{os.urandom(4).hex()}", request.name)
        prompt = request.prompt
        start_context = await subagent_start(config, loop.subagent)
        if start_context:
            prompt = f"{prompt}\n\n{start_context}"
        finished: Finished = await loop.send(prompt, signal=signal)
        text = finished.text
        if loop.stop_warning:  # the SubagentStop cap: the parent model is told
            text = f"{text}\n\n{loop.stop_warning}" if text else loop.stop_warning
        return SubagentReport(
            text=text,
            terminate_reason=_REASONS[finished.reason],
            turns=finished.turns,
            tool_calls=finished.tool_calls,
            errors=[finished.error] if finished.error else [],
        )
