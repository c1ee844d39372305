"""Approval of one call: its confirmation details, the approval mode, asking the user, modify.

``rule_refusal`` applies deny rules (every mode, yolo included; see :mod:`.permission_rules`)
and ``forced_confirmation`` gives the prompt an ask rule needs for a tool that would not ask.
``decide`` applies the approval mode (plan blocks everything but info and plan confirmations,
auto-edit approves edit and info confirmations — except edits of the sensitive files of
:mod:`.sensitive_paths`, which ask in every mode but yolo; auto lets :mod:`.auto_mode` approve,
block or hand the call over), refuses when nobody can be asked,
otherwise lets the PermissionRequest hooks answer (:mod:`.hook_points`), else asks through the
:data:`ConfirmationHandler` — looping through modify-with-editor rounds — and records "always
allow" answers: for the session, or in a settings file ("in this project" / "for this user",
:mod:`.always_rules`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal, cast

from qwen_tools.config.tool_settings import ApprovalMode
from qwen_tools.contract.abort import AbortError, AbortSignal
from qwen_tools.contract.errors import StructuredToolError, ToolErrorType, ToolParamsError
from qwen_tools.contract.invocation import ToolInvocation
from qwen_tools.contract.modifiable import ModifiableTool, is_modifiable
from qwen_tools.contract.outcome import ToolConfirmationOutcome
from qwen_tools.execution import messages
from qwen_tools.execution.always_rules import inject_permission_rules, persist_answer
from qwen_tools.execution.call_types import (
    CompletedToolCall,
    ConfirmationHandler,
    ToolCallRequest,
    cancelled,
    failed,
)
from qwen_tools.execution.permission_rules import RuleVerdict, denied_call_message, evaluate_rules
from qwen_tools.execution.permissions import SHELL, remember_always_allow
from qwen_tools.execution.sensitive_paths import is_sensitive_edit

if TYPE_CHECKING:
    from qwen_tools.config.config import Config
    from qwen_tools.contract.confirmation import ToolCallConfirmationDetails
    from qwen_tools.contract.declarative import BaseDeclarativeTool
    from qwen_tools.contract.display import ToolResultDisplay

_log = logging.getLogger("qwen_tools")


async def confirmation_details(
    tool: BaseDeclarativeTool[Any],
    invocation: ToolInvocation[Any],
    request: ToolCallRequest,
    signal: AbortSignal,
) -> ToolCallConfirmationDetails | Literal[False] | CompletedToolCall:
    try:
        return await invocation.should_confirm_execute(signal)
    except StructuredToolError as exc:
        return failed(request, exc.message, exc.error_type, tool=tool)
    except Exception as exc:
        message = str(exc) or type(exc).__name__
        return failed(request, message, ToolErrorType.UNHANDLED_EXCEPTION, tool=tool)


def rule_refusal(
    config: Config, tool: BaseDeclarativeTool[Any], request: ToolCallRequest, params: Any
) -> RuleVerdict | CompletedToolCall:
    """The refusal a deny rule gives this call, else the rules' verdict (``ask`` or not).

    In yolo a call that asks only because a shell command cannot be checked against a rule is
    refused: nobody would be asked.
    """
    verdict = evaluate_rules(config, tool, params)
    yolo = config.approval_mode is ApprovalMode.YOLO
    if verdict.decision == "deny" or (verdict.opaque and yolo):
        message = denied_call_message(request.name, verdict)
        return failed(request, message, ToolErrorType.EXECUTION_DENIED, tool=tool)
    return verdict


def forced_confirmation(
    tool: BaseDeclarativeTool[Any], invocation: ToolInvocation[Any]
) -> ToolCallConfirmationDetails:
    """The prompt for a call that asks only because an ask rule says so.

    The shell gets its usual exec prompt; any other tool a generic info prompt (title
    ``Confirm <display name>``, the call's description), as Qwen Code's default
    ``getConfirmationDetails`` gives.
    """
    from qwen_tools.contract.confirmation import ExecConfirmationDetails, InfoConfirmationDetails

    params = invocation.params if isinstance(invocation.params, dict) else {}
    if tool.name == SHELL:
        from qwen_tools.shell.command_analysis import analyze_command

        command = str(params.get("command", ""))
        return ExecConfirmationDetails(
            title="Confirm Shell Command",
            command=command,
            root_commands=analyze_command(command).roots,
        )
    return InfoConfirmationDetails(
        title=f"Confirm {tool.display_name}", prompt=invocation.get_description()
    )


async def decide(
    config: Config,
    tool: BaseDeclarativeTool[Any],
    request: ToolCallRequest,
    invocation: ToolInvocation[Any],
    details: ToolCallConfirmationDetails,
    signal: AbortSignal,
    confirm: ConfirmationHandler | None,
    *,
    forced_ask: bool = False,
    transcript: Iterable[Mapping[str, Any]] = (),
) -> tuple[ToolConfirmationOutcome, ToolInvocation[Any]] | CompletedToolCall:
    """Ask about the call; the answer and the invocation to run (rebuilt after a modify).

    In ``auto`` mode :func:`~.auto_mode.review` may approve or block the call first
    (``forced_ask``: an ask rule matched; ``transcript``: the conversation so far).
    """
    mode = config.approval_mode
    auto_fallback = False
    if mode is ApprovalMode.AUTO:
        from qwen_tools.execution.auto_mode import review

        verdict = await review(
            config,
            tool.name,
            invocation.params,
            forced_ask=forced_ask,
            transcript=transcript,
            signal=signal,
        )
        if verdict.classifier_denied:
            from qwen_tools.execution.auto_mode import permission_denied_hooks

            await permission_denied_hooks(config, tool.name, invocation.params, request.call_id)
        if verdict.kind == "approved":
            return ToolConfirmationOutcome.PROCEED_ONCE, invocation
        if verdict.kind == "blocked":
            return failed(request, verdict.message, ToolErrorType.EXECUTION_DENIED, tool=tool)
        auto_fallback = verdict.fallback
        if auto_fallback and details.type in ("exec", "mcp", "info"):
            details.hide_always_allow = True  # a call handed back is answered once (0.24.4)
        if verdict.message and details.type == "exec":
            details.warnings = (*details.warnings, verdict.message)  # why it asks after all
    if mode is ApprovalMode.PLAN and details.type not in ("info", "plan"):
        text = (
            messages.PLAN_MODE_SHELL_BLOCKED
            if details.type == "exec"
            else messages.plan_mode_blocked(tool.name)
        )
        return failed(
            request,
            text,
            ToolErrorType.EXECUTION_DENIED,
            tool=tool,
            display=messages.PLAN_MODE_BLOCKED_DISPLAY,
        )
    if (
        mode is ApprovalMode.AUTO_EDIT
        and details.type in ("edit", "info")
        and not (details.type == "edit" and await is_sensitive_edit(config, details.file_path))
    ):
        return ToolConfirmationOutcome.PROCEED_ONCE, invocation
    if confirm is None:
        return failed(
            request,
            messages.non_interactive_denied(tool.name),
            ToolErrorType.EXECUTION_DENIED,
            tool=tool,
        )
    from qwen_tools.execution.hook_points import permission_hooks

    answered = await permission_hooks(config, tool, request, invocation)
    if answered is not None:
        return answered
    _offer_always(config, tool, invocation, details)
    while True:
        outcome, payload = await confirm(request, details)
        if signal.aborted:
            return cancelled(
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
            from qwen_tools.contract.display import FileDiff

            display = FileDiff(
                file_diff=details.file_diff,
                file_name=details.file_name,
                original_content=details.original_content,
                new_content=details.new_content,
                file_path=details.file_path,
            )
        return cancelled(request, reason, tool=tool, display=display, outcome=outcome)
    if auto_fallback:
        from qwen_tools.execution.auto_mode import manual_approval

        manual_approval(config)
    remember_always_allow(config, tool, details, outcome)
    if outcome in _PERSISTED:
        persist_answer(config, details, outcome)
    return outcome, invocation


_PERSISTED = (
    ToolConfirmationOutcome.PROCEED_ALWAYS_PROJECT,
    ToolConfirmationOutcome.PROCEED_ALWAYS_USER,
)


def _offer_always(
    config: Config,
    tool: BaseDeclarativeTool[Any],
    invocation: ToolInvocation[Any],
    details: ToolCallConfirmationDetails,
) -> None:
    """Name the rules "Always allow …" would persist; hide it in a folder that is not trusted."""
    if details.type not in ("exec", "mcp", "info"):
        return
    inject_permission_rules(details, tool.name, invocation.params, str(config.target_dir))
    if config.loaded_settings is not None and not config.loaded_settings.trusted:
        details.hide_always_allow = True


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
    from qwen_tools.execution.modify import EditorError, modify_with_editor

    params = invocation.params
    if not isinstance(params, dict):
        return None
    try:
        updated = await modify_with_editor(cast(ModifiableTool, tool), params, signal)
    except AbortError:
        return cancelled(request, messages.CANCELLED_DURING_APPROVAL, tool=tool)
    except (EditorError, OSError) as exc:
        _log.warning("modify with editor failed: %s", exc)
        return None
    if updated is None:
        return None
    try:
        rebuilt = tool.build(updated)
    except ToolParamsError as exc:
        return failed(request, str(exc), ToolErrorType.INVALID_TOOL_PARAMS, tool=tool)
    new_details = await confirmation_details(tool, rebuilt, request, signal)
    if isinstance(new_details, CompletedToolCall):
        return new_details
    if new_details is False:
        new_details = details
    return rebuilt, new_details
