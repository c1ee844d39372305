"""``exit_plan_mode``: present the plan made in plan mode and, once approved, leave plan mode.

As in Qwen Code 0.24.4:

* **Params:** ``plan`` (Markdown, non-blank); ``originalRequest`` and ``researchSummary`` are
  declared for plan-required teammates and otherwise unused. Only the reference's own check
  runs (it skips the schema pass for this tool): ``Parameter "plan" must be a non-empty
  string.``
* **Confirmation** (in plan mode only, never pre-approved): a ``plan`` confirmation titled
  ``Would you like to proceed?``. "Proceed once" leaves plan mode for ``default``, "proceed
  always" for ``auto-edit``; cancelling keeps plan mode (the call is cancelled with the
  pipeline's "User did not allow tool call"). Any other answer approves nothing.
* **Results:** ``User approved. You can now start coding. …`` with a
  :class:`~qwen_tools.PlanSummaryDisplay`; the approved plan is saved (best effort) to
  ``<qwen home>/plans/<session id>.md``, or to the ``plansDirectory`` setting (relative to the
  project root, and only when it stays inside it). Outside plan mode the call fails with
  ``execution_denied`` (``You are not in plan mode (current mode: <m>). …``).

Unlike 0.24.4, the new mode is applied as soon as the user approves rather than when the call
runs, so the calls that follow in the same batch are approved under it (0.24.4 decides every
approval of a batch before any answer and would still block them as plan mode). If the batch
is aborted before the call runs, the mode stays changed; an abort noticed while it runs puts
plan mode back (``Plan exit was cancelled. Remaining in plan mode.``). Not implemented: the
``restore_previous`` answer (back to the mode before plan mode) and teammate (leader)
approval.
"""

from __future__ import annotations

import logging
import os
import re
from typing import Any, ClassVar, Literal, Required, TypedDict

import anyio

from qwen_tools.config.config import Config
from qwen_tools.config.tool_settings import ApprovalMode
from qwen_tools.contract.abort import AbortSignal
from qwen_tools.contract.confirmation import (
    PlanConfirmationDetails,
    ToolCallConfirmationDetails,
    ToolConfirmationOutcome,
    ToolConfirmationPayload,
)
from qwen_tools.contract.declarative import BaseDeclarativeTool
from qwen_tools.contract.display import PlanSummaryDisplay
from qwen_tools.contract.errors import ToolErrorType
from qwen_tools.contract.invocation import BaseToolInvocation, ToolInvocation, UpdateOutput
from qwen_tools.contract.kinds import Kind
from qwen_tools.contract.results import ToolResult
from qwen_tools.contract.tool_names import ToolDisplayNames, ToolNames
from qwen_tools.jscompat.jstext import js_trim
from qwen_tools.tools.common.paths import is_subpath

__all__ = ["ExitPlanModeParams", "ExitPlanModeTool", "plan_file_path"]

_log = logging.getLogger("qwen_tools")

_DESCRIPTION = """Asks the user to approve your implementation plan and, once they do, leaves \
plan mode so that you can start making changes.

Call it only while plan mode is active, and only when the task is about writing code and you \
have finished planning how to do it. Research-only work (reading, searching, explaining the \
code) never needs it.

Before calling it:
- settle open questions about requirements or approach first (ask the user with the question \
tool during planning);
- put the complete plan in `plan`; an empty plan is refused.

This tool is the approval request itself: do not ask separately whether the plan is fine or \
whether to proceed.
"""

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "plan": {
            "type": "string",
            "description": "The implementation plan to submit for approval, in concise "
            "Markdown. It must hold the actual plan: an empty string is refused.",
        },
        "originalRequest": {
            "type": "string",
            "description": "The user's original request, restated faithfully (used when a "
            "team leader reviews the plan).",
        },
        "researchSummary": {
            "type": "string",
            "description": "A short summary of what planning found out (used when a team "
            "leader reviews the plan).",
        },
    },
    "required": ["plan"],
    "additionalProperties": False,
}

APPROVED = (
    "User approved. You can now start coding. Start with updating your todo list if applicable."
)
NOT_APPROVED = "Plan execution was not approved. Remaining in plan mode."
CANCELLED = "Plan exit was cancelled. Remaining in plan mode."
STALE = "Plan approval is stale because the approval mode changed. No action was taken."
_EMPTY_PLAN = 'Parameter "plan" must be a non-empty string.'
_TARGETS = {
    ToolConfirmationOutcome.PROCEED_ONCE: ApprovalMode.DEFAULT,
    ToolConfirmationOutcome.PROCEED_ALWAYS: ApprovalMode.AUTO_EDIT,
}
_UNSAFE_NAME = re.compile('[<>:"|?*\x00-\x1f]')


def _outside_plan_mode(mode: ApprovalMode) -> str:
    return (
        f"You are not in plan mode (current mode: {mode.value}). The user may have manually "
        "switched modes via Shift+Tab or /approval-mode. Do not call exit_plan_mode again. "
        "Continue working in the current mode."
    )


def _plan_file_name(session_id: str) -> str:
    """The session id made safe as a file name, as the reference does it."""
    base = os.path.basename(session_id.replace("\\", "/").rstrip("/"))
    safe = _UNSAFE_NAME.sub("_", re.sub(r"^\.+", "_", base))
    return f"{safe or '_'}.md"


def plan_file_path(config: Config) -> str | None:
    """Where the session's approved plan is saved (``None``: ``plansDirectory`` is unusable)."""
    loaded = config.loaded_settings
    configured = loaded.get("plansDirectory") if loaded is not None else None
    if isinstance(configured, str) and js_trim(configured):
        root = os.fspath(config.target_dir)
        directory = os.path.normpath(os.path.join(root, os.path.expanduser(js_trim(configured))))
        if not is_subpath(root, directory):
            return None
    else:
        directory = os.path.join(os.fspath(config.home_dir), "plans")
    return os.path.join(directory, _plan_file_name(config.session_id))


def _save_plan(config: Config, plan: str) -> None:
    """Write the approved plan atomically; failures are only logged (best effort)."""
    from qwen_tools.fs.atomic import write_bytes_atomic

    path = plan_file_path(config)
    if path is None:
        _log.warning("exit_plan_mode: plansDirectory must resolve within the project root")
        return
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        write_bytes_atomic(path, re.sub("[\ud800-\udfff]", "\ufffd", plan).encode("utf-8"))
    except OSError as exc:
        _log.warning("exit_plan_mode: failed to save the plan to %s: %s", path, exc)


class ExitPlanModeParams(TypedDict, total=False):
    """``exit_plan_mode``'s params, as :data:`_SCHEMA` declares them.

    Only ``plan`` is checked (a non-empty string), as the reference checks it: the schema
    pass is skipped for this tool.
    """

    plan: Required[str]
    originalRequest: str  # the reference's camelCase names
    researchSummary: str


class ExitPlanModeInvocation(BaseToolInvocation[ExitPlanModeParams]):
    """One validated ``exit_plan_mode`` call."""

    def __init__(self, config: Config, params: ExitPlanModeParams) -> None:
        super().__init__(params)
        self.config = config
        self._approved: ApprovalMode | None = None
        self._stale = False

    def get_description(self) -> str:
        """``Plan:`` (the plan itself is shown by the confirmation and the display)."""
        return "Plan:"

    async def should_confirm_execute(
        self, signal: AbortSignal
    ) -> ToolCallConfirmationDetails | Literal[False]:
        """In plan mode, the plan for the user to approve; otherwise nothing to ask."""
        if self.config.approval_mode is not ApprovalMode.PLAN:
            return False
        self._approved, self._stale = None, False
        return PlanConfirmationDetails(
            title="Would you like to proceed?",
            plan=self.params["plan"],
            on_confirm=self._on_confirm,
        )

    async def _on_confirm(
        self, outcome: ToolConfirmationOutcome, payload: ToolConfirmationPayload | None
    ) -> None:
        """Apply the answer: leave plan mode for the chosen mode right away."""
        target = _TARGETS.get(outcome)
        if target is None:
            self._approved = None
            return
        if self.config.approval_mode is not ApprovalMode.PLAN:
            self._stale = True
            return
        self.config.approval_mode = target
        self._approved = target

    async def execute(
        self, signal: AbortSignal, update_output: UpdateOutput | None = None
    ) -> ToolResult:
        """Report the user's decision (the mode was switched when they approved)."""
        mode = self.config.approval_mode
        target = self._approved
        if self._stale:
            return ToolResult(llm_content=STALE, return_display=STALE)
        if target is None:
            if mode is not ApprovalMode.PLAN:
                return ToolResult.failure(_outside_plan_mode(mode), ToolErrorType.EXECUTION_DENIED)
            return ToolResult(llm_content=NOT_APPROVED, return_display=NOT_APPROVED)
        if signal.aborted:
            if mode is target:
                self.config.approval_mode = ApprovalMode.PLAN
            return ToolResult(llm_content=CANCELLED, return_display=CANCELLED)
        if mode is not target:
            return ToolResult(llm_content=STALE, return_display=STALE)
        plan: str = self.params["plan"]
        await anyio.to_thread.run_sync(_save_plan, self.config, plan)
        display = PlanSummaryDisplay(message="User approved.", plan=plan)
        return ToolResult(llm_content=APPROVED, return_display=display)


class ExitPlanModeTool(BaseDeclarativeTool[ExitPlanModeParams]):
    """The ``exit_plan_mode`` tool (display name ``ExitPlanMode``, kind ``think``)."""

    Name: ClassVar[str] = ToolNames.EXIT_PLAN_MODE

    def __init__(self, config: Config) -> None:
        super().__init__(
            self.Name, ToolDisplayNames.EXIT_PLAN_MODE, _DESCRIPTION, Kind.THINK, _SCHEMA
        )
        self.config = config

    def _validate(self, params: Any) -> tuple[ExitPlanModeParams | None, str | None]:
        """Only the plan is checked: the reference skips the schema pass for this tool."""
        plan = params.get("plan") if isinstance(params, dict) else None
        if not isinstance(plan, str) or not js_trim(plan):
            return None, _EMPTY_PLAN
        return params, None

    def create_invocation(self, params: ExitPlanModeParams) -> ToolInvocation[ExitPlanModeParams]:
        """Build the invocation for validated params."""
        return ExitPlanModeInvocation(self.config, params)
