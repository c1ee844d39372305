"""One tool call through its lifecycle: prepare (look-up, validation), approve, execute.

The three steps are separate so the scheduler can interleave them across a batch;
:func:`run_tool_call` chains them for a single call. Nothing here raises for a bad call:
unknown tools, invalid params, refusals, failures and cancellations all become a
:class:`CompletedToolCall` whose ``response`` is what the model receives.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

from qwen_tools.config.tool_settings import ApprovalMode
from qwen_tools.contract.abort import AbortSignal
from qwen_tools.contract.arg_limits import admit_arguments
from qwen_tools.contract.errors import (
    StructuredToolError,
    ToolError,
    ToolErrorType,
    ToolParamsError,
)
from qwen_tools.contract.function_response import function_response_for_result
from qwen_tools.contract.invocation import ToolInvocation, UpdateOutput
from qwen_tools.contract.outcome import ToolConfirmationOutcome
from qwen_tools.contract.results import ToolResult
from qwen_tools.contract.well_formed import to_well_formed
from qwen_tools.execution import messages
from qwen_tools.execution.approval import (
    confirmation_details,
    decide,
    forced_confirmation,
    rule_refusal,
)
from qwen_tools.execution.call_types import (
    CallStatus,
    CompletedToolCall,
    ConfirmationHandler,
    ToolCallRequest,
    cancelled,
    failed,
)
from qwen_tools.execution.permission_rules import denied_tool_message
from qwen_tools.execution.permissions import is_preapproved, remember_always_allow

if TYPE_CHECKING:
    from qwen_tools.config.config import Config
    from qwen_tools.contract.confirmation import ToolCallConfirmationDetails
    from qwen_tools.contract.declarative import BaseDeclarativeTool
    from qwen_tools.hooks.system import HookSystem
    from qwen_tools.registry.registry import ToolRegistry

__all__ = [
    "CallStatus",
    "CompletedToolCall",
    "ConfirmationHandler",
    "PreparedCall",
    "ResultHook",
    "ToolCallRequest",
    "approve_call",
    "execute_call",
    "guarded_approval",
    "is_preapproved",
    "prepare_call",
    "remember_always_allow",
    "run_tool_call",
]

ResultHook = Callable[["BaseDeclarativeTool[Any]", str, ToolResult], ToolResult]
"""Transforms a successful result before it becomes the response (e.g. the output budget)."""


@dataclass(slots=True)
class PreparedCall:
    """A call whose tool was found and whose params built an invocation."""

    request: ToolCallRequest
    tool: BaseDeclarativeTool[Any]
    invocation: ToolInvocation[Any]
    outcome: ToolConfirmationOutcome | None = None
    hooks: HookSystem | None = None
    """The session's hooks, when it has any (set by :func:`approve_call`)."""
    tool_use_id: str = ""
    hook_reason: str | None = None
    transcript: Iterable[Mapping[str, Any]] = ()
    """The conversation so far, for the ``auto`` mode's classifier (set by the scheduler)."""


def prepare_call(
    registry: ToolRegistry, request: ToolCallRequest, signal: AbortSignal
) -> PreparedCall | CompletedToolCall:
    """Look the tool up and validate the params (the reference's pre-execution checks).

    A ``tool_call`` of the deferred-tool bridge becomes a call of the tool it names
    (:func:`~qwen_tools.mcp.deferred_tools.resolve_deferred_tool_call`), or is refused.
    """
    if signal.aborted:
        return cancelled(request, messages.CANCELLED_BEFORE_EXECUTION)
    request, too_deep = _admitted(request)
    if request.name == "tool_call" and too_deep is None and "tool_call" in registry:
        from qwen_tools.mcp.deferred_tools import BridgeRefusal, resolve_deferred_tool_call

        resolved = resolve_deferred_tool_call(registry, request.args)
        if isinstance(resolved, BridgeRefusal):
            return failed(request, resolved.message, resolved.error_type)
        request = replace(request, name=resolved[0], args=resolved[1])
    tool = registry.get_tool(request.name)
    if tool is None and (rule := registry.denied_rule(request.name)) is not None:
        message = denied_tool_message(request.name, rule)
        return failed(request, message, ToolErrorType.EXECUTION_DENIED)
    if tool is None:
        return failed(
            request, registry.unknown_tool_message(request.name), ToolErrorType.TOOL_NOT_REGISTERED
        )
    if too_deep is not None:
        return failed(request, too_deep, ToolErrorType.INVALID_TOOL_PARAMS, tool=tool)
    try:
        invocation = tool.build(request.args)
    except ToolParamsError as exc:
        return failed(request, str(exc), ToolErrorType.INVALID_TOOL_PARAMS, tool=tool)
    except Exception as exc:  # a tool's own checks failed on odd input: still the model's error
        message = str(exc) or type(exc).__name__
        return failed(request, message, ToolErrorType.INVALID_TOOL_PARAMS, tool=tool)
    return PreparedCall(request, tool, invocation)


def _admitted(request: ToolCallRequest) -> tuple[ToolCallRequest, str | None]:
    """The request as tools may see it (:func:`admit_arguments`), and the depth error if any.

    The name is made well-formed too, so an unknown name can be quoted back in any transport.
    """
    name = to_well_formed(request.name) if isinstance(request.name, str) else str(request.name)
    args, too_deep, _ = admit_arguments(request.args)
    if name is not request.name or args is not request.args:
        request = replace(request, name=name, args=args)
    return request, too_deep


async def approve_call(
    config: Config,
    call: PreparedCall,
    signal: AbortSignal,
    confirm: ConfirmationHandler | None,
) -> CompletedToolCall | None:
    """Decide whether the call may run; ``None`` means it may (``call`` may be rebuilt).

    Deny rules come first (every mode); then the PreToolUse hooks (:mod:`.hook_points`): deny,
    ask (asked in every mode), allow (no prompt, unless an ask rule or plan mode), or new
    arguments; then yolo runs everything; an ask rule makes the call ask even when the tool
    would not, and allow rules cannot pre-approve it.
    """
    verdict = rule_refusal(config, call.tool, call.request, call.invocation.params)
    if isinstance(verdict, CompletedToolCall):
        return verdict
    hook_decision = await _pre_tool_hooks(config, call)
    if isinstance(hook_decision, CompletedToolCall):
        return hook_decision
    if hook_decision == "ask":
        from qwen_tools.execution.hook_points import ask_for_hook

        assert call.hooks is not None
        asked = await ask_for_hook(
            call.hooks, call.tool, call.request, call.hook_reason, signal, confirm
        )
        if isinstance(asked, CompletedToolCall):
            return asked
        call.outcome = asked
        return None
    if config.approval_mode is ApprovalMode.YOLO:
        return None
    if (
        hook_decision == "allow"
        and verdict.decision != "ask"
        and config.approval_mode is not ApprovalMode.PLAN
    ):
        return None
    details = await confirmation_details(call.tool, call.invocation, call.request, signal)
    if isinstance(details, CompletedToolCall):
        return details
    if verdict.decision == "ask":
        details = details or forced_confirmation(call.tool, call.invocation)
        if details.type in ("exec", "mcp", "info"):
            details.hide_always_allow = True  # an ask rule asks every time (0.24.4)
    elif details is False or is_preapproved(config, call.tool, call.invocation.params, details):
        if not await _auto_reviews_anyway(config, call, details):
            return None
        details = details or forced_confirmation(call.tool, call.invocation)
    decided = await decide(
        config,
        call.tool,
        call.request,
        call.invocation,
        details,
        signal,
        confirm,
        forced_ask=verdict.decision == "ask",
        transcript=call.transcript,
    )
    if isinstance(decided, CompletedToolCall):
        return decided
    call.outcome, call.invocation = decided
    return None


async def _auto_reviews_anyway(
    config: Config, call: PreparedCall, details: ToolCallConfirmationDetails | Literal[False]
) -> bool:
    """In ``auto``, a call that would run unasked is still reviewed when it writes a protected
    file, when it is a shell command and ``classifyAllShell`` is on, or when only an allow rule
    too broad for ``auto`` pre-approved it (:mod:`.auto_rules`; 0.24.4)."""
    if config.approval_mode is not ApprovalMode.AUTO:
        return False
    import anyio.to_thread

    from qwen_tools.execution.auto_guards import SHELL_TOOL, protected_write
    from qwen_tools.execution.auto_mode import classifies_all_shell
    from qwen_tools.execution.auto_rules import still_preapproved

    name, params = call.tool.name, call.invocation.params
    if name == SHELL_TOOL and classifies_all_shell(config):
        return True
    if details is not False and not still_preapproved(config, name, params, details):
        return True
    return bool(await anyio.to_thread.run_sync(protected_write, config, name, params))


async def _pre_tool_hooks(config: Config, call: PreparedCall) -> str | CompletedToolCall | None:
    """Fire PreToolUse when the session has hooks; the decision, or the call's end."""
    from qwen_tools.hooks.gate import hooks_for

    hooks = hooks_for(config)
    if hooks is None:
        return None
    from qwen_tools.hooks.events import new_tool_use_id

    call.hooks, call.tool_use_id = hooks, new_tool_use_id()
    if not hooks.has("PreToolUse"):
        return None
    from qwen_tools.execution.hook_points import before_approval

    decided = await before_approval(hooks, config, call.tool, call.request, call.tool_use_id)
    if isinstance(decided, CompletedToolCall):
        return decided
    verdict, call.request, rebuilt = decided
    if rebuilt is not None:
        call.invocation = rebuilt
    call.hook_reason = verdict.reason
    return verdict.decision


async def guarded_approval(
    config: Config,
    call: PreparedCall,
    signal: AbortSignal,
    confirm: ConfirmationHandler | None,
) -> CompletedToolCall | None:
    """:func:`approve_call`, with a failure of the approval machinery as the call's error."""
    try:
        return await approve_call(config, call, signal, confirm)
    except Exception as exc:
        message = str(exc) or type(exc).__name__
        return failed(call.request, message, ToolErrorType.UNHANDLED_EXCEPTION, tool=call.tool)


async def execute_call(
    call: PreparedCall,
    signal: AbortSignal,
    update_output: UpdateOutput | None = None,
    on_result: ResultHook | None = None,
) -> CompletedToolCall:
    """Run an approved call and turn its result (or exception) into the model's response.

    With hooks, PostToolUse sees a success (its context is appended, ``continue: false`` turns
    the call into an error) and PostToolUseFailure an error or a cancellation after the start
    (its context is appended to the message).
    """
    tool, request = call.tool, call.request
    if signal.aborted:
        return cancelled(
            request, messages.CANCELLED_BEFORE_EXECUTION, tool=tool, outcome=call.outcome
        )
    started = time.monotonic()

    async def told(message: str, interrupted: bool = False) -> str:
        if call.hooks is None:
            return message
        from qwen_tools.execution.hook_points import after_failure

        elapsed = (time.monotonic() - started) * 1000
        return await after_failure(
            call.hooks,
            tool,
            request,
            call.invocation,
            message,
            call.tool_use_id,
            interrupted=interrupted,
            duration_ms=elapsed,
        )

    try:
        result = await call.invocation.execute(
            signal, update_output if tool.can_update_output else None
        )
    except Exception as exc:
        if signal.aborted:
            reason = await told(messages.CANCELLED_DURING_EXECUTION, True)
            return cancelled(request, reason, tool=tool, outcome=call.outcome)
        if isinstance(exc, StructuredToolError):
            message, error_type = exc.message, exc.error_type
        else:
            message, error_type = str(exc) or type(exc).__name__, ToolErrorType.UNHANDLED_EXCEPTION
        return _with_outcome(failed(request, await told(message), error_type, tool=tool), call)
    if signal.aborted:
        # A tool that stopped because of the abort was cancelled while it ran; only one that
        # finished its work anyway "had already completed".
        reason = (
            messages.CANCELLED_DURING_EXECUTION
            if result.interrupted
            else messages.CANCELLED_AFTER_COMPLETION
        )
        return cancelled(
            request,
            await told(reason, True),
            tool=tool,
            display=result.return_display,
            outcome=call.outcome,
        )
    if result.error is not None:
        error: ToolError = result.error
        done = failed(
            request,
            await told(error.message),
            error.type,
            tool=tool,
            display=result.return_display,
            result=result,
        )
        return _with_outcome(done, call)
    context: str | None = None
    if call.hooks is not None and call.hooks.has("PostToolUse"):
        from qwen_tools.execution.hook_points import after_success

        elapsed = (time.monotonic() - started) * 1000
        stop, context = await after_success(
            call.hooks, tool, request, call.invocation, result, call.tool_use_id, elapsed
        )
        if stop is not None:
            done = failed(request, stop, ToolErrorType.EXECUTION_DENIED, tool=tool)
            return _with_outcome(done, call)
    if on_result is not None:
        result = on_result(tool, request.call_id, result)
    if context:
        from qwen_tools.execution.hook_points import append_context

        result = append_context(tool.name, result, context)
    return CompletedToolCall(
        request=request,
        status="success",
        response=function_response_for_result(tool.name, request.call_id, result),
        result=result,
        display=result.return_display,
        outcome=call.outcome,
        tool=tool,
    )


def _with_outcome(done: CompletedToolCall, call: PreparedCall) -> CompletedToolCall:
    done.outcome = call.outcome
    return done


async def run_tool_call(
    registry: ToolRegistry,
    config: Config,
    request: ToolCallRequest,
    signal: AbortSignal | None = None,
    *,
    confirm: ConfirmationHandler | None = None,
    update_output: UpdateOutput | None = None,
    on_result: ResultHook | None = None,
) -> CompletedToolCall:
    """Drive one call through the whole flow and return its completed state.

    ``confirm`` is asked when the call needs approval; without it (no user to ask) such calls
    are refused with the reference's non-interactive message.
    """
    started = time.monotonic()
    signal = signal or AbortSignal.never()
    prepared = prepare_call(registry, request, signal)
    if isinstance(prepared, PreparedCall):
        refused = await guarded_approval(config, prepared, signal, confirm)
        completed = refused or await execute_call(prepared, signal, update_output, on_result)
    else:
        completed = prepared
    completed.duration_ms = (time.monotonic() - started) * 1000
    return completed
