"""What the ``task`` tool asks of the agent loop: run a subagent to completion.

The agent session lends an object with this shape to ``Config.services.model`` (read as
``Config.subagent_runner``) while it runs; the ``task`` tool only knows this protocol, so it does not import the loop.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from qwen_tools.contract.abort import AbortSignal


@dataclass(frozen=True)
class SubagentRequest:
    """One subagent run: its own system prompt, task, tool subset and limits."""

    name: str
    """The subagent's name (``general-purpose`` or a definition's ``name``)."""
    system_prompt: str
    """The subagent's system prompt (its definition's Markdown body)."""
    prompt: str
    """The task handed over by the parent model."""
    tools: Sequence[str] | None = None
    """Tool names the subagent may use; ``None`` means every tool but ``task`` itself."""
    disallowed_tools: Sequence[str] = ()
    """Tool names withheld from the subagent (applied after ``tools``; unknown names ignored)."""
    model: str | None = None
    """A model name overriding the session's, or ``None`` to inherit it."""
    max_turns: int | None = None
    """Turn limit for the nested loop (``None``: the runner's default)."""
    approval_mode: str | None = None
    """The definition's ``approvalMode`` (``plan``, ``default``, ``auto-edit``, ``auto``,
    ``yolo`` or ``bubble``), or ``None``; the runner combines it with the session's mode."""


@dataclass
class SubagentProgress:
    """A progress notice from a running subagent (fed to the task tool's ``update_output``)."""

    kind: str
    """``text`` (model text), ``tool_call`` (a call started) or ``tool_result`` (it finished)."""
    text: str
    """Human-readable content: the text, or ``name(args)`` / the result summary."""
    tool_name: str | None = None
    call_id: str | None = None
    is_error: bool = False


@dataclass
class SubagentReport:
    """How a subagent run ended."""

    text: str
    """The subagent's final answer (its report to the parent)."""
    terminate_reason: str = "GOAL"
    """``GOAL`` (answered), ``MAX_TURNS``, ``CANCELLED`` or ``ERROR``."""
    turns: int = 0
    tool_calls: int = 0
    errors: list[str] = field(default_factory=list)


@runtime_checkable
class SubagentRunner(Protocol):
    """Runs nested agent loops for the ``task`` tool."""

    async def run_subagent(
        self,
        request: SubagentRequest,
        *,
        signal: AbortSignal,
        on_progress: Callable[[SubagentProgress], None] | None = None,
    ) -> SubagentReport:
        """Run ``request`` to completion; cancellation through ``signal`` reaches nested tools."""
        ...
