"""What an :class:`~qwen_tools.agent.loop.AgentLoop` reports while it works (for UIs and logs).

Events arrive in this order for each model turn::

    TurnStarted
      HistoryCompressed                      (the history was compressed before the request)
      TextDelta / ThinkingDelta ...          (streaming only, as the answer arrives)
      Retrying ...                           (a failed or truncated attempt is retried)
    ModelTurn                                (the complete answer: text, tool calls, usage)
      ToolCallScheduled                      (one per call, in order)
      ToolCallAwaitingApproval / ToolCallStarted / ToolCallOutput ... / ToolCallFinished
    TurnFinished

and once per :meth:`~qwen_tools.agent.loop.AgentLoop.send`, at the end, :class:`Finished`.
Every event is a frozen dataclass; dispatch on the class (``match event: case TextDelta():``).
Handlers run synchronously inside the loop: keep them quick.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    from qwen_tools.agent.compression import Compression
    from qwen_tools.contract.confirmation import ToolCallConfirmationDetails
    from qwen_tools.contract.display import ToolResultDisplay
    from qwen_tools.execution.call_types import CompletedToolCall, ToolCallRequest
    from qwen_tools.model.completion import Completion, Usage

__all__ = [
    "AgentEvent",
    "EventHandler",
    "Finished",
    "HistoryCompressed",
    "ModelTurn",
    "Retrying",
    "StopReason",
    "TextDelta",
    "ThinkingDelta",
    "ToolCallAwaitingApproval",
    "ToolCallFinished",
    "ToolCallOutput",
    "ToolCallScheduled",
    "ToolCallStarted",
    "TurnFinished",
    "TurnStarted",
]


class StopReason(StrEnum):
    """Why a :meth:`send` ended."""

    GOAL = "GOAL"
    """The model answered without calling a tool."""
    MAX_TURNS = "MAX_TURNS"
    """The turn limit was reached before the model finished."""
    CANCELLED = "CANCELLED"
    """The abort signal fired."""
    ERROR = "ERROR"
    """The model endpoint failed (after retries)."""


@dataclass(frozen=True, slots=True)
class TurnStarted:
    """A request is about to be sent; ``turn`` counts from 1 within this ``send``."""

    turn: int


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A piece of the model's visible answer, as streamed."""

    text: str


@dataclass(frozen=True, slots=True)
class ThinkingDelta:
    """A piece of the model's reasoning (``reasoning_content``), as streamed."""

    text: str


@dataclass(frozen=True, slots=True)
class Retrying:
    """An attempt failed (or was cut short) and is retried after ``delay_s`` seconds.

    ``kind`` is ``"http"`` (the request failed: status, network or timeout; ``reason`` is the
    error) or ``"truncated"`` (the answer hit the output limit and is requested again with a
    larger ``max_tokens``). ``discard_output`` is true when text already shown for this turn
    will be replaced; ``discarded_tool_calls`` counts the tool calls of the abandoned answer.
    """

    kind: str
    attempt: int
    delay_s: float
    reason: str
    discard_output: bool = False
    discarded_tool_calls: int = 0
    request: int = 0
    """``"http"``: how many requests failed so far (both retry layers counted)..."""
    requests: int = 0
    """... of at most this many (``0`` when not known)."""


@dataclass(frozen=True, slots=True)
class ModelTurn:
    """The model's complete answer for this turn (tool calls carry the parsed arguments)."""

    turn: int
    completion: Completion
    requests: tuple[ToolCallRequest, ...]


@dataclass(frozen=True, slots=True)
class ToolCallScheduled:
    """A call the model asked for entered the scheduler."""

    request: ToolCallRequest


@dataclass(frozen=True, slots=True)
class ToolCallAwaitingApproval:
    """A call waits for the user's decision (only with a confirmation handler)."""

    request: ToolCallRequest
    details: ToolCallConfirmationDetails


@dataclass(frozen=True, slots=True)
class ToolCallStarted:
    """A call began executing."""

    request: ToolCallRequest


@dataclass(frozen=True, slots=True)
class ToolCallOutput:
    """Live output of a running call (e.g. shell output so far)."""

    request: ToolCallRequest
    output: ToolResultDisplay


@dataclass(frozen=True, slots=True)
class ToolCallFinished:
    """A call finished (success, error or cancelled); ``completed.response`` goes to the model."""

    completed: CompletedToolCall


@dataclass(frozen=True, slots=True)
class HistoryCompressed:
    """The conversation neared the context window and was compressed, or that failed."""

    compression: Compression


@dataclass(frozen=True, slots=True)
class TurnFinished:
    """The turn's answer and tool results are in the history."""

    turn: int
    usage: Usage | None
    tool_calls: int


@dataclass(frozen=True, slots=True)
class Finished:
    """The end of a ``send``: the final answer text and why the loop stopped."""

    reason: StopReason
    text: str
    turns: int
    tool_calls: int
    error: str | None = None
    completed_calls: tuple[CompletedToolCall, ...] = field(default=(), repr=False)


AgentEvent: TypeAlias = (
    TurnStarted
    | TextDelta
    | ThinkingDelta
    | Retrying
    | ModelTurn
    | ToolCallScheduled
    | ToolCallAwaitingApproval
    | ToolCallStarted
    | ToolCallOutput
    | ToolCallFinished
    | TurnFinished
    | HistoryCompressed
    | Finished
)
EventHandler = Callable[[AgentEvent], None]
