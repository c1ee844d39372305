"""One task's agent run next to its session: the loop, its limits and what the record keeps.

:func:`run_episode` is what a pool worker (or the local host) runs with the task's session; it
returns plain JSON-ready data (no live objects cross a process).

The episodes of one event loop share one HTTP transport (connection pool) to the model: a
client of its own per episode would build a TLS context each time (about 80 ms of CPU here,
the largest cost of a short task against a local endpoint).
"""

from __future__ import annotations

import asyncio
import time
import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx

from qwen_tools.agent.events import AgentEvent, StopReason, ToolCallFinished, TurnFinished
from qwen_tools.agent.session import AgentSession
from qwen_tools.contract.abort import AbortController

if TYPE_CHECKING:
    from qwen_tools.execution.call_types import CompletedToolCall
    from qwen_tools.model.model_config import ModelConfig
    from qwen_tools.session.session import Session

__all__ = ["call_record", "run_episode"]

TIMEOUT = "timeout"


class _SharedTransport(httpx.AsyncBaseTransport):
    """One connection pool for every episode of an event loop; closing a client keeps it."""

    def __init__(self) -> None:
        limits = httpx.Limits(max_connections=1000, max_keepalive_connections=200)
        self.inner = httpx.AsyncHTTPTransport(limits=limits)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        """Kept open: other episodes use it (it goes with its event loop)."""


_transports: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _SharedTransport] = (
    weakref.WeakKeyDictionary()
)


def _transport() -> _SharedTransport:
    loop = asyncio.get_running_loop()
    found = _transports.get(loop)
    if found is None:
        found = _transports[loop] = _SharedTransport()
    return found


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
    transport = _transport()
    async with AgentSession(session.config, session.registry, model, transport=transport) as agent:
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
