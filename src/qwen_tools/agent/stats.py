"""Session statistics, counted incrementally, in the shape of Qwen Code 0.24.4's ``stats`` object.

``--output-format json`` puts :meth:`SessionStats.to_json` in the result message (models with
request, error and latency counts and token totals, tools with counts, durations and
approval decisions, files, skills, generation timings); the ``usage`` block of the result
comes from :meth:`SessionStats.usage_json`. Every update is O(1): nothing is recomputed from
the history.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from qwen_tools.execution.call_types import CompletedToolCall
    from qwen_tools.model.completion import Completion

__all__ = ["SessionStats"]

_ALWAYS = frozenset(
    {
        "proceed_always",
        "proceed_always_server",
        "proceed_always_tool",
        "proceed_always_project",
        "proceed_always_user",
    }
)


def _decisions() -> dict[str, int]:
    return {"accept": 0, "reject": 0, "modify": 0, "auto_accept": 0}


@dataclass
class _ModelStats:
    requests: int = 0
    errors: int = 0
    latency_ms: float = 0.0
    prompt: int = 0
    candidates: int = 0
    total: int = 0
    cached: int = 0
    thoughts: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "api": {
                "totalRequests": self.requests,
                "totalErrors": self.errors,
                "totalLatencyMs": round(self.latency_ms),
            },
            "tokens": {
                "prompt": self.prompt,
                "candidates": self.candidates,
                "total": self.total,
                "cached": self.cached,
                "thoughts": self.thoughts,
            },
        }


@dataclass
class _ToolStats:
    count: int = 0
    success: int = 0
    fail: int = 0
    duration_ms: float = 0.0
    decisions: dict[str, int] = field(default_factory=_decisions)


@dataclass
class SessionStats:
    """Counts for one session (shared by the main loop and its subagents)."""

    models: dict[str, _ModelStats] = field(default_factory=dict)
    tools: dict[str, _ToolStats] = field(default_factory=dict)
    lines_added: int = 0
    lines_removed: int = 0
    api_ms: float = 0.0
    timed_requests: int = 0
    ttft_ms: float = 0.0
    generation_ms: float = 0.0
    last: dict[str, Any] | None = None

    def _model(self, name: str) -> _ModelStats:
        found = self.models.get(name)
        if found is None:
            found = self.models[name] = _ModelStats()
        return found

    def record_response(self, model: str, completion: Completion) -> None:
        """One successful request."""
        stats = self._model(model)
        stats.requests += 1
        stats.latency_ms += completion.latency_ms
        self.api_ms += completion.latency_ms
        usage = completion.usage
        if usage is not None:
            stats.prompt += usage.prompt_tokens
            stats.candidates += usage.completion_tokens
            stats.total += usage.total_tokens or usage.prompt_tokens + usage.completion_tokens
            stats.cached += usage.cached_tokens
            stats.thoughts += usage.reasoning_tokens
        if completion.ttft_ms is not None:
            generation = max(0.0, completion.latency_ms - completion.ttft_ms)
            output = usage.completion_tokens if usage is not None else 0
            self.timed_requests += 1
            self.ttft_ms += completion.ttft_ms
            self.generation_ms += generation
            self.last = {
                "model": model,
                "ttftMs": round(completion.ttft_ms),
                "generationDurationMs": round(generation),
                "outputTokens": output,
            }

    def record_api_error(self, model: str) -> None:
        """One failed request (each retried attempt counts)."""
        stats = self._model(model)
        stats.requests += 1
        stats.errors += 1

    def record_tool(self, completed: CompletedToolCall, approval_mode: str) -> None:
        """One finished tool call; its decision comes from the user's answer, if any."""
        name = completed.tool.name if completed.tool is not None else completed.request.name
        stats = self.tools.get(name)
        if stats is None:
            stats = self.tools[name] = _ToolStats()
        stats.count += 1
        if completed.status == "success":
            stats.success += 1
        else:
            stats.fail += 1
        stats.duration_ms += completed.duration_ms
        outcome = completed.outcome.value if completed.outcome is not None else None
        if outcome is None:
            decision = "auto_accept" if approval_mode == "yolo" and completed.result else None
        elif outcome == "proceed_once":
            decision = "accept"
        elif outcome in _ALWAYS:
            decision = "auto_accept"
        elif outcome == "modify_with_editor":
            decision = "modify"
        else:
            decision = "reject"
        if decision is not None:
            stats.decisions[decision] += 1
        display = completed.display
        diff_stat = getattr(display, "diff_stat", None)
        if diff_stat is not None:
            self.lines_added += diff_stat.model_added_lines
            self.lines_removed += diff_stat.model_removed_lines

    def usage_json(self) -> dict[str, int]:
        """The result message's ``usage``: input, output and cached tokens (+ total when known)."""
        prompt = sum(m.prompt for m in self.models.values())
        output = sum(m.candidates for m in self.models.values())
        total = sum(m.total for m in self.models.values())
        usage = {
            "input_tokens": prompt,
            "output_tokens": output,
            "cache_read_input_tokens": sum(m.cached for m in self.models.values()),
        }
        if total > 0:
            usage["total_tokens"] = total
        return usage

    def to_json(self) -> dict[str, Any]:
        """The ``stats`` object of the JSON result."""
        by_name: dict[str, Any] = {}
        totals = _decisions()
        for name, tool in self.tools.items():
            by_name[name] = {
                "count": tool.count,
                "success": tool.success,
                "fail": tool.fail,
                "durationMs": round(tool.duration_ms),
                "decisions": dict(tool.decisions),
            }
            for key, value in tool.decisions.items():
                totals[key] += value
        stats: dict[str, Any] = {
            "models": {
                name: {**m.to_json(), "bySource": {"main": m.to_json()}}
                for name, m in self.models.items()
            },
            "tools": {
                "totalCalls": sum(t.count for t in self.tools.values()),
                "totalSuccess": sum(t.success for t in self.tools.values()),
                "totalFail": sum(t.fail for t in self.tools.values()),
                "totalDurationMs": round(sum(t.duration_ms for t in self.tools.values())),
                "totalDecisions": totals,
                "byName": by_name,
            },
            "files": {"totalLinesAdded": self.lines_added, "totalLinesRemoved": self.lines_removed},
            "skills": {"totalCalls": 0, "totalSuccess": 0, "totalFail": 0, "byName": {}},
        }
        if self.timed_requests:
            stats["generation"] = {
                "timedRequests": self.timed_requests,
                "totalTtftMs": round(self.ttft_ms),
                "totalGenerationDurationMs": round(self.generation_ms),
                "totalThroughputOutputTokens": sum(m.candidates for m in self.models.values()),
                "last": self.last,
            }
        return stats
