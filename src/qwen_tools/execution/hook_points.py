"""Where a tool call meets the user's hooks (:mod:`qwen_tools.hooks`).

* :func:`before_approval` — PreToolUse, after validation and the deny rules, before the call is
  approved: ``deny`` ends the call (``execution_denied``, the hook's reason or ``Tool execution
  blocked by hook``), ``updatedInput`` rebuilds the call from the new arguments (validated again,
  then checked against the deny rules again), ``ask``/``allow`` are returned for the approval;
* :func:`ask_for_hook` — a PreToolUse ``ask``: the user is asked even in yolo or auto-edit
  mode; nobody to ask refuses the call with the hook's reason (``User confirmation required``);
* :func:`permission_hooks` — PermissionRequest when the call is about to ask the user, and
  the Notification hook when it does ask;
* :func:`after_success` / :func:`after_failure` — PostToolUse and PostToolUseFailure.

Every function here is only reached when the session has hooks (:func:`hooks_for`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from qwen_tools.contract.errors import ToolErrorType
from qwen_tools.contract.parts import TextPart, content_to_json, to_parts
from qwen_tools.execution import messages
from qwen_tools.execution.call_types import CompletedToolCall, cancelled, failed
from qwen_tools.hooks.gate import hooks_for

if TYPE_CHECKING:
    from qwen_tools.config.config import Config
    from qwen_tools.contract.abort import AbortSignal
    from qwen_tools.contract.confirmation import ToolConfirmationOutcome
    from qwen_tools.contract.declarative import BaseDeclarativeTool
    from qwen_tools.contract.invocation import ToolInvocation
    from qwen_tools.contract.results import ToolResult
    from qwen_tools.execution.call_types import ConfirmationHandler, ToolCallRequest
    from qwen_tools.hooks.events import PreToolVerdict
    from qwen_tools.hooks.system import HookSystem

__all__ = [
    "after_failure",
    "after_success",
    "ask_for_hook",
    "before_approval",
    "hooks_for",
    "permission_hooks",
]


def _rebuild(
    config: Config,
    tool: BaseDeclarativeTool[Any],
    request: ToolCallRequest,
    args: dict[str, Any],
) -> tuple[ToolCallRequest, ToolInvocation[Any]] | CompletedToolCall:
    """The call rebuilt from hook-given arguments: validated, then the deny rules again."""
    from qwen_tools.config.tool_settings import ApprovalMode
    from qwen_tools.contract.errors import ToolParamsError
    from qwen_tools.execution.permission_rules import denied_call_message, evaluate_rules

    request = replace(request, args=args)
    try:
        invocation = tool.build(args)
    except ToolParamsError as exc:
        return failed(request, str(exc), ToolErrorType.INVALID_TOOL_PARAMS, tool=tool)
    except Exception as exc:
        message = str(exc) or type(exc).__name__
        return failed(request, message, ToolErrorType.INVALID_TOOL_PARAMS, tool=tool)
    # the deny rules again, as approval.rule_refusal applies them (that module imports this one)
    verdict = evaluate_rules(config, tool, invocation.params)
    if verdict.decision == "deny" or (verdict.opaque and config.approval_mode is ApprovalMode.YOLO):
        message = denied_call_message(request.name, verdict)
        return failed(request, message, ToolErrorType.EXECUTION_DENIED, tool=tool)
    return request, invocation


async def before_approval(
    hooks: HookSystem,
    config: Config,
    tool: BaseDeclarativeTool[Any],
    request: ToolCallRequest,
    tool_use_id: str,
) -> tuple[PreToolVerdict, ToolCallRequest, ToolInvocation[Any] | None] | CompletedToolCall:
    """Fire PreToolUse; the verdict and, when the hook rewrote the input, the rebuilt call."""
    from qwen_tools.hooks.events import pre_tool_use

    verdict = await pre_tool_use(hooks, tool.name, request.args, request.call_id, tool_use_id)
    if verdict.decision == "deny":
        return failed(request, verdict.block_message, ToolErrorType.EXECUTION_DENIED, tool=tool)
    if verdict.updated_input is None:
        return verdict, request, None
    rebuilt = _rebuild(config, tool, request, verdict.updated_input)
    if isinstance(rebuilt, CompletedToolCall):
        return rebuilt
    return verdict, rebuilt[0], rebuilt[1]


async def ask_for_hook(
    hooks: HookSystem,
    tool: BaseDeclarativeTool[Any],
    request: ToolCallRequest,
    reason: str | None,
    signal: AbortSignal,
    confirm: ConfirmationHandler | None,
) -> ToolConfirmationOutcome | CompletedToolCall:
    """Ask the user because a PreToolUse hook said ``ask``."""
    from qwen_tools.contract.confirmation import InfoConfirmationDetails
    from qwen_tools.hooks.events import (
        CONFIRMATION_REQUIRED,
        ask_prompt,
        ask_title,
        notify_permission_prompt,
    )

    if confirm is None:
        message = reason or CONFIRMATION_REQUIRED
        return failed(request, message, ToolErrorType.EXECUTION_DENIED, tool=tool)
    details = InfoConfirmationDetails(
        title=ask_title(request.name),
        prompt=ask_prompt(request.name, reason),
        hide_always_allow=True,  # a hook's ask is answered once
    )
    notify_permission_prompt(hooks, request.name)
    outcome, payload = await confirm(request, details)
    if signal.aborted:
        return cancelled(request, messages.CANCELLED_DURING_APPROVAL, tool=tool, outcome=outcome)
    if not outcome.proceeds:
        text = (payload.cancel_message if payload else None) or messages.USER_DID_NOT_ALLOW
        return cancelled(request, text, tool=tool, outcome=outcome)
    return outcome


async def permission_hooks(
    config: Config,
    tool: BaseDeclarativeTool[Any],
    request: ToolCallRequest,
    invocation: ToolInvocation[Any],
) -> tuple[ToolConfirmationOutcome, ToolInvocation[Any]] | CompletedToolCall | None:
    """PermissionRequest as the call is about to ask; ``None``: ask the user (Notification)."""
    hooks = hooks_for(config)
    if hooks is None:
        return None
    from qwen_tools.contract.confirmation import ToolConfirmationOutcome
    from qwen_tools.hooks.events import (
        notify_permission_prompt,
        permission_denied_by_hook,
        permission_request,
    )

    args = invocation.params if isinstance(invocation.params, dict) else request.args
    answer = await permission_request(hooks, tool.name, args)
    if answer is None:
        notify_permission_prompt(hooks, request.name)
        return None
    if not answer.allow:
        message = answer.message or permission_denied_by_hook(request.name)
        return failed(request, message, ToolErrorType.EXECUTION_DENIED, tool=tool)
    if answer.updated_input is not None:
        rebuilt = _rebuild(config, tool, request, answer.updated_input)
        if isinstance(rebuilt, CompletedToolCall):
            return rebuilt
        invocation = rebuilt[1]
    return ToolConfirmationOutcome.PROCEED_ONCE, invocation


def _args(request: ToolCallRequest, invocation: ToolInvocation[Any]) -> dict[str, Any]:
    params = invocation.params
    return dict(params) if isinstance(params, dict) else dict(request.args)


def _display_json(display: Any) -> Any:
    if display is None or isinstance(display, str):
        return display
    to_dict = getattr(display, "to_dict", None)
    if callable(to_dict):
        value = to_dict()
        if isinstance(value, dict) and value.get("type") == "shell" and "text" in value:
            return value["text"]
        return value
    return str(display)


def _with_context(tool_name: str, result: ToolResult, context: str) -> ToolResult:
    from qwen_tools.contract.function_response import empty_output_text, is_empty_content

    content = result.llm_content
    if is_empty_content(content):
        content = empty_output_text(tool_name)
    if isinstance(content, str):
        return replace(result, llm_content=f"{content}\n\n{context}")
    return replace(result, llm_content=[*to_parts(content), TextPart(context)])


async def after_success(
    hooks: HookSystem,
    tool: BaseDeclarativeTool[Any],
    request: ToolCallRequest,
    invocation: ToolInvocation[Any],
    result: ToolResult,
    tool_use_id: str,
    duration_ms: float,
) -> tuple[str | None, str | None]:
    """PostToolUse: the stop message (the call becomes an error) and the context to append."""
    from qwen_tools.hooks.events import post_tool_use

    response: dict[str, Any] = {"llmContent": content_to_json(result.llm_content)}
    display = _display_json(result.return_display)
    if display is not None:
        response["returnDisplay"] = display
    return await post_tool_use(
        hooks,
        tool.name,
        _args(request, invocation),
        response,
        request.call_id,
        tool_use_id,
        duration_ms,
    )


def append_context(tool_name: str, result: ToolResult, context: str | None) -> ToolResult:
    """The result with a hook's context after its content (a blank line between)."""
    return result if not context else _with_context(tool_name, result, context)


async def after_failure(
    hooks: HookSystem,
    tool: BaseDeclarativeTool[Any],
    request: ToolCallRequest,
    invocation: ToolInvocation[Any],
    message: str,
    tool_use_id: str,
    *,
    interrupted: bool,
    duration_ms: float | None,
) -> str:
    """PostToolUseFailure: ``message`` with the hooks' context appended (a blank line between)."""
    from qwen_tools.hooks.events import post_tool_use_failure

    context = await post_tool_use_failure(
        hooks,
        tool.name,
        _args(request, invocation),
        message,
        call_id=request.call_id,
        tool_use_id=tool_use_id,
        is_interrupt=interrupted,
        duration_ms=duration_ms,
    )
    return f"{message}\n\n{context}" if context else message
