"""``ToolScheduler``: a batch of function calls from one model turn, driven to completion.

Each call goes through ``validating → scheduled | awaiting_approval → executing → success |
error | cancelled``; listeners receive a :class:`ToolCallEvent` on every change and for every
piece of live output. Results come back in call order.

Concurrency follows the reference: consecutive concurrency-safe calls (kinds read, search and
fetch, and read-only shell commands) run in parallel, bounded by ``max_concurrency``
(``QWEN_CODE_MAX_TOOL_CONCURRENCY``, default 10); every other call runs alone, in order, after
everything before it has finished. Unlike Qwen Code 0.24.4, approvals are asked in order *while*
execution proceeds, so a call waiting for the user never holds back the read-only calls that
come before it. One ``AbortSignal`` cancels the batch: running tools see it, calls still waiting
are cancelled, and every call still gets a response for the model.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Literal

from qwen_tools.contract.abort import AbortSignal
from qwen_tools.contract.outcome import ToolConfirmationOutcome, ToolConfirmationPayload
from qwen_tools.execution import messages
from qwen_tools.execution.call_types import (
    CompletedToolCall,
    ConfirmationHandler,
    ToolCallRequest,
    cancelled,
)
from qwen_tools.execution.tool_call import (
    PreparedCall,
    ResultHook,
    execute_call,
    guarded_approval,
    prepare_call,
)

if TYPE_CHECKING:
    from qwen_tools.config.config import Config
    from qwen_tools.contract.confirmation import ToolCallConfirmationDetails
    from qwen_tools.contract.declarative import BaseDeclarativeTool
    from qwen_tools.contract.display import ToolResultDisplay
    from qwen_tools.contract.results import ToolResult
    from qwen_tools.registry.registry import ToolRegistry


class ToolCallStatus(StrEnum):
    """Where a call is in its lifecycle."""

    VALIDATING = "validating"
    SCHEDULED = "scheduled"
    AWAITING_APPROVAL = "awaiting_approval"
    EXECUTING = "executing"
    SUCCESS = "success"
    ERROR = "error"
    CANCELLED = "cancelled"


@dataclass(frozen=True, slots=True)
class ToolCallEvent:
    """A state change (or a piece of live output) of one call of a batch."""

    index: int
    request: ToolCallRequest
    status: ToolCallStatus
    confirmation: ToolCallConfirmationDetails | None = None
    output: ToolResultDisplay | None = None
    completed: CompletedToolCall | None = None


EventListener = Callable[[ToolCallEvent], None]
CompletionHook = Callable[[CompletedToolCall], object]


def _default_concurrency() -> int:
    try:
        return max(1, int(os.environ.get("QWEN_CODE_MAX_TOOL_CONCURRENCY", "10")))
    except ValueError:
        return 10


class ToolScheduler:
    """Runs batches of tool calls against one registry and one session ``Config``."""

    def __init__(
        self,
        registry: ToolRegistry,
        config: Config,
        *,
        confirm: ConfirmationHandler | None = None,
        max_concurrency: int | None = None,
        output_budget: bool = True,
        on_result: ResultHook | None = None,
        on_complete: CompletionHook | None = None,
        telemetry: CompletionHook | Literal["default"] | None = "default",
        transcript: Iterable[Mapping[str, Any]] = (),
    ) -> None:
        """Configure the scheduler.

        ``output_budget`` applies the reference's truncation of large results (per call and per
        batch). ``on_result`` transforms successful results after that; ``on_complete`` sees
        every finished call; ``telemetry`` receives one event per finished call (by default a
        :class:`~qwen_tools.execution.telemetry.TelemetryHook` logging to ``qwen_tools.telemetry``).
        ``transcript``: the conversation (read when a call is reviewed in ``auto`` mode).
        """
        self.registry = registry
        self.config = config
        self.confirm = confirm
        self.max_concurrency = max_concurrency or _default_concurrency()
        self.output_budget = output_budget
        self.user_on_result = on_result
        self.on_complete = on_complete
        if telemetry == "default":
            from qwen_tools.execution.telemetry import TelemetryHook

            self.telemetry: CompletionHook | None = TelemetryHook()
        else:
            self.telemetry = telemetry
        self._listeners: list[EventListener] = []
        self.transcript = transcript
        """The conversation the calls come from (an agent loop's history), for ``auto`` mode."""

    def on_result(
        self, tool: BaseDeclarativeTool[Any], call_id: str, result: ToolResult
    ) -> ToolResult:
        """The success-path transformation: output budget, then the user's hook."""
        if self.output_budget:
            from qwen_tools.execution.output_budget import apply_output_budget

            result = apply_output_budget(tool, call_id, result, self.config)
        if self.user_on_result is not None:
            result = self.user_on_result(tool, call_id, result)
        return result

    def finish_batch(self, done: list[CompletedToolCall]) -> None:
        """Apply the per-batch budget to the responses of a finished batch."""
        budget = self.config.settings.tool_output_batch_budget
        if not self.output_budget or budget <= 0 or not done:
            return
        total = 0
        for completed in done:
            text = completed.response.output or completed.response.error or ""
            total += len(text)
        if total <= budget:
            return
        from qwen_tools.execution.output_budget import apply_batch_budget

        responses = apply_batch_budget([c.response for c in done], budget, self.config)
        for completed, response in zip(done, responses, strict=True):
            completed.response = response

    def subscribe(self, listener: EventListener) -> Callable[[], None]:
        """Receive every event of every batch; returns a function that unsubscribes."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _emit(self, event: ToolCallEvent) -> None:
        for listener in tuple(self._listeners):
            listener(event)

    async def schedule(
        self, requests: Sequence[ToolCallRequest], signal: AbortSignal | None = None
    ) -> list[CompletedToolCall]:
        """Run one batch; every request gets a completed call, in request order."""
        return await _Batch(self, _dedupe(requests), signal or AbortSignal.never()).run()


def _dedupe(requests: Sequence[ToolCallRequest]) -> list[ToolCallRequest]:
    seen: set[str] = set()
    unique: list[ToolCallRequest] = []
    for request in requests:
        if request.call_id not in seen:
            seen.add(request.call_id)
            unique.append(request)
    return unique


class _Batch:
    """The state of one ``schedule()`` call."""

    def __init__(
        self, owner: ToolScheduler, requests: list[ToolCallRequest], signal: AbortSignal
    ) -> None:
        self.owner = owner
        self.requests = requests
        self.signal = signal
        self.results: list[CompletedToolCall | None] = [None] * len(requests)
        self.started = [0.0] * len(requests)
        self.approvals: list[asyncio.Future[CompletedToolCall | None]] = []
        self.decided: list[CompletedToolCall | None] = []
        self.prompt_lock = asyncio.Lock()

    def emit(self, index: int, status: ToolCallStatus, **extra: Any) -> None:
        if self.owner._listeners:
            self.owner._emit(ToolCallEvent(index, self.requests[index], status, **extra))

    def finish(self, index: int, completed: CompletedToolCall) -> None:
        completed.duration_ms = (time.monotonic() - self.started[index]) * 1000
        self.results[index] = completed
        self.emit(index, ToolCallStatus(completed.status), completed=completed)
        if self.owner.telemetry is not None:
            self.owner.telemetry(completed)
        if self.owner.on_complete is not None:
            self.owner.on_complete(completed)

    async def run(self) -> list[CompletedToolCall]:
        prepared: list[PreparedCall | None] = []
        for index, request in enumerate(self.requests):
            self.started[index] = time.monotonic()
            self.emit(index, ToolCallStatus.VALIDATING)
            outcome = prepare_call(self.owner.registry, request, self.signal)
            if isinstance(outcome, CompletedToolCall):
                self.finish(index, outcome)
                prepared.append(None)
            else:
                outcome.transcript = self.owner.transcript
                prepared.append(outcome)
        if self.owner.confirm is None:
            # Nobody to ask: approvals never wait for a person, so decide them all up front.
            for index, call in enumerate(prepared):
                self.decided.append(await self.approve(index, call) if call is not None else None)
            await self.execute_all(prepared)
        else:
            loop = asyncio.get_running_loop()
            self.approvals = [loop.create_future() for _ in prepared]
            approver = asyncio.ensure_future(self.approve_all(prepared))
            try:
                await self.execute_all(prepared)
            finally:
                if not approver.done():
                    approver.cancel()
        done = [r for r in self.results if r is not None]
        self.owner.finish_batch(done)
        return done

    # -- approvals, in order ------------------------------------------------------------

    async def approve(self, index: int, call: PreparedCall) -> CompletedToolCall | None:
        """The refusal of one call, or ``None`` when it may run."""
        if self.signal.aborted:
            return cancelled(call.request, messages.CANCELLED_BEFORE_EXECUTION, tool=call.tool)
        confirm = self._confirm_for(index) if self.owner.confirm is not None else None
        refusal = await guarded_approval(self.owner.config, call, self.signal, confirm)
        if refusal is None:
            self.emit(index, ToolCallStatus.SCHEDULED)
        return refusal

    async def approve_all(self, prepared: list[PreparedCall | None]) -> None:
        for index, call in enumerate(prepared):
            future = self.approvals[index]
            if call is None:
                future.set_result(None)
                continue
            try:
                future.set_result(await self.approve(index, call))
            except BaseException:
                future.set_result(
                    cancelled(call.request, messages.CANCELLED_DURING_APPROVAL, tool=call.tool)
                )
                raise

    def _confirm_for(self, index: int) -> ConfirmationHandler:
        handler = self.owner.confirm
        assert handler is not None

        async def ask(
            request: ToolCallRequest, details: ToolCallConfirmationDetails
        ) -> tuple[ToolConfirmationOutcome, ToolConfirmationPayload | None]:
            self.emit(index, ToolCallStatus.AWAITING_APPROVAL, confirmation=details)
            async with self.prompt_lock:
                asking = asyncio.ensure_future(handler(request, details))
                aborted = asyncio.ensure_future(self.signal.wait())
                await asyncio.wait({asking, aborted}, return_when=asyncio.FIRST_COMPLETED)
                aborted.cancel()
                if not asking.done():
                    asking.cancel()
                    return ToolConfirmationOutcome.CANCEL, None
                return asking.result()

        return ask

    # -- execution, in groups -------------------------------------------------------------

    async def execute_all(self, prepared: list[PreparedCall | None]) -> None:
        groups: list[tuple[bool, list[int]]] = []
        for index, call in enumerate(prepared):
            if call is None:
                continue
            safe = _is_safe(call)
            if safe and groups and groups[-1][0]:
                groups[-1][1].append(index)
            else:
                groups.append((safe, [index]))
        limit = asyncio.Semaphore(self.owner.max_concurrency)
        for safe, indices in groups:
            if safe and len(indices) > 1:
                await asyncio.gather(*(self.run_one(i, prepared[i], limit) for i in indices))
            else:
                for i in indices:
                    await self.run_one(i, prepared[i], None)

    async def run_one(
        self, index: int, call: PreparedCall | None, limit: asyncio.Semaphore | None
    ) -> None:
        assert call is not None
        refusal = self.decided[index] if self.decided else await self.approvals[index]
        if refusal is not None:
            self.finish(index, refusal)
            return
        if limit is not None:
            async with limit:
                await self._execute(index, call)
        else:
            await self._execute(index, call)

    async def _execute(self, index: int, call: PreparedCall) -> None:
        if not self.signal.aborted:
            self.emit(index, ToolCallStatus.EXECUTING)

        def live(output: ToolResultDisplay) -> None:
            self.emit(index, ToolCallStatus.EXECUTING, output=output)

        completed = await execute_call(call, self.signal, live, self.owner.on_result)
        self.finish(index, completed)


def _is_safe(call: PreparedCall) -> bool:
    try:
        return bool(call.tool.is_concurrency_safe(call.invocation.params))
    except Exception:
        return False
