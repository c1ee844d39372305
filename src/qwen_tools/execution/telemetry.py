"""One telemetry event per finished tool call, logged and (optionally) traced.

:func:`event_for` turns a :class:`~.tool_call.CompletedToolCall` into a
:class:`ToolCallTelemetry` with the fields of Qwen Code's ``ToolCallEvent``: name, duration,
status, the user's decision, error type, tool type and response length. By default it holds
no prompt, no arguments and no file content; ``include_args=True`` adds the arguments.

:class:`TelemetryHook` is the sink: it logs each event on the ``qwen_tools.telemetry`` logger
with the reference's text (``Tool call: <name>. Decision: <d>. Success: <b>. Duration: <ms>ms.``)
and, when OpenTelemetry is installed and a tracer provider is configured, records a
``qwen-code.tool`` span. OpenTelemetry is imported lazily and is not a dependency.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from qwen_tools.contract.errors import ToolErrorType
from qwen_tools.contract.outcome import ToolConfirmationOutcome

if TYPE_CHECKING:
    from qwen_tools.execution.tool_call import CompletedToolCall

__all__ = [
    "SPAN_TOOL",
    "Decision",
    "TelemetryHook",
    "ToolCallTelemetry",
    "decision_for",
    "event_for",
]

Decision = Literal["accept", "reject", "modify", "auto_accept"]

SPAN_TOOL = "qwen-code.tool"
EVENT_TOOL_CALL = "qwen-code.tool_call"

_logger = logging.getLogger("qwen_tools.telemetry")

_ACCEPT = {"proceed_once", "proceed_once_and_switch_to_default", "restore_previous"}
_AUTO_ACCEPT = {
    "proceed_always",
    "proceed_always_server",
    "proceed_always_tool",
    "proceed_always_project",
    "proceed_always_user",
}


@dataclass(frozen=True)
class ToolCallTelemetry:
    """What is recorded about one finished call (no prompt, args or content by default)."""

    call_id: str
    function_name: str
    duration_ms: float
    status: Literal["success", "error", "cancelled"]
    success: bool
    decision: Decision | None
    error_type: str | None
    tool_type: Literal["native", "mcp"]
    mcp_server_name: str | None
    content_length: int | None
    function_args: Mapping[str, Any] | None = None
    """The call's arguments; only with ``include_args=True``."""
    failure_kind: str | None = None
    """Why the call did not succeed, in the reference's span vocabulary (``tool_error``...)."""

    def to_dict(self) -> dict[str, Any]:
        """The event's attributes (``None`` fields left out)."""
        data = {
            "event.name": EVENT_TOOL_CALL,
            "call_id": self.call_id,
            "function_name": self.function_name,
            "duration_ms": self.duration_ms,
            "status": self.status,
            "success": self.success,
            "decision": self.decision,
            "error_type": self.error_type,
            "tool_type": self.tool_type,
            "mcp_server_name": self.mcp_server_name,
            "content_length": self.content_length,
            "function_args": dict(self.function_args) if self.function_args is not None else None,
        }
        return {key: value for key, value in data.items() if value is not None}


def decision_for(outcome: ToolConfirmationOutcome | str | None, status: str) -> Decision | None:
    """The reference's decision for a confirmation outcome.

    Proceed-once answers are ``accept``, every proceed-always answer ``auto_accept``, a modify
    ``modify`` and cancel (or anything else) ``reject``. Without an outcome, a call that
    succeeded ran without asking, which the reference records as ``auto_accept`` (it sets
    ``ProceedAlways`` then); otherwise there is no decision.
    """
    if outcome is None:
        return "auto_accept" if status == "success" else None
    value = outcome.value if isinstance(outcome, ToolConfirmationOutcome) else str(outcome)
    if value in _ACCEPT:
        return "accept"
    if value in _AUTO_ACCEPT:
        return "auto_accept"
    if value == ToolConfirmationOutcome.MODIFY_WITH_EDITOR.value:
        return "modify"
    return "reject"


def _failure_kind(completed: CompletedToolCall) -> str | None:
    if completed.status == "success":
        return None
    if completed.status == "cancelled":
        return "cancelled"
    error = completed.response.error or ""
    if completed.error_type is ToolErrorType.EXECUTION_DENIED:
        if error.startswith("Tool blocked by plan mode"):
            return "plan_mode_blocked"
        if "non-interactive mode cannot prompt" in error:
            return "non_interactive_denied"
        return "permission_denied"
    if completed.error_type is ToolErrorType.EXECUTION_TIMEOUT:
        return "timeout"
    if completed.error_type is ToolErrorType.UNHANDLED_EXCEPTION:
        return "tool_exception"
    return "tool_error"


def event_for(completed: CompletedToolCall, *, include_args: bool = False) -> ToolCallTelemetry:
    """The telemetry event of a finished call."""
    request = completed.request
    name = request.name if request.name.strip() else "unknown_tool"
    outcome = completed.outcome
    decision = decision_for(outcome, completed.status)
    if outcome is None and completed.status == "error" and completed.result is not None:
        decision = "auto_accept"  # the tool ran (and failed) without asking
    error_type: str | None = None
    if completed.status == "error":
        error_type = completed.error_type.value if completed.error_type else "unknown"
    tool = completed.tool
    server = getattr(tool, "server_name", None) if tool is not None else None
    response = completed.response.response
    length = sum(len(v) for k in ("output", "error") if isinstance(v := response.get(k), str))
    args = request.args if include_args and isinstance(request.args, Mapping) else None
    return ToolCallTelemetry(
        call_id=request.call_id,
        function_name=name,
        duration_ms=completed.duration_ms,
        status=completed.status,
        success=completed.status == "success",
        decision=decision,
        error_type=error_type,
        tool_type="mcp" if server else "native",
        mcp_server_name=server or None,
        content_length=length,
        function_args=dict(args) if args is not None else None,
        failure_kind=_failure_kind(completed),
    )


def _js_number(value: float) -> str:
    """A number as JavaScript prints it in a template string (``12``, ``12.5``)."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def log_text(event: ToolCallTelemetry) -> str:
    """The reference's log line for a tool call."""
    decision = f". Decision: {event.decision}" if event.decision else ""
    success = "true" if event.success else "false"
    return (
        f"Tool call: {event.function_name}{decision}. Success: {success}. "
        f"Duration: {_js_number(event.duration_ms)}ms."
    )


class TelemetryHook:
    """A sink for tool-call telemetry: call it with a finished call, or :meth:`emit` an event.

    ``tracer_provider`` is the OpenTelemetry provider to record spans with; by default the
    global one, used only when one has been configured.
    """

    def __init__(self, *, include_args: bool = False, tracer_provider: Any | None = None) -> None:
        self.include_args = include_args
        self._tracer_provider = tracer_provider

    def __call__(self, completed: CompletedToolCall) -> ToolCallTelemetry | None:
        """Build the call's event, emit it and return it (``None`` when nothing listens)."""
        if not _logger.isEnabledFor(logging.INFO) and self._provider() is None:
            return None
        event = event_for(completed, include_args=self.include_args)
        self.emit(event)
        return event

    def emit(self, event: ToolCallTelemetry) -> None:
        """Log the event and record its span; telemetry failures never reach the caller."""
        if _logger.isEnabledFor(logging.INFO):
            _logger.info(log_text(event), extra={"tool_call": event.to_dict()})
        try:
            self._record_span(event)
        except Exception as exc:  # pragma: no cover - best effort, as in the reference
            _logger.debug("tool span failed: %s", exc)

    def _provider(self) -> Any | None:
        if self._tracer_provider is not None:
            return self._tracer_provider
        if "opentelemetry" not in sys.modules:
            return None  # nobody configured OpenTelemetry in this process
        try:
            from opentelemetry import trace
        except ImportError:
            return None
        provider = trace.get_tracer_provider()
        if isinstance(provider, trace.ProxyTracerProvider | trace.NoOpTracerProvider):
            return None
        return provider

    def _record_span(self, event: ToolCallTelemetry) -> None:
        provider = self._provider()
        if provider is None:
            return
        from opentelemetry.trace import SpanKind, Status, StatusCode

        attributes: dict[str, Any] = {
            "tool.call_id": event.call_id,
            "gen_ai.tool.call.id": event.call_id,
            "call_id": event.call_id,
            "tool_name": event.function_name,
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": event.function_name,
            "gen_ai.tool.type": "function",
            "success": event.success,
            "duration_ms": event.duration_ms,
        }
        if event.failure_kind is not None:
            attributes["tool.failure_kind"] = event.failure_kind
        if event.error_type is not None:
            attributes["error.type"] = event.error_type
        end = time.time_ns()
        start = end - int(event.duration_ms * 1_000_000)
        tracer = provider.get_tracer("qwen_tools")
        span = tracer.start_span(
            SPAN_TOOL, kind=SpanKind.INTERNAL, attributes=attributes, start_time=start
        )
        if event.status == "error":
            span.set_status(Status(StatusCode.ERROR, event.failure_kind or "tool error"))
        span.end(end_time=end)
