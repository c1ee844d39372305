"""The data of one tool call: the model's request and the finished call with its response."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from qwen_tools.contract.errors import ToolErrorType
from qwen_tools.contract.function_response import cancelled_response, error_response, response_text
from qwen_tools.contract.outcome import ToolConfirmationOutcome, ToolConfirmationPayload
from qwen_tools.contract.parts import FunctionResponse
from qwen_tools.contract.results import ToolResult

if TYPE_CHECKING:
    from qwen_tools.contract.confirmation import ToolCallConfirmationDetails
    from qwen_tools.contract.declarative import BaseDeclarativeTool
    from qwen_tools.contract.display import ToolResultDisplay

CallStatus = Literal["success", "error", "cancelled"]

ConfirmationHandler = Callable[
    ["ToolCallRequest", "ToolCallConfirmationDetails"],
    Awaitable[tuple[ToolConfirmationOutcome, ToolConfirmationPayload | None]],
]
"""Asks the user about one call; returns the outcome (and an optional payload)."""


@dataclass(frozen=True, slots=True)
class ToolCallRequest:
    """A function call from the model: the tool name, its JSON args and the provider's call id."""

    name: str
    args: Any
    call_id: str = "call_0"


@dataclass(slots=True)
class CompletedToolCall:
    """A finished call: its status, the tool's result (if it ran) and the model-facing response."""

    request: ToolCallRequest
    status: CallStatus
    response: FunctionResponse
    result: ToolResult | None = None
    display: ToolResultDisplay | None = None
    error_type: ToolErrorType | None = None
    outcome: ToolConfirmationOutcome | None = None
    duration_ms: float = 0.0
    tool: BaseDeclarativeTool[Any] | None = field(default=None, repr=False)

    @property
    def response_text(self) -> str:
        """Exactly the text the model receives in the tool message."""
        return response_text(self.response)


def failed(
    request: ToolCallRequest,
    message: str,
    error_type: ToolErrorType,
    *,
    tool: BaseDeclarativeTool[Any] | None = None,
    display: ToolResultDisplay | None = None,
    result: ToolResult | None = None,
) -> CompletedToolCall:
    """An error outcome: the model receives ``message``."""
    name = tool.name if tool is not None else request.name
    content = result.llm_content if result is not None else None
    return CompletedToolCall(
        request=request,
        status="error",
        response=error_response(name, request.call_id, message, content),
        result=result,
        display=display if display is not None else message,
        error_type=error_type,
        tool=tool,
    )


def cancelled(
    request: ToolCallRequest,
    reason: str,
    *,
    tool: BaseDeclarativeTool[Any] | None = None,
    display: ToolResultDisplay | None = None,
    outcome: ToolConfirmationOutcome | None = None,
) -> CompletedToolCall:
    """A cancelled outcome: the model receives ``[Operation Cancelled] Reason: <reason>``."""
    name = tool.name if tool is not None else request.name
    return CompletedToolCall(
        request=request,
        status="cancelled",
        response=cancelled_response(name, request.call_id, reason),
        display=display if display is not None else reason,
        error_type=ToolErrorType.EXECUTION_CANCELLED,
        outcome=outcome,
        tool=tool,
    )
