"""``enter_plan_mode``: switch the session to plan mode (read-only investigation, then a plan).

As in Qwen Code 0.24.4: kind ``think``, no confirmation (entering plan mode only takes
permissions away), one optional param ``userRequested``. In ``yolo`` mode the switch happens
only with ``userRequested: true``; in a non-interactive session (``interactive=False``) it is
refused, since leaving plan mode needs the user; otherwise the approval mode becomes ``plan``
and the reply is the reference's plan-mode system reminder, with the display
``Entered plan mode.``. The reply is never truncated by the output budget.

The mode changes when the call runs, so a call of the same batch that was already approved
keeps its approval (as in 0.24.4, where a batch's approvals all precede its execution).
Revealing a deferred ``exit_plan_mode`` declaration is not needed here: it is always declared.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar, TypedDict

from qwen_tools.config.config import Config
from qwen_tools.config.tool_settings import ApprovalMode
from qwen_tools.contract.abort import AbortSignal
from qwen_tools.contract.declarative import BaseDeclarativeTool
from qwen_tools.contract.invocation import BaseToolInvocation, ToolInvocation, UpdateOutput
from qwen_tools.contract.kinds import Kind
from qwen_tools.contract.results import ToolResult
from qwen_tools.contract.tool_names import ToolDisplayNames, ToolNames

__all__ = ["PLAN_MODE_REMINDER", "EnterPlanModeParams", "EnterPlanModeTool"]

_DESCRIPTION = """Switches the session into plan mode, where you only read and investigate \
while working out a plan with the user; nothing is changed until they approve it.

Use it only when the user has asked for plan mode, or agreed to it when you offered. It needs \
no confirmation, because it only removes permissions.

Do not use it on your own initiative just because a task is large, uncertain or needs \
research: you can investigate, ask questions and present a plan in the current mode. If plan \
mode looks useful, ask the user first, and never enter it after they said they do not want it.
"""

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "userRequested": {
            "type": "boolean",
            "description": "true only when the user asked for plan mode (or confirmed they "
            "want it) in this turn; leave it out or false when the idea is yours. In YOLO "
            "mode plan mode is entered only when this is true.",
        }
    },
    "additionalProperties": False,
}

PLAN_MODE_REMINDER = """<system-reminder>
Plan mode is active. The user indicated that they do not want you to execute yet -- you MUST \
NOT make any edits, run tools classified as state-modifying (including changing configs or \
making commits), or otherwise make changes to the system. A shell command whose safety cannot \
be determined may run only after the user explicitly approves that exact invocation once, and \
only when it is necessary for the investigation. This supersedes any other instructions you \
have received (for example, to make edits).

## Iterative Planning Workflow

You are pair-planning with the user. Explore the code to build context, ask the user questions \
when you hit decisions you cannot make alone, and refine your plan incrementally.

### The Loop

Repeat this cycle until the plan is complete:

1. **Explore** \u2014 Use read-only tools (read_file, grep_search, glob) to read code. Look for \
existing functions, utilities, and patterns to reuse. For broader or ambiguous tasks, use \
multiple parallel exploration passes (directly or via agents when appropriate) to understand \
different parts of the codebase.
2. **Capture findings** \u2014 After each discovery, immediately integrate what you learned \
into your evolving mental model. Do not wait until the end to synthesize.
3. **Ask the user** \u2014 When you hit an ambiguity or decision you cannot resolve from code \
alone, use ask_user_question. Then go back to step 1.

### First Turn

Start by quickly scanning a few key files to form an initial understanding of the task scope. \
Then ask the user your first round of questions if any exist. Do not explore exhaustively \
before engaging the user.

### Asking Good Questions

- Never ask what you could find out by reading the code
- Batch related questions together (use multi-question ask_user_question calls)
- Focus on things only the user can answer: requirements, preferences, tradeoffs, edge case \
priorities
- Scale depth to the task \u2014 a vague feature request needs many rounds; a focused bug fix \
may need one or none

### Planning Principles

- Build a global understanding of how the relevant pieces fit together before deciding on \
local edits. Do not jump from the first relevant file straight into a plan when the task \
likely spans multiple files or behaviors.
- Design an implementation approach that fits the existing codebase rather than inventing a \
parallel pattern.
- Reference existing functions and utilities you found that should be reused, with their file \
paths.
- Include a verification section describing how to test the changes end-to-end.

### When a Tool is Blocked by Plan Mode

If a non-read-only tool is blocked:
- Do NOT retry the blocked tool or repeatedly attempt similar non-read-only tools
- Do NOT use wrappers, quoting tricks, aliases, or obfuscation to make a blocked write look \
unknown
- Do NOT immediately call exit_plan_mode just to unblock it \u2014 continue gathering context \
with read-only tools first
- Pivot to read-only tools (read_file, grep_search, glob, agents) to gather the information \
the blocked tool would have provided
- Once you have enough context to form a complete plan, call exit_plan_mode

An exact one-off approval for an unknown shell command approves only that invocation. It does \
not approve the plan, authorize related commands, or exit Plan mode.

### When to Converge

Your plan is ready when you have addressed all ambiguities and it covers: what to change, \
which files to modify, what existing code to reuse (with file paths), and how to verify the \
changes. Present your plan by calling the exit_plan_mode tool, which will prompt the user to \
confirm the plan. Do NOT make any file changes or run any tools that modify the system state \
in any way until the user has confirmed the plan.
</system-reminder>"""
"""The reply of a successful call: the reference's plan-mode system reminder, verbatim."""

_YOLO_TEXT = (
    "Plan mode was not entered: the session is in YOLO mode, which the user explicitly chose "
    "for low-friction execution. Continue investigating and presenting your plan in the "
    "current mode without switching. If the user explicitly asked for plan mode in this turn, "
    "retry this tool call with userRequested: true."
)
_NON_INTERACTIVE = (
    "Cannot enter plan mode in non-interactive mode without ACP support. The gate exit paths "
    "require user interaction."
)


class EnterPlanModeParams(TypedDict, total=False):
    """``enter_plan_mode``'s params, as :data:`_SCHEMA` declares them."""

    userRequested: bool  # the reference's camelCase name


class EnterPlanModeInvocation(BaseToolInvocation[EnterPlanModeParams]):
    """One validated ``enter_plan_mode`` call."""

    def __init__(self, config: Config, params: EnterPlanModeParams, interactive: bool) -> None:
        super().__init__(params)
        self.config = config
        self.interactive = interactive

    def get_description(self) -> str:
        """``Enter plan mode``."""
        return "Enter plan mode"

    async def execute(
        self, signal: AbortSignal, update_output: UpdateOutput | None = None
    ) -> ToolResult:
        """Switch to plan mode unless YOLO (without a user request) or nobody can approve."""
        if self.config.approval_mode is ApprovalMode.YOLO and not self.params.get("userRequested"):
            return ToolResult(
                llm_content=_YOLO_TEXT,
                return_display="Stayed in YOLO mode (plan mode not entered).",
            )
        if not self.interactive:
            return ToolResult(
                llm_content=_NON_INTERACTIVE,
                return_display="Plan mode unavailable in non-interactive mode.",
            )
        self.config.approval_mode = ApprovalMode.PLAN
        return ToolResult(llm_content=PLAN_MODE_REMINDER, return_display="Entered plan mode.")


class EnterPlanModeTool(BaseDeclarativeTool[EnterPlanModeParams]):
    """The ``enter_plan_mode`` tool (display name ``EnterPlanMode``, kind ``think``)."""

    Name: ClassVar[str] = ToolNames.ENTER_PLAN_MODE
    max_output_chars = math.inf

    def __init__(self, config: Config, *, interactive: bool = True) -> None:
        super().__init__(
            self.Name, ToolDisplayNames.ENTER_PLAN_MODE, _DESCRIPTION, Kind.THINK, _SCHEMA
        )
        self.config = config
        self.interactive = interactive

    def create_invocation(self, params: EnterPlanModeParams) -> ToolInvocation[EnterPlanModeParams]:
        """Build the invocation for validated params."""
        return EnterPlanModeInvocation(self.config, params, self.interactive)
