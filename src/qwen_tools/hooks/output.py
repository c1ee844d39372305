"""A hook's JSON output, how several hooks' outputs merge, and what each event reads from it.

Mirrors Qwen Code 0.24.4's ``HookOutput`` classes and ``HookAggregator``:

* common fields: ``continue`` (``false`` stops), ``stopReason``, ``suppressOutput``,
  ``systemMessage``; top-level ``decision`` (``block``/``deny`` block) and ``reason``;
  ``hookSpecificOutput`` with ``additionalContext`` and event-specific fields;
* PreToolUse: ``hookSpecificOutput.permissionDecision`` (``allow``/``deny``/``ask``), else
  ``decision`` (``approve``/``allow``, ``block``/``deny``, ``ask``); the reason is
  ``permissionDecisionReason``, else ``reason``;
* PermissionRequest: ``hookSpecificOutput.decision`` = ``{behavior, message, updatedInput,
  interrupt}``;
* merging for tool, prompt and stop events: any block wins, reasons and contexts are joined with
  newlines, ``continue: false`` wins; for PermissionRequest deny wins and the last
  ``updatedInput`` is kept; other events: later fields win, contexts are joined.

``additionalContext`` reaches the model with ``<`` and ``>`` escaped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["HookOutput", "merge_outputs"]

_OR_EVENTS = frozenset(
    {"PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "Stop",
     "UserPromptSubmit", "UserPromptExpansion", "SubagentStop", "TodoCreated", "TodoCompleted"}
)  # fmt: skip


@dataclass(frozen=True)
class HookOutput:
    """The (merged) output of the hooks of one event."""

    event: str
    data: Mapping[str, Any]

    @property
    def specific(self) -> Mapping[str, Any]:
        value = self.data.get("hookSpecificOutput")
        return value if isinstance(value, dict) else {}

    @property
    def decision(self) -> Any:
        if self.event == "PostToolUse" and "decision" not in self.data:
            return "allow"
        return self.data.get("decision")

    @property
    def reason(self) -> str | None:
        value = self.data.get("reason")
        if self.event == "PostToolUse" and value is None:
            return "No reason provided"
        return value if isinstance(value, str) else None

    @property
    def stop_reason(self) -> str | None:
        value = self.data.get("stopReason")
        return value if isinstance(value, str) else None

    @property
    def system_message(self) -> str | None:
        value = self.data.get("systemMessage")
        return value if isinstance(value, str) else None

    def is_blocking(self) -> bool:
        """``decision`` is ``block`` or ``deny``."""
        return self.decision in ("block", "deny")

    def stops(self) -> bool:
        """``continue`` is ``false``."""
        return self.data.get("continue") is False

    def effective_reason(self) -> str:
        """``stopReason``, else ``reason``, else ``No reason provided``."""
        return self.stop_reason or self.reason or "No reason provided"

    def additional_context(self) -> str | None:
        """``hookSpecificOutput.additionalContext`` with ``<`` and ``>`` escaped."""
        value = self.specific.get("additionalContext")
        if not isinstance(value, str):
            return None
        return value.replace("<", "&lt;").replace(">", "&gt;")

    # -- PreToolUse ---------------------------------------------------------------------------

    def permission_decision(self) -> str | None:
        """PreToolUse: ``allow``, ``deny``, ``ask`` or ``None``."""
        value = self.specific.get("permissionDecision")
        if value in ("allow", "deny", "ask"):
            return str(value)
        decision = self.data.get("decision")
        if decision in ("allow", "approve"):
            return "allow"
        if decision in ("deny", "block"):
            return "deny"
        return "ask" if decision == "ask" else None

    def permission_decision_reason(self) -> str | None:
        value = self.specific.get("permissionDecisionReason")
        return value if isinstance(value, str) else self.reason

    def updated_input(self) -> dict[str, Any] | None:
        """PreToolUse: ``hookSpecificOutput.updatedInput`` when it is an object."""
        value = self.specific.get("updatedInput")
        return dict(value) if isinstance(value, dict) else None

    # -- PermissionRequest ----------------------------------------------------------------------

    def permission_request(self) -> Mapping[str, Any] | None:
        """PermissionRequest: the ``{behavior, message, updatedInput, interrupt}`` object."""
        value = self.specific.get("decision")
        return value if isinstance(value, dict) else None


def _contexts(outputs: Sequence[Mapping[str, Any]]) -> list[str]:
    found: list[str] = []
    for output in outputs:
        specific = output.get("hookSpecificOutput")
        if isinstance(specific, dict) and isinstance(specific.get("additionalContext"), str):
            found.append(specific["additionalContext"])
    return found


def _merge_or(outputs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    reasons: list[str] = []
    others: dict[str, Any] = {}
    blocked = stop = False
    stop_reason: str | None = None
    for output in outputs:
        if output.get("decision") in ("block", "deny"):
            blocked = True
        if output.get("reason"):
            reasons.append(str(output["reason"]))
        if output.get("continue") is False:
            stop = True
            if output.get("stopReason"):
                stop_reason = output["stopReason"]
        specific = output.get("hookSpecificOutput")
        if isinstance(specific, dict):
            others.update({k: v for k, v in specific.items() if k != "additionalContext"})
        for key in ("suppressOutput", "systemMessage"):
            if key in output:
                merged[key] = output[key]
    if blocked:
        merged["decision"] = "block"
    elif any(o.get("decision") == "allow" for o in outputs):
        merged["decision"] = "allow"
    if reasons:
        merged["reason"] = "\n".join(reasons)
    if stop:
        merged["continue"] = False
        if stop_reason:
            merged["stopReason"] = stop_reason
    contexts = _contexts(outputs)
    if contexts:
        others["additionalContext"] = "\n".join(contexts)
    if others:
        merged["hookSpecificOutput"] = others
    return merged


def _merge_permission_request(outputs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    messages: list[str] = []
    deny = allow = interrupt = False
    updated: Any = None
    for output in outputs:
        specific = output.get("hookSpecificOutput")
        decision = specific.get("decision") if isinstance(specific, dict) else None
        if not isinstance(decision, dict):
            continue
        deny = deny or decision.get("behavior") == "deny"
        allow = allow or decision.get("behavior") == "allow"
        if decision.get("message"):
            messages.append(str(decision["message"]))
        interrupt = interrupt or decision.get("interrupt") is True
        if decision.get("updatedInput"):
            updated = decision["updatedInput"]
        for key in ("continue", "reason"):
            if key in output:
                merged[key] = output[key]
    result: dict[str, Any] = {}
    if deny or allow:
        result["behavior"] = "deny" if deny else "allow"
    if messages:
        result["message"] = "\n".join(messages)
    if interrupt:
        result["interrupt"] = True
    if updated:
        result["updatedInput"] = updated
    merged["hookSpecificOutput"] = {"decision": result}
    return merged


def _merge_simple(outputs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for output in outputs:
        merged.update(output)
    contexts = _contexts(outputs)
    if contexts:
        specific = merged.get("hookSpecificOutput")
        merged["hookSpecificOutput"] = {
            **(specific if isinstance(specific, dict) else {}),
            "additionalContext": "\n".join(contexts),
        }
    return merged


def merge_outputs(event: str, outputs: Sequence[Mapping[str, Any]]) -> HookOutput | None:
    """The outputs of an event's hooks as one (``None`` when no hook gave any)."""
    if not outputs:
        return None
    if len(outputs) == 1:
        return HookOutput(event, outputs[0])
    if event in _OR_EVENTS:
        return HookOutput(event, _merge_or(outputs))
    if event == "PermissionRequest":
        return HookOutput(event, _merge_permission_request(outputs))
    return HookOutput(event, _merge_simple(outputs))
