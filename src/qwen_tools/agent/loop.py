"""``AgentLoop``: model turns and tool calls until the model answers without calling a tool.

Each turn sends the system prompt, the history and the registry's tool declarations; the
answer's tool calls run through one :class:`~qwen_tools.execution.scheduler.ToolScheduler`
(confirmation handler pluggable), and their responses join the history as OpenAI ``tool``
messages. History is kept in OpenAI message format, with each message encoded once
(:mod:`.history`), so a turn costs the same however long the conversation is.

As in Qwen Code 0.24.4, the first user message opens with ``<system-reminder>`` text parts (the
environment and workspace tree, built once per conversation, then the current date) and ends
with the prompt; a later message gets the date reminder again only when the date has changed.

Usage: ``(await AgentLoop(client=c, registry=r, config=cfg, system_prompt=p).send(text)).text``.

The history is compressed before a request that nears the context window (:mod:`.compression`).
``send`` can be called again to continue. Progress is reported through :mod:`.events`
(``on_event``, :meth:`AgentLoop.subscribe`), or consumed with :func:`iter_events`.
"""

from __future__ import annotations

import asyncio
import datetime as _dt
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from typing import TYPE_CHECKING, Any

from qwen_tools.agent.compression import Compressor
from qwen_tools.agent.environment import date_reminder, startup_reminder, wrap_system_reminder
from qwen_tools.agent.events import (
    AgentEvent,
    EventHandler,
    Finished,
    HistoryCompressed,
    ModelTurn,
    Retrying,
    StopReason,
    TextDelta,
    ThinkingDelta,
    ToolCallAwaitingApproval,
    ToolCallFinished,
    ToolCallOutput,
    ToolCallScheduled,
    ToolCallStarted,
    TurnFinished,
    TurnStarted,
)
from qwen_tools.agent.history import History
from qwen_tools.agent.hooks import (
    SubagentIdentity,
    prompt_submit,
    stop_cap,
    stop_cap_warning,
    stop_check,
)
from qwen_tools.agent.request import RequestBuilder, initial_max_tokens, user_sets_max_tokens
from qwen_tools.agent.steering import Steering
from qwen_tools.contract.abort import AbortError, AbortSignal
from qwen_tools.execution.call_types import CompletedToolCall, ToolCallRequest
from qwen_tools.execution.provider_messages import to_openai_tool_messages
from qwen_tools.execution.scheduler import ToolCallEvent, ToolCallStatus, ToolScheduler
from qwen_tools.model.caps import escalated_max_tokens
from qwen_tools.model.errors import ModelError, format_api_error
from qwen_tools.model.json_args import dumps_arguments

if TYPE_CHECKING:
    from qwen_tools.agent.stats import SessionStats
    from qwen_tools.config.config import Config
    from qwen_tools.execution.call_types import ConfirmationHandler
    from qwen_tools.model.client import ChatClient
    from qwen_tools.model.completion import Completion
    from qwen_tools.model.model_config import ModelConfig
    from qwen_tools.model.retry import RetryInfo
    from qwen_tools.registry.registry import ToolRegistry

__all__ = ["AgentLoop", "assistant_message", "iter_events"]


def assistant_message(completion: Completion) -> dict[str, Any] | None:
    """The history entry for an answer (``None`` when it is empty), as the reference writes it."""
    if not (completion.text or completion.tool_calls or completion.reasoning):
        return None
    message: dict[str, Any] = {
        "role": "assistant",
        "content": completion.text or ("" if completion.reasoning else None),
    }
    calls = list({call.id: call for call in completion.tool_calls[::-1]}.values())
    calls.sort(key=completion.tool_calls.index)
    if calls:  # a repeated call id is sent once, as the reference's converter does
        message["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": dumps_arguments(call.args)},
            }
            for call in calls
        ]
    if completion.reasoning:
        message["reasoning_content"] = completion.reasoning
    return message


class AgentLoop:
    """One conversation with the model, its tools and its history."""

    def __init__(
        self,
        *,
        client: ChatClient,
        registry: ToolRegistry,
        config: Config,
        system_prompt: str | None,
        model: ModelConfig | None = None,
        confirm: ConfirmationHandler | None = None,
        max_turns: int = -1,
        stream: bool = True,
        on_event: EventHandler | None = None,
        stats: SessionStats | None = None,
        environment: bool = True,
        date_reminders: bool = True,
    ) -> None:
        """``max_turns`` limits model requests per :meth:`send` (negative: no limit).

        ``confirm`` asks the user about calls that need approval; without one they are
        refused as in Qwen Code's non-interactive mode (unless the approval mode allows them).
        ``environment`` and ``date_reminders`` turn off the reminder parts of user messages
        (subagents get the environment but no date reminder, as in 0.24.4).
        """
        self.client = client
        self.model = model or client.config
        self.registry = registry
        self.config = config
        self.max_turns = max_turns
        self.stream = stream
        self.stats = stats
        self.end_on_refusal = False
        """When every call of a batch was refused (cancelled), end the turn without asking the
        model again (Qwen Code's interactive mode; the refusals stay in the history)."""
        self.history = History()
        self.steering = Steering()  # texts sent into a running turn (:mod:`.steering`)
        self.builder = RequestBuilder(self.model, system_prompt, registry, stream=stream)
        self.scheduler = ToolScheduler(registry, config, confirm=confirm, transcript=self.history)
        self.compression = Compressor(client, lambda: self.model, config, stats)
        self.scheduler.subscribe(self._on_tool_event)
        self._handlers: list[EventHandler] = [on_event] if on_event is not None else []
        self._environment = environment
        self._startup: str | None = None
        self._date_reminders = date_reminders
        self._reminded: _dt.date | None = None
        self.subagent: SubagentIdentity | None = None
        """Set when this loop runs a subagent: its end fires SubagentStop instead of Stop."""
        self.stop_warning: str | None = None
        """The Stop-hook cap warning of the last :meth:`send`, when the cap ended it."""

    # -- events ---------------------------------------------------------------------------

    def subscribe(self, handler: EventHandler) -> Callable[[], None]:
        """Receive every event; returns a function that unsubscribes."""
        self._handlers.append(handler)
        return lambda: self._handlers.remove(handler) if handler in self._handlers else None

    def emit(self, event: AgentEvent) -> None:
        """Deliver ``event`` to every handler."""
        for handler in tuple(self._handlers):
            handler(event)

    def _on_tool_event(self, event: ToolCallEvent) -> None:
        status = event.status
        if status is ToolCallStatus.VALIDATING:
            self.emit(ToolCallScheduled(event.request))
        elif status is ToolCallStatus.AWAITING_APPROVAL and event.confirmation is not None:
            self.emit(ToolCallAwaitingApproval(event.request, event.confirmation))
        elif status is ToolCallStatus.EXECUTING:
            if event.output is None:
                self.emit(ToolCallStarted(event.request))
            else:
                self.emit(ToolCallOutput(event.request, event.output))
        elif event.completed is not None and status in (
            ToolCallStatus.SUCCESS,
            ToolCallStatus.ERROR,
            ToolCallStatus.CANCELLED,
        ):
            if self.stats is not None:
                self.stats.record_tool(event.completed, self.config.approval_mode.value)
            self.emit(ToolCallFinished(event.completed))

    # -- the loop -------------------------------------------------------------------------

    async def send(
        self, prompt: str | Sequence[dict[str, Any]], *, signal: AbortSignal | None = None
    ) -> Finished:
        """Add a user message and run turns until the model stops calling tools.

        Never raises for model or tool failures: the returned :class:`Finished` (also
        emitted) says why the loop stopped.
        """
        signal = signal or AbortSignal.never()
        self.stop_warning = None
        parts = [{"type": "text", "text": prompt}] if isinstance(prompt, str) else list(prompt)
        prompt_text = " ".join(str(p.get("text", "")) for p in parts if p.get("type") == "text")
        blocked, hook_context = await prompt_submit(self.config, prompt_text)
        if blocked is not None:  # the prompt never reaches the model or the history
            finished = Finished(StopReason.ERROR, "", 0, 0, blocked, ())
            self.emit(finished)
            return finished
        if hook_context is not None:
            parts.append({"type": "text", "text": hook_context})
        reminders = [{"type": "text", "text": text} for text in await self._reminders()]
        self.history.append({"role": "user", "content": [*reminders, *parts]})
        turns, calls, stop_blocks = 0, 0, 0
        completed: list[CompletedToolCall] = []
        text = ""

        def finish(reason: StopReason, error: str | None = None) -> Finished:
            event = Finished(reason, text, turns, calls, error, tuple(completed))
            self.emit(event)
            return event

        try:
            while True:
                if self.max_turns >= 0 and turns >= self.max_turns:
                    return finish(StopReason.MAX_TURNS)
                turns += 1
                self.emit(TurnStarted(turns))
                if (compressed := await self.compression.auto(self.history, signal)) is not None:
                    self.emit(HistoryCompressed(compressed))
                completion = await self._ask(signal)
                requests = tuple(
                    ToolCallRequest(call.name, call.args, call.id) for call in completion.tool_calls
                )
                message = assistant_message(completion)
                if message is not None:
                    self.history.append(message)
                self.compression.record(completion.usage, len(self.history))
                text = completion.text
                self.emit(ModelTurn(turns, completion, requests))
                if not requests:
                    self.emit(TurnFinished(turns, completion.usage, 0))
                    if self.steering.deliver(self.history):  # typed during the answer
                        continue
                    go_on = await self._stop_hooks(text, stop_blocks, signal)
                    if go_on is None:
                        return finish(StopReason.GOAL)
                    stop_blocks += 1
                    self.history.append(
                        {"role": "user", "content": [{"type": "text", "text": go_on}]}
                    )
                    continue
                done = await self.scheduler.schedule(requests, signal)
                calls += len(done)
                completed.extend(done)
                self.history.extend(self._tool_messages(done))
                self.emit(TurnFinished(turns, completion.usage, len(done)))
                if signal.aborted or (self.end_on_refusal and _all_refused(done)):
                    return finish(StopReason.CANCELLED)
                self.steering.deliver(self.history)  # after the calls' results, never between
        except AbortError:
            return finish(StopReason.CANCELLED)
        except ModelError as error:
            return finish(StopReason.ERROR, format_api_error(error))

    async def _stop_hooks(self, text: str, blocks: int, signal: AbortSignal) -> str | None:
        """The reason a Stop (SubagentStop) hook gives to go on, or ``None`` to end the turn."""
        if signal.aborted:
            return None
        reason = await stop_check(self.config, text, blocks > 0, self.subagent, signal)
        if reason is not None and blocks + 1 >= stop_cap():
            warning = stop_cap_warning(stop_cap(), self.subagent is not None)
            logging.getLogger("qwen_tools.hooks").warning("%s", warning)
            self.stop_warning = warning
            return None
        return reason

    async def _reminders(self) -> list[str]:
        """The ``<system-reminder>`` texts that go before the prompt of the next user message.

        The environment opens the conversation (again, should a cancelled first turn have been
        rolled back); it is computed once per loop, off the event loop (it reads the disk).
        """
        texts: list[str] = []
        opening = not self.history
        if self._environment and opening:
            if self._startup is None:
                self._startup = await asyncio.to_thread(startup_reminder, self.config)
            texts.append(self._startup)
        if opening:
            from qwen_tools.mcp.deferred_tools import deferred_tools_reminder

            deferred = deferred_tools_reminder(self.registry)
            if deferred is not None:
                texts.append(wrap_system_reminder(deferred))
        if self._date_reminders:
            today = _dt.date.today()
            if opening or today != self._reminded:
                texts.append(date_reminder(today))
                self._reminded = today
        return texts

    def _tool_messages(self, done: Sequence[CompletedToolCall]) -> list[dict[str, Any]]:
        modalities = self.model.modalities
        return to_openai_tool_messages(
            [c.response for c in done],
            image_input=modalities.image,
            audio_input=modalities.audio,
            pdf_input=modalities.pdf,
            video_input=modalities.video,
            content_format=self.model.tool_result_format,
            split_media=self.model.split_tool_media,
        )

    async def _ask(self, signal: AbortSignal) -> Completion:
        """One model answer, asked again once with a larger limit when it came back truncated."""
        max_tokens = initial_max_tokens(self.model)
        escalated = False
        while True:
            body = self.builder.parts(self.history, max_tokens=max_tokens)
            completion = await self._request(body, signal)
            if (
                completion.truncated
                and not escalated
                and max_tokens is not None
                and not user_sets_max_tokens(self.model)
            ):
                prompt_tokens = completion.usage.prompt_tokens if completion.usage else 0
                target = escalated_max_tokens(self.model.context_window, prompt_tokens)
                if max_tokens < target:
                    escalated, max_tokens = True, target
                    self.emit(
                        Retrying(
                            "truncated",
                            1,
                            0.0,
                            "output truncated",
                            discard_output=True,
                            discarded_tool_calls=len(completion.tool_calls),
                        )
                    )
                    continue
            return completion

    async def _request(self, body: Sequence[bytes | bytearray], signal: AbortSignal) -> Completion:
        def on_delta(text: str, reasoning: str) -> None:
            if reasoning:
                self.emit(ThinkingDelta(reasoning))
            if text:
                self.emit(TextDelta(text))

        def on_retry(info: RetryInfo) -> None:
            if self.stats is not None:
                self.stats.record_api_error(self.model.model)
            self.emit(
                Retrying(
                    "http",
                    info.attempt,
                    info.delay_s,
                    str(info.error),
                    request=info.request,
                    requests=info.requests,
                )
            )

        try:
            completion = await self.client.complete(
                body, stream=self.stream, signal=signal, on_delta=on_delta, on_retry=on_retry
            )
        except ModelError:
            if self.stats is not None:
                self.stats.record_api_error(self.model.model)
            raise
        if self.stats is not None:
            self.stats.record_response(self.model.model, completion)
        return completion


async def iter_events(
    loop: AgentLoop,
    prompt: str | Sequence[dict[str, Any]],
    *,
    signal: AbortSignal | None = None,
) -> AsyncIterator[AgentEvent]:
    """Run :meth:`AgentLoop.send` and yield its events as they happen, ending with ``Finished``."""
    queue: asyncio.Queue[AgentEvent] = asyncio.Queue()
    unsubscribe = loop.subscribe(queue.put_nowait)
    task = asyncio.ensure_future(loop.send(prompt, signal=signal))
    try:
        while True:
            event = await queue.get()
            yield event
            if isinstance(event, Finished):
                break
        await task
    finally:
        unsubscribe()
        if not task.done():
            task.cancel()


def _all_refused(done: Sequence[CompletedToolCall]) -> bool:
    """Every call of the batch was cancelled (refused in its dialog, or skipped)."""
    return bool(done) and all(call.status == "cancelled" for call in done)
