"""One tool call through its whole lifecycle: look-up, validation, approval, execution, response.

This is the per-call pipeline of the seeds' execution flow. It never raises for a bad call:
unknown tools, invalid params, refusals, failures and cancellations all become a
:class:`CompletedToolCall` whose ``response`` is what the model receives.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, cast

from .._config.tool_settings import ApprovalMode
from .._contract.abort import AbortError, AbortSignal
from .._contract.confirmation import (
    ToolCallConfirmationDetails,
    ToolConfirmationOutcome,
    ToolConfirmationPayload,
)
from .._contract.display import ToolResultDisplay
from .._contract.errors import StructuredToolError, ToolError, ToolErrorType, ToolParamsError
from .._contract.function_response import (
    cancelled_response,
    error_response,
    function_response_for_result,
    response_text,
)
from .._contract.invocation import ToolInvocation, UpdateOutput
from .._contract.modifiable import ModifiableTool, is_modifiable
from .._contract.parts import FunctionResponse
from .._contract.results import ToolResult
from . import messages

if TYPE_CHECKING:
    from .._config.config import Config
    from .._contract.declarative import BaseDeclarativeTool
    from .._registry.registry import ToolRegistry

_log = logging.getLogger("qwen_tools")

CallStatus = Literal["success", "error", "cancelled"]

ConfirmationHandler = Callable[
    ["ToolCallRequest", ToolCallConfirmationDetails],
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


def _failed(
    request: ToolCallRequest,
    message: str,
    error_type: ToolErrorType,
    *,
    tool: BaseDeclarativeTool[Any] | None = None,
    display: ToolResultDisplay | None = None,
    result: ToolResult | None = None,
) -> CompletedToolCall:
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


def _cancelled(
    request: ToolCallRequest,
    reason: str,
    *,
    tool: BaseDeclarativeTool[Any] | None = None,
    display: ToolResultDisplay | None = None,
    outcome: ToolConfirmationOutcome | None = None,
) -> CompletedToolCall:
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


def is_preapproved(
    config: Config, tool: BaseDeclarativeTool[Any], details: ToolCallConfirmationDetails
) -> bool:
    """Whether settings (``tools.allowed``) or an earlier "always allow" cover this call."""
    session = config.session
    if tool.name in session.always_allowed_tools or tool.name in config.settings.allowed:
        return True
    if details.type == "mcp" and details.server_name in session.always_allowed_mcp_servers:
        return True
    if details.type == "exec" and details.root_commands:
        return all(root in session.always_allowed_shell_roots for root in details.root_commands)
    return False


def remember_always_allow(
    config: Config,
    tool: BaseDeclarativeTool[Any],
    details: ToolCallConfirmationDetails,
    outcome: ToolConfirmationOutcome,
) -> None:
    """Record an "always allow" answer for the rest of the session."""
    session = config.session
    if details.type == "edit" and outcome is ToolConfirmationOutcome.PROCEED_ALWAYS:
        config.approval_mode = ApprovalMode.AUTO_EDIT
    elif details.type == "exec" and outcome is ToolConfirmationOutcome.PROCEED_ALWAYS:
        session.always_allowed_shell_roots.update(details.root_commands)
    elif details.type == "mcp" and outcome is ToolConfirmationOutcome.PROCEED_ALWAYS_SERVER:
        session.always_allowed_mcp_servers.add(details.server_name)
    elif outcome in (
        ToolConfirmationOutcome.PROCEED_ALWAYS,
        ToolConfirmationOutcome.PROCEED_ALWAYS_TOOL,
    ):
        session.always_allowed_tools.add(tool.name)


async def run_tool_call(
    registry: ToolRegistry,
    config: Config,
    request: ToolCallRequest,
    signal: AbortSignal | None = None,
    *,
    confirm: ConfirmationHandler | None = None,
    update_output: UpdateOutput | None = None,
) -> CompletedToolCall:
    """Drive one call through the whole flow and return its completed state.

    ``confirm`` is asked when the call needs approval; without it (no user to ask) such calls
    are refused with the reference's non-interactive message.
    """
    started = time.monotonic()
    signal = signal or AbortSignal.never()
    completed = await _run(registry, config, request, signal, confirm, update_output)
    completed.duration_ms = (time.monotonic() - started) * 1000
    return completed


async def _run(
    registry: ToolRegistry,
    config: Config,
    request: ToolCallRequest,
    signal: AbortSignal,
    confirm: ConfirmationHandler | None,
    update_output: UpdateOutput | None,
) -> CompletedToolCall:
    if signal.aborted:
        return _cancelled(request, messages.CANCELLED_BEFORE_EXECUTION)
    tool = registry.get_tool(request.name)
    if tool is None:
        return _failed(
            request, registry.unknown_tool_message(request.name), ToolErrorType.TOOL_NOT_REGISTERED
        )
    try:
        invocation = tool.build(request.args)
    except ToolParamsError as exc:
        return _failed(request, str(exc), ToolErrorType.INVALID_TOOL_PARAMS, tool=tool)

    outcome: ToolConfirmationOutcome | None = None
    if config.approval_mode is not ApprovalMode.YOLO:
        details = await _confirmation_details(tool, invocation, request, signal)
        if isinstance(details, CompletedToolCall):
            return details
        if details is not False and not is_preapproved(config, tool, details):
            decided = await _decide(config, tool, request, invocation, details, signal, confirm)
            if isinstance(decided, CompletedToolCall):
                return decided
            outcome, invocation = decided
    if signal.aborted:
        return _cancelled(request, messages.CANCELLED_BEFORE_EXECUTION, tool=tool, outcome=outcome)
    completed = await _execute(tool, invocation, request, signal, update_output)
    completed.outcome = outcome
    return completed


async def _confirmation_details(
    tool: BaseDeclarativeTool[Any],
    invocation: ToolInvocation[Any],
    request: ToolCallRequest,
    signal: AbortSignal,
) -> ToolCallConfirmationDetails | Literal[False] | CompletedToolCall:
    try:
        return await invocation.should_confirm_execute(signal)
    except StructuredToolError as exc:
        return _failed(request, exc.message, exc.error_type, tool=tool)
    except Exception as exc:
        message = str(exc) or type(exc).__name__
        return _failed(request, message, ToolErrorType.UNHANDLED_EXCEPTION, tool=tool)


async def _decide(
    config: Config,
    tool: BaseDeclarativeTool[Any],
    request: ToolCallRequest,
    invocation: ToolInvocation[Any],
    details: ToolCallConfirmationDetails,
    signal: AbortSignal,
    confirm: ConfirmationHandler | None,
) -> tuple[ToolConfirmationOutcome, ToolInvocation[Any]] | CompletedToolCall:
    """Ask about the call; the answer and the invocation to run (rebuilt after a modify)."""
    mode = config.approval_mode
    if mode is ApprovalMode.PLAN and details.type not in ("info", "plan"):
        return _failed(
            request,
            messages.plan_mode_blocked(tool.name),
            ToolErrorType.EXECUTION_DENIED,
            tool=tool,
            display=messages.PLAN_MODE_BLOCKED_DISPLAY,
        )
    if mode is ApprovalMode.AUTO_EDIT and details.type in ("edit", "info"):
        return ToolConfirmationOutcome.PROCEED_ONCE, invocation
    if confirm is None:
        return _failed(
            request,
            messages.non_interactive_denied(tool.name),
            ToolErrorType.EXECUTION_DENIED,
            tool=tool,
        )
    while True:
        outcome, payload = await confirm(request, details)
        if signal.aborted:
            return _cancelled(
                request, messages.CANCELLED_DURING_APPROVAL, tool=tool, outcome=outcome
            )
        await details.on_confirm(outcome, payload)
        if outcome is not ToolConfirmationOutcome.MODIFY_WITH_EDITOR:
            break
        if details.type != "edit" or not is_modifiable(tool):
            continue
        modified = await _modify(tool, request, invocation, details, signal)
        if isinstance(modified, CompletedToolCall):
            return modified
        if modified is not None:
            invocation, details = modified
    if not outcome.proceeds:
        reason = (payload.cancel_message if payload else None) or messages.USER_DID_NOT_ALLOW
        display: ToolResultDisplay | None = None
        if details.type == "edit":
            from .._contract.display import FileDiff

            display = FileDiff(
                file_diff=details.file_diff,
                file_name=details.file_name,
                original_content=details.original_content,
                new_content=details.new_content,
                file_path=details.file_path,
            )
        return _cancelled(request, reason, tool=tool, display=display, outcome=outcome)
    remember_always_allow(config, tool, details, outcome)
    return outcome, invocation


async def _modify(
    tool: BaseDeclarativeTool[Any],
    request: ToolCallRequest,
    invocation: ToolInvocation[Any],
    details: ToolCallConfirmationDetails,
    signal: AbortSignal,
) -> tuple[ToolInvocation[Any], ToolCallConfirmationDetails] | CompletedToolCall | None:
    """Run the user's editor on the proposal; the rebuilt call, or ``None`` if nothing changed.

    No editor configured, or an editor that fails, leaves the proposal as it was (the user is
    asked again). A rebuild that fails validation ends the call with an error; the rebuilt
    call's confirmation details replace the old ones (kept if it no longer asks).
    """
    from .modify import EditorError, modify_with_editor

    params = invocation.params
    if not isinstance(params, dict):
        return None
    try:
        updated = await modify_with_editor(cast(ModifiableTool, tool), params, signal)
    except AbortError:
        return _cancelled(request, messages.CANCELLED_DURING_APPROVAL, tool=tool)
    except (EditorError, OSError) as exc:
        _log.warning("modify with editor failed: %s", exc)
        return None
    if updated is None:
        return None
    try:
        rebuilt = tool.build(updated)
    except ToolParamsError as exc:
        return _failed(request, str(exc), ToolErrorType.INVALID_TOOL_PARAMS, tool=tool)
    new_details = await _confirmation_details(tool, rebuilt, request, signal)
    if isinstance(new_details, CompletedToolCall):
        return new_details
    if new_details is False:
        new_details = details
    return rebuilt, new_details


async def _execute(
    tool: BaseDeclarativeTool[Any],
    invocation: ToolInvocation[Any],
    request: ToolCallRequest,
    signal: AbortSignal,
    update_output: UpdateOutput | None,
) -> CompletedToolCall:
    try:
        result = await invocation.execute(signal, update_output if tool.can_update_output else None)
    except StructuredToolError as exc:
        if signal.aborted:
            return _cancelled(request, messages.CANCELLED_DURING_EXECUTION, tool=tool)
        return _failed(request, exc.message, exc.error_type, tool=tool)
    except Exception as exc:
        if signal.aborted:
            return _cancelled(request, messages.CANCELLED_DURING_EXECUTION, tool=tool)
        return _failed(
            request, str(exc) or type(exc).__name__, ToolErrorType.UNHANDLED_EXCEPTION, tool=tool
        )
    if signal.aborted:
        return _cancelled(
            request, messages.CANCELLED_AFTER_COMPLETION, tool=tool, display=result.return_display
        )
    if result.error is not None:
        error: ToolError = result.error
        return _failed(
            request,
            error.message,
            error.type,
            tool=tool,
            display=result.return_display,
            result=result,
        )
    return CompletedToolCall(
        request=request,
        status="success",
        response=function_response_for_result(tool.name, request.call_id, result),
        result=result,
        display=result.return_display,
        tool=tool,
    )
