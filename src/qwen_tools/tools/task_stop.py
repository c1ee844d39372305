"""``task_stop``: stop a background shell started by ``run_shell_command``.

Qwen Code 0.24.4's ``task_stop`` (``tools/task-stop.ts``) also stops background agents, monitors
and memory tasks; this package only has background shells, so only their branch exists here,
with the reference's texts and error types:

* running shell: its process group is ended (``SIGTERM``, then ``SIGKILL`` after 200 ms) and its
  status becomes ``cancelled`` before the call returns;
* finished shell: ``task_stop_not_running`` (the model reads ``shell is <status>: <id>``);
* unknown id: ``task_stop_not_found`` (``Task not found: <id>``).

The success text names where the final status can be read; the reference's points at the
``/tasks`` command and the Background tasks dialog, which do not exist here, so it names the
status file instead.
"""

from __future__ import annotations

from typing import Any, ClassVar, Required, TypedDict

from qwen_tools.config.config import Config
from qwen_tools.contract.abort import AbortSignal
from qwen_tools.contract.declarative import BaseDeclarativeTool
from qwen_tools.contract.errors import ToolErrorType
from qwen_tools.contract.invocation import BaseToolInvocation, ToolInvocation, UpdateOutput
from qwen_tools.contract.kinds import Kind
from qwen_tools.contract.results import ToolResult
from qwen_tools.contract.tool_names import ToolDisplayNames, ToolNames

__all__ = ["TaskStopParams", "TaskStopTool"]

_DESCRIPTION = (
    "Stops a background task by its id. Background shells started by run_shell_command with "
    "is_background: true (ids like 'bg_1a2b3c4d') are ended together with their child "
    "processes; their output file stays readable."
)

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "task_id": {
            "type": "string",
            "description": "Id of the task to stop, as given when it was started.",
        },
    },
    "required": ["task_id"],
    "additionalProperties": False,
}


class TaskStopParams(TypedDict, total=False):
    """``task_stop``'s params, as :data:`_SCHEMA` declares them."""

    task_id: Required[str]


class TaskStopInvocation(BaseToolInvocation[TaskStopParams]):
    """One validated ``task_stop`` call."""

    def __init__(self, config: Config, params: TaskStopParams) -> None:
        super().__init__(params)
        self.config = config

    def get_description(self) -> str:
        """``Stop background task <id>``."""
        return f"Stop background task {self.params['task_id']}"

    async def execute(
        self, signal: AbortSignal, update_output: UpdateOutput | None = None
    ) -> ToolResult:
        """Stop the shell, or report why it cannot be stopped."""
        task_id = str(self.params["task_id"])
        registry = self.config.session.background_shells
        entry = registry.get(task_id)
        if entry is None:
            return ToolResult.failure(
                f"Task not found: {task_id}",
                ToolErrorType.TASK_STOP_NOT_FOUND,
                llm_content=f'Error: No background task found with ID "{task_id}".',
                display="Task not found.",
            )
        if entry.status != "running":
            return ToolResult.failure(
                f"shell is {entry.status}: {task_id}",
                ToolErrorType.TASK_STOP_NOT_RUNNING,
                llm_content=(
                    f'Error: Background shell "{task_id}" is not running (status: {entry.status}).'
                ),
                display=f"Task not running ({entry.status}).",
            )
        await registry.stop(task_id)
        return ToolResult(
            llm_content=(
                f'Cancellation requested for background shell "{task_id}". Final status will be '
                f"visible in its status file ({entry.status_path}) once the process drains; "
                f"captured output remains at {entry.output_path}.\nCommand: {entry.command}"
            ),
            return_display=f"Cancelled shell: {entry.command}",
        )


class TaskStopTool(BaseDeclarativeTool[TaskStopParams]):
    """The ``task_stop`` tool (display name ``TaskStop``, kind ``other``)."""

    Name: ClassVar[str] = ToolNames.TASK_STOP

    def __init__(self, config: Config) -> None:
        super().__init__(
            self.Name,
            ToolDisplayNames.TASK_STOP,
            _DESCRIPTION,
            Kind.OTHER,
            _SCHEMA,
            is_output_markdown=True,
            can_update_output=False,
        )
        self.config = config

    def create_invocation(self, params: TaskStopParams) -> ToolInvocation[TaskStopParams]:
        """Build the invocation for validated params."""
        return TaskStopInvocation(self.config, params)
