"""``RolloutRunner``: run tasks with bounded concurrency and append one record per task.

Each task gets a fresh session from its template, the agent loop within the task's turn and
time limits (:mod:`.episode`), then the workspace's diff; the session is closed whatever
happens. A task that fails (its template cannot be made, its worker dies, the model endpoint
fails) is recorded with ``status: "failed"`` and the run goes on. Records are appended as tasks
finish, one line each, so a run that stops can be resumed: tasks whose id is in the output are
skipped (:func:`~.tasks.written_ids`), and a torn last line is cut off first.

A record::

    {"id", "status": "ok" | "limit" | "failed", "finish_reason": "GOAL" | "MAX_TURNS" |
     "timeout" | "ERROR" | "CANCELLED" | "exception", "turns", "tool_calls": [{"id", "name",
     "args", "status", "response", "error_type", "duration_ms"}], "messages", "final_text",
     "error", "diff", "usage", "timings": {"open_s", "agent_s", "diff_s", "total_s", "turn_ms"}}
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from qwen_tools.pool.template import Template
from qwen_tools.rollout.episode import run_episode
from qwen_tools.rollout.tasks import RolloutTask, written_ids

if TYPE_CHECKING:
    from qwen_tools.model.model_config import ModelConfig
    from qwen_tools.rollout.backends import Backend

__all__ = ["RolloutRunner", "RolloutSummary"]

_STATUS = {"GOAL": "ok", "MAX_TURNS": "limit", "timeout": "limit"}


@dataclass
class RolloutSummary:
    """What a run did: tasks written now, skipped (already written), and per status."""

    written: int = 0
    skipped: int = 0
    statuses: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0


def _cut_torn_tail(path: Path) -> None:
    """Drop an unfinished last line (a run killed mid-write) so appends start on a new line."""
    try:
        with path.open("rb+") as handle:
            data = handle.read()
            if not data or data.endswith(b"\n"):
                return
            handle.truncate(data.rfind(b"\n") + 1)
    except FileNotFoundError:
        return


class RolloutRunner:
    """Runs :class:`~.tasks.RolloutTask` objects on a backend (local or Ray)."""

    def __init__(
        self,
        model: ModelConfig,
        backend: Backend,
        *,
        concurrency: int = 8,
        max_turns: int = 50,
        timeout_s: float | None = 600.0,
        approval_mode: str = "yolo",
        on_record: Callable[[dict[str, Any]], object] | None = None,
    ) -> None:
        """``max_turns``/``timeout_s``/``approval_mode``: defaults for tasks that set none;
        ``on_record`` sees each record as it is written (progress)."""
        self.model = model
        self.backend = backend
        self.concurrency = max(1, concurrency)
        self.max_turns = max_turns
        self.timeout_s = timeout_s
        self.approval_mode = approval_mode
        self.on_record = on_record
        self._templates: dict[str, Template] = {}

    def _template(self, spec: str | dict[str, Any]) -> Template:
        key = json.dumps(spec, sort_keys=True)
        found = self._templates.get(key)
        if found is None:
            found = self._templates[key] = Template.parse(spec)
        return found

    async def run(
        self, tasks: Sequence[RolloutTask], output: str | os.PathLike[str]
    ) -> RolloutSummary:
        """Run the tasks not yet in ``output``; append their records to it."""
        started = time.perf_counter()
        path = Path(output)
        _cut_torn_tail(path)
        done = written_ids(path)
        todo = [task for task in tasks if task.id not in done]
        summary = RolloutSummary(skipped=len(tasks) - len(todo))
        queue: asyncio.Queue[RolloutTask] = asyncio.Queue()
        for task in todo:
            queue.put_nowait(task)
        with path.open("a", encoding="utf-8") as sink:

            async def worker() -> None:
                while not queue.empty():
                    record = await self.run_task(queue.get_nowait())
                    sink.write(json.dumps(record, ensure_ascii=False) + "\n")
                    sink.flush()
                    summary.written += 1
                    status = str(record["status"])
                    summary.statuses[status] = summary.statuses.get(status, 0) + 1
                    if self.on_record is not None:
                        self.on_record(record)

            await asyncio.gather(*(worker() for _ in range(min(self.concurrency, len(todo)))))
        summary.seconds = time.perf_counter() - started
        return summary

    async def run_task(self, task: RolloutTask) -> dict[str, Any]:
        """One task's record (never raises except on cancellation)."""
        record: dict[str, Any] = {"id": task.id, "prompt": task.prompt}
        timings: dict[str, Any] = {}
        began = time.perf_counter()
        session_id: str | None = None
        try:
            template = self._template(task.template)
            session_id = await self.backend.open(template, task.approval_mode or self.approval_mode)
            timings["open_s"] = round(time.perf_counter() - began, 6)
            timeout = task.timeout_s if task.timeout_s is not None else self.timeout_s
            max_turns = task.max_turns if task.max_turns is not None else self.max_turns
            episode = self.backend.run(
                session_id, run_episode, task.prompt, self.model, max_turns, timeout
            )
            # the episode stops itself at its timeout; this only catches a worker that hangs
            guard = None if timeout is None else timeout * 2 + 60
            outcome: dict[str, Any] = await asyncio.wait_for(episode, guard)
            timings["agent_s"] = outcome.pop("agent_s")
            timings["turn_ms"] = outcome.pop("turn_ms")
            outcome.pop("workspace", None)
            record.update(outcome)
            diff_started = time.perf_counter()
            record["diff"] = await self.backend.diff(session_id)
            timings["diff_s"] = round(time.perf_counter() - diff_started, 6)
            record["status"] = _STATUS.get(record["finish_reason"], "failed")
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # recorded: the run goes on with the other tasks
            record["status"] = "failed"
            record["finish_reason"] = "timeout" if isinstance(exc, TimeoutError) else "exception"
            record["error"] = f"{type(exc).__name__}: {exc}"
        finally:
            if session_id is not None:
                try:
                    await self.backend.close(session_id)
                except Exception as exc:  # a lost session has nothing left to close
                    record.setdefault("close_error", f"{type(exc).__name__}: {exc}")
            timings["total_s"] = round(time.perf_counter() - began, 6)
            record["timings"] = timings
        return record
