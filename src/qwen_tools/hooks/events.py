"""The tool-call events as the execution flow asks them, with Qwen Code 0.24.4's texts.

* :func:`pre_tool_use` — before a call is approved: ``deny`` (or ``continue: false``) blocks it,
  ``ask`` makes it ask the user, ``allow`` lets it run without asking, ``updatedInput``
  replaces its arguments;
* :func:`permission_request` — when the call would ask the user: ``allow`` (with an optional
  ``updatedInput``) or ``deny``;
* :func:`notify_permission_prompt` — the Notification hook as the user is asked (not awaited);
* :func:`post_tool_use` / :func:`post_tool_use_failure` — after the call: context appended to
  what the model receives, or (PostToolUse ``continue: false``) the result replaced by an error.

A hook that fails, hangs or prints nothing usable changes nothing: the call goes on.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from qwen_tools.hooks.system import HookSystem

__all__ = [
    "BLOCKED_BY_HOOK",
    "STOPPED_BY_HOOK",
    "PermissionAnswer",
    "PreToolVerdict",
    "ask_prompt",
    "ask_title",
    "new_tool_use_id",
    "notify_permission_prompt",
    "permission_denied_by_hook",
    "permission_request",
    "post_tool_use",
    "post_tool_use_failure",
    "pre_tool_use",
]

BLOCKED_BY_HOOK = "Tool execution blocked by hook"
STOPPED_BY_HOOK = "Execution stopped by hook"
CONFIRMATION_REQUIRED = "User confirmation required"


def permission_denied_by_hook(name: str) -> str:
    return f'Permission denied by hook for "{name}"'


def ask_title(name: str) -> str:
    """The title of the prompt a PreToolUse ``ask`` shows."""
    return f"Hook requested confirmation to run {name}"


def ask_prompt(name: str, reason: str | None) -> str:
    """The prompt a PreToolUse ``ask`` shows (its reason, else the reference's default)."""
    return reason or f"A PreToolUse hook requested confirmation before running {name}."


def new_tool_use_id() -> str:
    """``toolu_<ms>_<9 base-36 chars>``, as the reference makes ``tool_use_id``."""
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    tail = "".join(digits[b % 36] for b in os.urandom(9))
    return f"toolu_{int(time.time() * 1000)}_{tail}"


@dataclass(frozen=True)
class PreToolVerdict:
    """What the PreToolUse hooks decided (``decision`` ``None``: nothing, the call goes on)."""

    decision: Literal["allow", "deny", "ask"] | None = None
    reason: str | None = None
    updated_input: dict[str, Any] | None = None

    @property
    def block_message(self) -> str:
        """The error the model receives when the call is blocked."""
        return self.reason or BLOCKED_BY_HOOK


async def pre_tool_use(
    hooks: HookSystem, name: str, args: Mapping[str, Any], call_id: str, tool_use_id: str
) -> PreToolVerdict:
    """Fire PreToolUse for one call."""
    result = await hooks.fire(
        "PreToolUse",
        {
            "permission_mode": _mode(hooks),
            "tool_name": name,
            "tool_input": dict(args),
            "tool_use_id": tool_use_id,
            **({"tool_call_id": call_id} if call_id else {}),
        },
        target=name,
    )
    output = result.output
    if output is None:
        return PreToolVerdict()
    decision = output.permission_decision()
    if decision == "deny":
        reason = output.permission_decision_reason() or output.effective_reason()
        return PreToolVerdict("deny", reason)
    if decision == "ask":
        return PreToolVerdict("ask", output.permission_decision_reason())
    if output.stops():
        return PreToolVerdict("deny", output.effective_reason())
    updated = output.updated_input()
    return PreToolVerdict("allow" if decision == "allow" else None, None, updated)


@dataclass(frozen=True)
class PermissionAnswer:
    """A PermissionRequest hook's decision."""

    allow: bool
    message: str | None = None
    updated_input: dict[str, Any] | None = None


async def permission_request(
    hooks: HookSystem, name: str, args: Mapping[str, Any]
) -> PermissionAnswer | None:
    """Fire PermissionRequest; ``None`` when no hook decided."""
    if not hooks.has("PermissionRequest"):
        return None
    result = await hooks.fire(
        "PermissionRequest",
        {"permission_mode": _mode(hooks), "tool_name": name, "tool_input": dict(args)},
        target=name,
    )
    decision = result.output.permission_request() if result.output else None
    if not decision:
        return None
    updated = decision.get("updatedInput")
    message = decision.get("message")
    if decision.get("behavior") == "allow":
        return PermissionAnswer(True, None, dict(updated) if isinstance(updated, dict) else None)
    return PermissionAnswer(False, message if isinstance(message, str) and message else None)


def notify_permission_prompt(hooks: HookSystem, name: str) -> None:
    """The Notification hook as a prompt opens (``permission_prompt``), not awaited."""
    hooks.fire_and_forget(
        "Notification",
        {
            "message": f"Qwen Code needs your permission to use {name}",
            "notification_type": "permission_prompt",
            "title": "Permission needed",
        },
        "permission_prompt",
    )


async def post_tool_use(
    hooks: HookSystem,
    name: str,
    args: Mapping[str, Any],
    response: Mapping[str, Any],
    call_id: str,
    tool_use_id: str,
    duration_ms: float,
) -> tuple[str | None, str | None]:
    """Fire PostToolUse: ``(stop message or None, additional context or None)``."""
    if not hooks.has("PostToolUse"):
        return None, None
    result = await hooks.fire(
        "PostToolUse",
        {
            "permission_mode": _mode(hooks),
            "tool_name": name,
            "tool_input": dict(args),
            "tool_response": dict(response),
            "tool_use_id": tool_use_id,
            **({"tool_call_id": call_id} if call_id else {}),
            "duration_ms": round(duration_ms),
        },
        target=name,
    )
    output = result.output
    if output is None:
        return None, None
    stop = (output.effective_reason() or STOPPED_BY_HOOK) if output.stops() else None
    return stop, output.additional_context()


async def post_tool_use_failure(
    hooks: HookSystem,
    name: str,
    args: Mapping[str, Any],
    error: str,
    *,
    call_id: str,
    tool_use_id: str,
    is_interrupt: bool,
    duration_ms: float | None,
) -> str | None:
    """Fire PostToolUseFailure: the additional context to append to the error, if any."""
    if not hooks.has("PostToolUseFailure"):
        return None
    result = await hooks.fire(
        "PostToolUseFailure",
        {
            "permission_mode": _mode(hooks),
            "tool_use_id": tool_use_id,
            **({"tool_call_id": call_id} if call_id else {}),
            "tool_name": name,
            "tool_input": dict(args),
            "error": error,
            "is_interrupt": is_interrupt,
            **({} if duration_ms is None else {"duration_ms": round(duration_ms)}),
        },
        target=name,
    )
    return result.output.additional_context() if result.output else None


def _mode(hooks: HookSystem) -> str:
    from qwen_tools.hooks.system import permission_mode

    return permission_mode(hooks.config)
