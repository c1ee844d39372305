"""Model-facing texts of the execution flow, exactly as the reference words them."""

from __future__ import annotations

CANCELLED_BEFORE_EXECUTION = "Tool call cancelled before execution."
CANCELLED_DURING_APPROVAL = "Tool call cancelled by user."
USER_DID_NOT_ALLOW = "User did not allow tool call"
CANCELLED_DURING_EXECUTION = (
    "User intentionally cancelled this tool call. Stop and await further instructions; "
    "do not retry or work around it."
)
CANCELLED_AFTER_COMPLETION = (
    "The tool had already completed; its output was discarded. User intentionally cancelled. "
    "Stop and await further instructions; do not retry."
)
PLAN_MODE_BLOCKED_DISPLAY = "Plan mode blocked a non-read-only tool call."
PLAN_MODE_SHELL_BLOCKED = (
    "Plan mode blocked this shell command because it was classified as state-modifying. Do not "
    "retry it through wrappers or obfuscation; continue read-only investigation and include the "
    "action in the plan."
)


def plan_mode_blocked(name: str) -> str:
    """Refusal of a non-read-only tool while in plan mode."""
    return (
        f'Tool blocked by plan mode: "{name}" is not a read-only tool. Only read-only tools '
        "(read_file, grep_search, glob, web_fetch, etc.) are allowed in plan mode. Do NOT retry "
        "this tool. Pivot to read-only alternatives to gather the information you need, then call "
        "exit_plan_mode with a plan that covers this tool's purpose."
    )


def non_interactive_denied(name: str) -> str:
    """Refusal of a call that needs approval when nobody can be asked."""
    return (
        f'Qwen Code requires permission to use "{name}", but that permission was declined '
        "(non-interactive mode cannot prompt for confirmation)."
    )
