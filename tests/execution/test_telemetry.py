"""Tool-call telemetry: the decision mapping, the event, the log line and the OpenTelemetry span."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from qwen_tools import BaseDeclarativeTool, Kind, ToolResult
from qwen_tools.contract.confirmation import ToolConfirmationOutcome
from qwen_tools.contract.errors import ToolErrorType
from qwen_tools.contract.function_response import (
    cancelled_response,
    error_response,
    function_response_for_result,
)
from qwen_tools.execution import messages
from qwen_tools.execution.telemetry import TelemetryHook, decision_for, event_for
from qwen_tools.execution.tool_call import CompletedToolCall, ToolCallRequest

SECRET_ARGS = {"file_path": "/secret/notes.txt", "content": "password=hunter2"}


class _Tool(BaseDeclarativeTool[dict[str, Any]]):
    def __init__(self, name: str, server_name: str | None = None) -> None:
        super().__init__(name, name, "test", Kind.EDIT, {"type": "object"})
        self.server_name = server_name

    def create_invocation(self, params: dict[str, Any]) -> Any:  # pragma: no cover - unused
        raise NotImplementedError


def success(
    outcome: ToolConfirmationOutcome | None = ToolConfirmationOutcome.PROCEED_ONCE,
    tool: _Tool | None = None,
) -> CompletedToolCall:
    tool = tool or _Tool("write_file")
    result = ToolResult("Successfully wrote the secret file content")
    return CompletedToolCall(
        request=ToolCallRequest("write_file", SECRET_ARGS, "call_7"),
        status="success",
        response=function_response_for_result(tool.name, "call_7", result),
        result=result,
        outcome=outcome,
        duration_ms=12.0,
        tool=tool,
    )


@pytest.mark.parametrize(
    ("outcome", "status", "decision"),
    [
        (ToolConfirmationOutcome.PROCEED_ONCE, "success", "accept"),
        ("proceed_once_and_switch_to_default", "success", "accept"),
        ("restore_previous", "success", "accept"),
        (ToolConfirmationOutcome.PROCEED_ALWAYS, "success", "auto_accept"),
        (ToolConfirmationOutcome.PROCEED_ALWAYS_SERVER, "success", "auto_accept"),
        (ToolConfirmationOutcome.PROCEED_ALWAYS_TOOL, "success", "auto_accept"),
        ("proceed_always_project", "success", "auto_accept"),
        ("proceed_always_user", "success", "auto_accept"),
        (ToolConfirmationOutcome.MODIFY_WITH_EDITOR, "success", "modify"),
        (ToolConfirmationOutcome.CANCEL, "cancelled", "reject"),
        ("something_else", "error", "reject"),
        (None, "success", "auto_accept"),
        (None, "error", None),
        (None, "cancelled", None),
    ],
)
def test_decision_mapping(
    outcome: ToolConfirmationOutcome | str | None, status: str, decision: str | None
) -> None:
    assert decision_for(outcome, status) == decision


def test_event_has_no_args_or_content_by_default() -> None:
    event = event_for(success())
    assert event.call_id == "call_7"
    assert event.function_name == "write_file"
    assert (event.status, event.success, event.decision) == ("success", True, "accept")
    assert event.error_type is None and event.failure_kind is None
    assert (event.tool_type, event.mcp_server_name) == ("native", None)
    assert event.content_length == len("Successfully wrote the secret file content")
    assert event.function_args is None
    assert "hunter2" not in repr(event.to_dict()) and "secret" not in repr(event.to_dict())
    assert event_for(success(), include_args=True).function_args == SECRET_ARGS


def test_event_for_mcp_error_and_cancelled_calls() -> None:
    mcp = _Tool("mcp__srv__run", server_name="srv")
    failed = CompletedToolCall(
        request=ToolCallRequest("mcp__srv__run", {}, "c2"),
        status="error",
        response=error_response("mcp__srv__run", "c2", "boom"),
        result=ToolResult.failure("boom", ToolErrorType.MCP_TOOL_ERROR),
        error_type=ToolErrorType.MCP_TOOL_ERROR,
        tool=mcp,
    )
    event = event_for(failed)
    assert (event.tool_type, event.mcp_server_name) == ("mcp", "srv")
    assert (event.success, event.error_type, event.failure_kind) == (
        False,
        "mcp_tool_error",
        "tool_error",
    )
    assert event.decision == "auto_accept"  # it ran without asking
    blocked = CompletedToolCall(
        request=ToolCallRequest("edit", {}, "c3"),
        status="error",
        response=error_response("edit", "c3", messages.plan_mode_blocked("edit")),
        error_type=ToolErrorType.EXECUTION_DENIED,
    )
    assert (event_for(blocked).decision, event_for(blocked).failure_kind) == (
        None,
        "plan_mode_blocked",
    )
    cancelled = CompletedToolCall(
        request=ToolCallRequest("edit", {}, "c4"),
        status="cancelled",
        response=cancelled_response("edit", "c4", "Tool call cancelled by user."),
        error_type=ToolErrorType.EXECUTION_CANCELLED,
        outcome=ToolConfirmationOutcome.CANCEL,
    )
    event = event_for(cancelled)
    assert (event.decision, event.error_type, event.failure_kind) == ("reject", None, "cancelled")
    unnamed = CompletedToolCall(
        request=ToolCallRequest("  ", {}, "c5"),
        status="error",
        response=error_response("  ", "c5", "Tool not found"),
    )
    assert (event_for(unnamed).function_name, event_for(unnamed).error_type) == (
        "unknown_tool",
        "unknown",
    )


def test_hook_logs_the_reference_text(caplog: pytest.LogCaptureFixture) -> None:
    hook = TelemetryHook(tracer_provider=None)
    with caplog.at_level(logging.INFO, logger="qwen_tools.telemetry"):
        hook(success())
        hook(success(outcome=None, tool=_Tool("write_file")))
        failed = CompletedToolCall(
            request=ToolCallRequest("glob", {}, "c9"),
            status="error",
            response=error_response("glob", "c9", "bad"),
            error_type=ToolErrorType.INVALID_TOOL_PARAMS,
            duration_ms=3.5,
        )
        hook(failed)
    records = [r for r in caplog.records if r.name == "qwen_tools.telemetry"]
    assert [r.getMessage() for r in records] == [
        "Tool call: write_file. Decision: accept. Success: true. Duration: 12ms.",
        "Tool call: write_file. Decision: auto_accept. Success: true. Duration: 12ms.",
        "Tool call: glob. Success: false. Duration: 3.5ms.",
    ]
    assert all(r.levelno == logging.INFO for r in records)
    extra = records[0].__dict__["tool_call"]
    assert extra["event.name"] == "qwen-code.tool_call"
    assert extra["function_name"] == "write_file" and extra["decision"] == "accept"
    assert "function_args" not in extra
    assert "hunter2" not in caplog.text


def test_hook_opt_in_args(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="qwen_tools.telemetry"):
        TelemetryHook(include_args=True)(success())
    assert caplog.records[-1].__dict__["tool_call"]["function_args"] == SECRET_ARGS


def test_no_span_without_a_configured_provider() -> None:
    pytest.importorskip("opentelemetry")
    assert TelemetryHook()._provider() is None


def test_span_recorded_with_in_memory_exporter() -> None:
    pytest.importorskip("opentelemetry.sdk")
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from opentelemetry.trace import StatusCode

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    hook = TelemetryHook(tracer_provider=provider)
    hook(success())
    hook(
        CompletedToolCall(
            request=ToolCallRequest("edit", {}, "c2"),
            status="error",
            response=error_response("edit", "c2", "boom"),
            error_type=ToolErrorType.UNHANDLED_EXCEPTION,
            duration_ms=5,
        )
    )
    ok_span, bad_span = exporter.get_finished_spans()
    assert ok_span.name == "qwen-code.tool"
    attrs = dict(ok_span.attributes or {})
    assert attrs["tool.call_id"] == "call_7" and attrs["tool_name"] == "write_file"
    assert attrs["success"] is True and attrs["duration_ms"] == 12.0
    assert "tool.failure_kind" not in attrs
    assert not any("hunter2" in str(v) for v in attrs.values())
    assert ok_span.end_time is not None and ok_span.start_time is not None
    assert ok_span.end_time - ok_span.start_time == 12_000_000
    bad = dict(bad_span.attributes or {})
    assert bad["success"] is False and bad["tool.failure_kind"] == "tool_exception"
    assert bad_span.status.status_code is StatusCode.ERROR
