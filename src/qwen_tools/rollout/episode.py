"""One task's agent run next to its session: the loop, its limits and what the record keeps.

:func:`run_episode` is what a pool worker (or the local host) runs with the task's session; it
returns plain JSON-ready data (no live objects cross a process).
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from qwen_tools.agent.events import AgentEvent, StopReason, ToolCallFinished, TurnFinished
from qwen_tools.agent.session import AgentSession
from qwen_tools.contract.abort import AbortController

if TYPE_CHECKING:
    from qwen_tools.execution.call_types import CompletedToolCall
    from qwen_tools.model.model_config import ModelConfig
    from qwen_tools.session.session import Session

__all__ = ["call_record", "run_episode"]

TIMEOUT = "timeout"


def call_record(done: CompletedToolCall) -> dict[str, Any]:
    """A finished tool call as the record keeps it: request, status and the model's text."""
    return {
        "id": done.request.call_id,
        "name": done.request.name,
        "args": done.request.args,
        "status": done.status,
        "response": done.response_text,
        "error_type": done.error_type.value if done.error_type is not None else None,
        "duration_ms": round(done.duration_ms, 3),
    }


async def run_episode(
    session: Session,
    workspace: Path,
    prompt: str,
    model: ModelConfig,
    max_turns: int,
    timeout_s: float | None,
) -> dict[str, Any]:
    """Run the agent loop on ``prompt`` in ``session``; the record's agent part.

    ``max_turns`` bounds model requests (negative: none); after ``timeout_s`` the run is
    cancelled as Ctrl-C would (``finish_reason: "timeout"``). Never raises for the model's or
    the tools' failures: they are in ``finish_reason``/``error``.
    """
    calls: list[dict[str, Any]] = []
    turn_ms: list[float] = []
    turn_started = time.perf_counter()

    def on_event(event: AgentEvent) -> None:
        nonlocal turn_started
        if isinstance(event, ToolCallFinished):
            calls.append(call_record(event.completed))
        elif isinstance(event, TurnFinished):
            now = time.perf_counter()
            turn_ms.append(round((now - turn_started) * 1000, 3))
            turn_started = now

    controller = AbortController()
    timer = None
    if timeout_s is not None and timeout_s > 0:
        timer = asyncio.get_running_loop().call_later(timeout_s, controller.abort, TIMEOUT)
    started = time.perf_counter()
    async with AgentSession(session.config, session.registry, model) as agent:
        loop = agent.new_loop(on_event=on_event, max_turns=max_turns)
        try:
            finished = await loop.send(prompt, signal=controller.signal)
        finally:
            if timer is not None:
                timer.cancel()
        timed_out = finished.reason is StopReason.CANCELLED and controller.signal.aborted
        reason = TIMEOUT if timed_out else finished.reason.value
        return {
            "finish_reason": reason,
            "final_text": finished.text,
            "error": finished.error,
            "turns": finished.turns,
            "tool_calls": calls,
            "messages": loop.history.messages,
            "usage": agent.stats.usage_json(),
            "agent_s": round(time.perf_counter() - started, 6),
            "turn_ms": turn_ms,
            "workspace": str(workspace),
        }
