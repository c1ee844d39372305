"""Rollout tasks: reading ``TASKS.jsonl`` and finding which tasks an output file already has.

One JSON object per line::

    {"id": "t1", "prompt": "Fix the bug in app.py", "template": "repos/app",
     "max_turns": 20, "timeout_s": 300, "approval_mode": "yolo"}

``template`` is a directory (relative to the tasks file), ``{"git": URL, "revision": REV}`` or
``{"files": {"path": "content", ...}}``; ``id`` defaults to the line number; the limits default
to the runner's.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["RolloutTask", "load_tasks", "written_ids"]


@dataclass(frozen=True)
class RolloutTask:
    """One task: what to ask, in which workspace, within which limits."""

    id: str
    prompt: str
    template: str | dict[str, Any]
    max_turns: int | None = None
    timeout_s: float | None = None
    approval_mode: str | None = None


def _task(raw: Any, line: int, base: Path) -> RolloutTask:
    if not isinstance(raw, dict) or not isinstance(raw.get("prompt"), str):
        raise ValueError(f"line {line}: a task is an object with a string 'prompt'")
    template = raw.get("template", {"files": {}})
    if isinstance(template, str):
        template = str(base / template) if not os.path.isabs(template) else template
    elif isinstance(template, dict) and isinstance(template.get("dir"), str):
        template = str(base / template["dir"])
    elif not isinstance(template, dict):
        raise ValueError(f"line {line}: 'template' is a directory or an object")
    return RolloutTask(
        id=str(raw.get("id", line)),
        prompt=raw["prompt"],
        template=template,
        max_turns=int(raw["max_turns"]) if raw.get("max_turns") is not None else None,
        timeout_s=float(raw["timeout_s"]) if raw.get("timeout_s") is not None else None,
        approval_mode=str(raw["approval_mode"]) if raw.get("approval_mode") else None,
    )


def load_tasks(path: str | os.PathLike[str]) -> list[RolloutTask]:
    """The tasks of a JSONL file (blank lines skipped); ``ValueError`` names a bad line or a
    repeated id."""
    source = Path(path)
    tasks: list[RolloutTask] = []
    seen: set[str] = set()
    with source.open(encoding="utf-8") as handle:
        for number, text in enumerate(handle, 1):
            if not text.strip():
                continue
            try:
                raw = json.loads(text)
            except json.JSONDecodeError as exc:
                raise ValueError(f"line {number}: not JSON ({exc.msg})") from None
            task = _task(raw, number, source.parent)
            if task.id in seen:
                raise ValueError(f"line {number}: task id {task.id!r} appears twice")
            seen.add(task.id)
            tasks.append(task)
    return tasks


def written_ids(path: str | os.PathLike[str]) -> set[str]:
    """The ids of the records already in an output file (a torn last line is ignored)."""
    found: set[str] = set()
    source = Path(path)
    if not source.is_file():
        return found
    with source.open(encoding="utf-8") as handle:
        for text in handle:
            try:
                record = json.loads(text)
            except json.JSONDecodeError:
                continue
            if isinstance(record, dict) and "id" in record:
                found.add(str(record["id"]))
    return found
