"""``task``: hand a self-contained job to a subagent and get its report back.

Qwen Code 0.24.4 calls this tool ``agent`` (``task`` before); ``agent`` reaches it as a legacy
alias. Behaviour follows 0.24.4's foreground path:

* params ``description``, ``prompt`` (both required, non-blank) and ``subagent_type``
  (default ``general-purpose``, matched case-insensitively; an unknown type is rejected with
  ``Subagent "<x>" not found. Available subagents: a, b``); like the reference, no schema pass:
  0.24.4's own checks of all its ``agent`` params run instead (:mod:`~qwen_tools.tools.task.params`), nothing
  is coerced and unknown keys are ignored;
* kind ``agent``; calls are concurrency-safe (several subagents may run at once); outside
  YOLO/auto-edit the user confirms the launch (an info confirmation showing the description);
* the description lists the subagents (``- **name**: description``), re-read whenever a
  definition file changes (see :mod:`qwen_tools.tools.task.catalog`);
* while it runs, ``update_output`` receives a ``task_execution`` display listing the
  subagent's tool calls; the model gets the report in 0.24.4's wording for each way a run can
  end (:mod:`~qwen_tools.tools.task.result`); output over 32,000 characters keeps its tail.

Not here: background runs (``run_in_background`` is accepted, the run is in the foreground),
forks, worktree isolation, teammates and model grades (``fork_*``, ``isolation``,
``working_dir`` and ``model`` get the reference's checks, then a refusal), and nesting (the
subagent has no ``task`` tool). Without a model (``config.subagent_runner`` is ``None``) a call
fails with a typed error telling the model to do the work itself.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal, cast

from qwen_tools.config.config import Config
from qwen_tools.contract.abort import AbortError, AbortSignal
from qwen_tools.contract.confirmation import InfoConfirmationDetails, ToolCallConfirmationDetails
from qwen_tools.contract.declarative import BaseDeclarativeTool
from qwen_tools.contract.display import TaskExecutionDisplay
from qwen_tools.contract.errors import ToolErrorType
from qwen_tools.contract.invocation import BaseToolInvocation, ToolInvocation, UpdateOutput
from qwen_tools.contract.kinds import Kind
from qwen_tools.contract.parts import TextPart
from qwen_tools.contract.results import ToolResult
from qwen_tools.contract.tool_names import ToolDisplayNames, ToolNames
from qwen_tools.subagents.builtin_agents import DEFAULT_SUBAGENT_TYPE
from qwen_tools.subagents.definitions import SubagentDefinition, SubagentDefinitionError
from qwen_tools.subagents.protocol import SubagentReport
from qwen_tools.tools.task.catalog import SubagentCatalog, SubagentLoader
from qwen_tools.tools.task.display import TaskDisplayTracker
from qwen_tools.tools.task.params import TaskParams, check_task_params, unsupported_param
from qwen_tools.tools.task.request import SubagentNotRunnable, build_request
from qwen_tools.tools.task.result import llm_text_for, model_visible_text

__all__ = ["TaskParams", "TaskTool", "task_description"]

NO_RUNNER_MESSAGE = (
    "Subagents are unavailable: no model is configured for this session. "
    "Do this task yourself with your own tools."
)
CANCELLED_REASON = "Agent was cancelled by user"

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "description": {
            "type": "string",
            "description": "A few words (3-5) naming the job, shown to the user while it runs.",
        },
        "prompt": {
            "type": "string",
            "description": "The complete brief for the subagent: what to do, the context it "
            "needs, and what its report should contain.",
        },
        "subagent_type": {
            "type": "string",
            "description": "Which subagent to launch, by name (see the list in this tool's "
            f"description). Defaults to {DEFAULT_SUBAGENT_TYPE}.",
        },
    },
    "required": ["description", "prompt"],
}


def task_description(definitions: list[SubagentDefinition]) -> str:
    """The tool description around the current list of subagents."""
    listing = "\n".join(f"- **{d.name}**: {d.description}" for d in definitions)
    return (
        "Starts a subagent: a separate agent with its own context and tools that works "
        "through a multi-step job on its own and then returns one report.\n\n"
        f"Subagents you can launch (subagent_type):\n{listing}\n\n"
        f"Without subagent_type, {DEFAULT_SUBAGENT_TYPE} is used.\n\n"
        "When it pays off:\n"
        "- open-ended searches or research that would take many rounds of glob, grep and "
        "reading;\n"
        "- independent pieces of work that can proceed side by side (issue several task "
        "calls in one response; give parallel subagents separate files to change);\n"
        "- a job that matches a subagent's description, especially one marked for proactive "
        "use.\n\n"
        "When it does not: reading a known file, looking up one definition, or any step your "
        "very next action depends on. Use read_file, glob or grep_search directly then.\n\n"
        "Writing the prompt:\n"
        "- The subagent has not seen this conversation. State the goal and why it matters, "
        "what you already know or ruled out, the files and constraints involved, and what is "
        "out of scope.\n"
        "- Say whether it should change code or only investigate, and what its report should "
        "contain (and how short it should be).\n"
        '- Do your own thinking: hand over a concrete, bounded job, not "figure out what to '
        'do and do it".\n\n'
        "After it returns: the user does not see the report, so pass on what matters. Treat "
        "it as evidence to check, not as settled fact."
    )


class TaskInvocation(BaseToolInvocation[TaskParams]):
    """One validated ``task`` call."""

    def __init__(self, tool: TaskTool, params: TaskParams) -> None:
        super().__init__(params)
        self.tool = tool
        self.config = tool.config

    def get_description(self) -> str:
        """The call's short description."""
        return str(self.params["description"])

    async def should_confirm_execute(
        self, signal: AbortSignal
    ) -> ToolCallConfirmationDetails | Literal[False]:
        """An info confirmation naming the job (none when no subagent could run anyway)."""
        if self.config.subagent_runner is None:
            return False
        return InfoConfirmationDetails(
            title=f"Confirm {self.tool.display_name}", prompt=self.get_description()
        )

    def _failed_display(self, subagent: str, reason: str) -> TaskExecutionDisplay:
        return TaskExecutionDisplay(
            subagent_name=subagent,
            task_description=self.params["description"],
            task_prompt=self.params["prompt"],
            status="failed",
            terminate_reason=reason,
        )

    def _blocked(self, subagent: str, message: str, error_type: ToolErrorType) -> ToolResult:
        return ToolResult.failure(
            message, error_type, display=self._failed_display(subagent, message)
        )

    async def execute(
        self, signal: AbortSignal, update_output: UpdateOutput | None = None
    ) -> ToolResult:
        """Resolve the subagent, run it through the session's runner, and report."""
        requested = self.params.get("subagent_type") or DEFAULT_SUBAGENT_TYPE
        runner = self.config.subagent_runner
        if runner is None:
            return self._blocked(requested, NO_RUNNER_MESSAGE, ToolErrorType.EXECUTION_FAILED)
        try:
            catalog = self.tool.catalog()
            definition = catalog.resolve(requested)
            if definition is None:
                message = not_found_message(requested, catalog)
                return self._blocked(requested, message, ToolErrorType.INVALID_TOOL_PARAMS)
            request = build_request(definition, self.params["prompt"])
        except (SubagentDefinitionError, SubagentNotRunnable) as exc:
            return self._failed(requested, str(exc), None)
        tracker = TaskDisplayTracker(
            definition.name, self.params["description"], self.params["prompt"], update_output
        )
        tracker.publish()
        try:
            report = await runner.run_subagent(
                request, signal=signal, on_progress=tracker.on_progress
            )
        except AbortError:
            report = SubagentReport(text="", terminate_reason="CANCELLED")
        except Exception as exc:  # a crash of the runner is the call's failure, not ours
            return self._failed(definition.name, str(exc) or type(exc).__name__, tracker)
        reason = report.terminate_reason
        visible = model_visible_text(report.text or "", reason)
        if signal.aborted:
            display = tracker.finish("cancelled", CANCELLED_REASON)
        else:
            status: Literal["completed", "failed"] = "completed" if reason == "GOAL" else "failed"
            display = tracker.finish(status, reason, result=visible)
        return ToolResult(
            llm_content=[TextPart(llm_text_for(visible, reason))], return_display=display
        )

    def _failed(self, subagent: str, reason: str, tracker: TaskDisplayTracker | None) -> ToolResult:
        message = f"Failed to run subagent: {reason}"
        display = (
            tracker.finish("failed", message)
            if tracker is not None
            else self._failed_display(subagent, message)
        )
        return ToolResult.failure(message, ToolErrorType.EXECUTION_FAILED, display=display)


def not_found_message(name: str, catalog: SubagentCatalog) -> str:
    """``Subagent "<name>" not found. Available subagents: a, b``."""
    names = catalog.names
    available = f". Available subagents: {', '.join(names)}" if names else ""
    return f'Subagent "{name}" not found{available}'


class TaskTool(BaseDeclarativeTool[TaskParams]):
    """The ``task`` tool (display name ``Task``, kind ``agent``; alias ``agent``)."""

    Name: ClassVar[str] = ToolNames.TASK
    max_output_chars = 32_000
    truncate_keep = "tail"

    def __init__(self, config: Config) -> None:
        self.config = config
        self.loader = SubagentLoader(config)
        super().__init__(
            self.Name,
            ToolDisplayNames.TASK,
            "",
            Kind.AGENT,
            _SCHEMA,
            is_output_markdown=True,
            can_update_output=True,
        )

    @property
    def description(self) -> str:
        """Generated from the current subagent catalogue (so it follows file changes)."""
        return task_description(self.catalog().definitions)

    @description.setter
    def description(self, value: str) -> None:
        """Ignored: the description is always generated."""

    def catalog(self) -> SubagentCatalog:
        """The session's subagents as they are now."""
        return self.loader.catalog()

    def is_concurrency_safe(self, params: TaskParams) -> bool:
        """Subagent launches may run side by side, as in the reference."""
        return True

    def _validate(self, params: Any) -> tuple[TaskParams | None, str | None]:
        """The reference's own checks (it skips the schema pass for this tool), then ours.

        Nothing is coerced and unknown keys are ignored, as in 0.24.4; a ``subagent_type``
        must name a known subagent, and the params we cannot honour are refused.
        """
        data: dict[str, Any] = params if isinstance(params, dict) else {}
        error = check_task_params(data)
        if error is None:
            error = self._unknown_subagent(data.get("subagent_type"))
        if error is None:
            error = unsupported_param(data)
        return (None, error) if error is not None else (cast(TaskParams, data), None)

    def _unknown_subagent(self, requested: str | None) -> str | None:
        if requested is None:
            return None
        catalog = self.catalog()
        try:
            found = catalog.resolve(requested)
        except SubagentDefinitionError:
            return None  # a refused name is reported when the call runs
        return None if found is not None else not_found_message(requested, catalog)

    def create_invocation(self, params: TaskParams) -> ToolInvocation[TaskParams]:
        """Build the invocation for validated params."""
        return TaskInvocation(self, params)
