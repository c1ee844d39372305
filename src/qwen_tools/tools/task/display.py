"""The live ``task_execution`` display of a subagent run, fed by the runner's progress notices.

Each started tool call is listed as ``executing`` and becomes ``success`` or ``failed`` when its
result arrives (matched by call id, else by the oldest running call of that tool), as Qwen Code
0.24.4's task display shows them. Every change is pushed to ``update_output``.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Literal

from qwen_tools.contract.display import TaskExecutionDisplay
from qwen_tools.contract.invocation import UpdateOutput
from qwen_tools.subagents.protocol import SubagentProgress

__all__ = ["TaskDisplayTracker"]

Status = Literal["running", "completed", "failed", "cancelled"]


class TaskDisplayTracker:
    """Holds the current :class:`TaskExecutionDisplay` and publishes every change."""

    def __init__(
        self,
        subagent_name: str,
        description: str,
        prompt: str,
        update_output: UpdateOutput | None,
    ) -> None:
        self.display = TaskExecutionDisplay(
            subagent_name=subagent_name,
            task_description=description,
            task_prompt=prompt,
            status="running",
        )
        self._update_output = update_output
        self._calls: list[dict[str, Any]] = []

    def publish(self) -> None:
        """Send the current display to ``update_output`` (if there is one)."""
        if self._update_output is not None:
            self._update_output(self.display)

    def _set(self, **changes: Any) -> None:
        self.display = dataclasses.replace(self.display, **changes)
        self.publish()

    def on_progress(self, progress: SubagentProgress) -> None:
        """Record a progress notice; model text is not part of this display."""
        if progress.kind == "tool_call":
            call: dict[str, Any] = {
                "callId": progress.call_id or f"call-{len(self._calls) + 1}",
                "name": progress.tool_name or progress.text,
                "status": "executing",
                "description": progress.text,
            }
            self._calls.append(call)
            self._set(tool_calls=tuple(dict(c) for c in self._calls))
        elif progress.kind == "tool_result":
            index = self._find(progress)
            if index is None:
                return
            updated = dict(self._calls[index])
            updated["status"] = "failed" if progress.is_error else "success"
            if progress.is_error:
                updated["error"] = progress.text
            elif progress.text:
                updated["resultDisplay"] = progress.text
            self._calls[index] = updated
            self._set(tool_calls=tuple(dict(c) for c in self._calls))

    def _find(self, progress: SubagentProgress) -> int | None:
        if progress.call_id is not None:
            for index, call in enumerate(self._calls):
                if call["callId"] == progress.call_id:
                    return index
            return None
        for index, call in enumerate(self._calls):
            if call["status"] == "executing" and call["name"] == progress.tool_name:
                return index
        return None

    def finish(
        self,
        status: Status,
        terminate_reason: str,
        result: str | None = None,
    ) -> TaskExecutionDisplay:
        """Set the final state, publish it, and return it."""
        self._set(status=status, terminate_reason=terminate_reason, result=result)
        return self.display
