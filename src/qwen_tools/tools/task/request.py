"""Turning a subagent definition and a ``task`` call into a :class:`SubagentRequest`.

Tool lists in definitions may use tool names, display names (``ReadFile``, ``Shell``) or
legacy names (``search_file_content``, ``SearchFiles``); they are mapped to tool names, and
names we do not know are passed on unchanged (the runner ignores tools it does not have). The
subagent never gets the ``task`` tool itself, under any of its names.
"""

from __future__ import annotations

from collections.abc import Iterable

from qwen_tools.contract.tool_names import (
    LEGACY_DISPLAY_NAMES,
    LEGACY_TOOL_NAMES,
    ToolDisplayNames,
    ToolNames,
    tool_name_for,
)
from qwen_tools.subagents.definitions import SubagentDefinition
from qwen_tools.subagents.protocol import SubagentRequest

__all__ = ["SubagentNotRunnable", "build_request", "resolve_tool_names"]

_SELF_NAMES = frozenset(
    {ToolNames.TASK, ToolDisplayNames.TASK}
    | {
        old
        for old, new in (LEGACY_TOOL_NAMES | LEGACY_DISPLAY_NAMES).items()
        if new == ToolNames.TASK
    }
)
"""The task tool under all its names (``task``, ``Task``, ``agent``, ``Agent``)."""


class SubagentNotRunnable(Exception):
    """A definition this session cannot run (reported as ``Failed to run subagent: …``)."""


def resolve_tool_names(names: Iterable[str]) -> list[str]:
    """Tool names for ``names`` (display and legacy names mapped), duplicates dropped."""
    resolved: list[str] = []
    for name in names:
        tool = tool_name_for(name)
        if tool not in resolved:
            resolved.append(tool)
    return resolved


def _tool_subset(definition: SubagentDefinition) -> list[str] | None:
    denied = set(resolve_tool_names(definition.disallowed_tools or ())) | _SELF_NAMES
    if definition.tools:
        return [t for t in resolve_tool_names(definition.tools) if t not in denied]
    return None


def build_request(definition: SubagentDefinition, prompt: str) -> SubagentRequest:
    """The runner's request for ``definition`` working on ``prompt``.

    Raises :class:`SubagentNotRunnable` for external-executor and container agents.
    """
    if definition.executor is not None:
        raise SubagentNotRunnable(
            f'Subagent "{definition.name}" declares an external executor and cannot be '
            "converted to an in-process agent."
        )
    if definition.execution_backend is not None:
        raise SubagentNotRunnable(
            f'Subagent "{definition.name}" requires a container execution environment. '
            "Refusing to run it locally."
        )
    return SubagentRequest(
        name=definition.name,
        system_prompt=definition.system_prompt,
        prompt=prompt,
        tools=_tool_subset(definition),
        disallowed_tools=sorted(
            set(resolve_tool_names(definition.disallowed_tools or ())) | _SELF_NAMES
        ),
        model=definition.model_override,
        max_turns=definition.effective_max_turns,
        approval_mode=definition.approval_mode,
    )
