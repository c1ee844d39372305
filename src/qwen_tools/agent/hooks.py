"""The agent's hook points: UserPromptSubmit before a prompt goes out, Stop/SubagentStop after.

* :func:`prompt_submit` — a ``block``/``deny`` decision (or ``continue: false``, or exit code 2)
  keeps the prompt from the model: the loop ends with ``✕ UserPromptSubmit operation blocked by
  hook:`` and the reason; ``additionalContext`` (``<``/``>`` escaped) is sent after the prompt as
  its own part, inside ``<qwen:user-prompt-submit-context>`` tags.
* :func:`stop_check` — when the model answers without calling a tool: a ``block`` decision (or
  ``continue: false``) makes the loop go on, the reason (``stopReason``, else ``reason``) sent as
  the next user message, at most ``QWEN_CODE_STOP_HOOK_BLOCK_CAP`` (default 8) times in a row;
  then ``Stop hook blocked continuation <N> consecutive times; overriding and ending the turn.``
  A subagent's loop fires SubagentStop (matched on its agent type) instead of Stop, and its
  cap warning is appended to the subagent's report, as in 0.24.4.
* :func:`subagent_start` — SubagentStart as a subagent starts: its ``additionalContext`` is
  added to the subagent's task after a blank line.
* :func:`pre_compact`, :func:`post_compact` — PreCompact before the conversation is compressed
  (``trigger`` ``auto`` or ``manual``, matched on it; ``custom_instructions``): only its
  ``additionalContext`` counts (it joins the summary request's instructions; a block or a failure
  changes nothing, as in 0.24.4); PostCompact after, with the summary (``compact_summary``).

Nothing here runs (or imports the hook runner) when the session has no hooks.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from qwen_tools.hooks.gate import hooks_for

if TYPE_CHECKING:
    from qwen_tools.config.config import Config
    from qwen_tools.contract.abort import AbortSignal

__all__ = [
    "CONTEXT_CLOSE",
    "CONTEXT_OPEN",
    "SubagentIdentity",
    "blocked_prompt_message",
    "post_compact",
    "pre_compact",
    "prompt_submit",
    "stop_cap",
    "stop_cap_warning",
    "stop_check",
    "subagent_start",
]

_log = logging.getLogger("qwen_tools.hooks")

CONTEXT_OPEN = "<qwen:user-prompt-submit-context>"
CONTEXT_CLOSE = "</qwen:user-prompt-submit-context>"
_DEFAULT_CAP, _MAX_CAP = 8, 100


@dataclass(frozen=True)
class SubagentIdentity:
    """Who a subagent loop is, for SubagentStop."""

    agent_id: str
    agent_type: str


def blocked_prompt_message(reason: str, prompt: str) -> str:
    """What the user sees when a UserPromptSubmit hook blocked ``prompt``."""
    return (
        f"\u2715 UserPromptSubmit operation blocked by hook:\n{reason}\n\nOriginal prompt: {prompt}"
    )


async def prompt_submit(config: Config, prompt: str) -> tuple[str | None, str | None]:
    """``(block message, context part text)`` from the UserPromptSubmit hooks (both may be None)."""
    hooks = hooks_for(config)
    if hooks is None or not hooks.has("UserPromptSubmit"):
        return None, None
    result = await hooks.fire("UserPromptSubmit", {"prompt": prompt})
    output = result.output
    if output is None:
        return None, None
    if output.is_blocking() or output.stops():
        return blocked_prompt_message(output.effective_reason(), prompt), None
    context = output.additional_context()
    return None, (f"{CONTEXT_OPEN}\n{context}\n{CONTEXT_CLOSE}" if context else None)


def stop_cap() -> int:
    """``QWEN_CODE_STOP_HOOK_BLOCK_CAP`` (1..100), else 8."""
    raw = os.environ.get("QWEN_CODE_STOP_HOOK_BLOCK_CAP", "").strip()
    try:
        value = int(raw)
    except ValueError:
        return _DEFAULT_CAP
    return min(value, _MAX_CAP) if value >= 1 else _DEFAULT_CAP


def stop_cap_warning(cap: int, subagent: bool) -> str:
    name = "SubagentStop hook" if subagent else "Stop hook"
    times = "time" if cap == 1 else "times"
    return f"{name} blocked continuation {cap} consecutive {times}; overriding and ending the turn."


async def subagent_start(config: Config, subagent: SubagentIdentity) -> str | None:
    """Fire SubagentStart (matched on the agent type): the context for the subagent's task."""
    hooks = hooks_for(config)
    if hooks is None or not hooks.has("SubagentStart"):
        return None
    result = await hooks.fire(
        "SubagentStart",
        {"agent_id": subagent.agent_id, "agent_type": subagent.agent_type},
        target=subagent.agent_type,
    )
    return result.output.additional_context() if result.output else None


async def stop_check(
    config: Config,
    last_message: str,
    active: bool,
    subagent: SubagentIdentity | None,
    signal: AbortSignal,
) -> str | None:
    """The reason to go on when a Stop (or SubagentStop) hook blocks the end of the turn."""
    hooks = hooks_for(config)
    event = "SubagentStop" if subagent is not None else "Stop"
    if hooks is None or not hooks.has(event):
        return None
    fields: dict[str, object] = {
        "stop_hook_active": active,
        "last_assistant_message": last_message or "[no response text]",
        "background_tasks": [],
        "crons": [],
    }
    target = None
    if subagent is not None:
        fields.update(
            agent_id=subagent.agent_id,
            agent_type=subagent.agent_type,
            agent_transcript_path="",
            last_assistant_message=last_message,
        )
        target = subagent.agent_type
    result = await hooks.fire(event, fields, target=target, signal=signal)
    output = result.output
    if output is None or not (output.is_blocking() or output.stops()):
        return None
    return output.effective_reason()


async def pre_compact(
    config: Config, trigger: str, instructions: str, signal: AbortSignal | None
) -> str | None:
    """Fire PreCompact: the ``additionalContext`` its hooks give (``<``/``>`` escaped)."""
    hooks = hooks_for(config)
    if hooks is None or not hooks.has("PreCompact"):
        return None
    fields = {"trigger": trigger, "custom_instructions": instructions}
    result = await hooks.fire("PreCompact", fields, target=trigger, signal=signal)
    return result.output.additional_context() if result.output else None


async def post_compact(
    config: Config, trigger: str, summary: str, signal: AbortSignal | None
) -> None:
    """Fire PostCompact after a compression (its answer is not used)."""
    hooks = hooks_for(config)
    if hooks is not None and hooks.has("PostCompact"):
        fields = {"trigger": trigger, "compact_summary": summary}
        await hooks.fire("PostCompact", fields, target=trigger, signal=signal)
