"""The session's todo list on disk, and the checks a todo list must pass.

Like Qwen Code 0.24.4, the list of session ``<id>`` lives in
``<runtime dir>/todos/<id>.json`` (the runtime dir is ``$QWEN_RUNTIME_DIR`` when set, else
the Qwen home directory), as ``{"planId"?, "todos", "sessionId"}`` pretty-printed with two
spaces; each write replaces the whole list atomically. JSON is produced the way JavaScript's
``JSON.stringify`` does it (integral floats without ``.0``, non-finite numbers as ``null``,
lone surrogates escaped), so the text the model gets back matches the reference.
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from qwen_tools.jscompat.jstext import js_trim, utf16_len

if TYPE_CHECKING:
    from qwen_tools.config.config import Config

__all__ = [
    "CYCLE_ERROR",
    "TodoPlan",
    "js_equal",
    "js_json",
    "read_todo_plan",
    "read_todos",
    "todo_file_path",
    "validate_todos",
    "write_todo_plan",
]

CYCLE_ERROR = "Todo dependencies must not contain a cycle."
_STATUSES = ("pending", "in_progress", "completed")
_MAX_ID = 500
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(slots=True)
class TodoPlan:
    """What the todo file holds: the plan id (if any) and the items as stored."""

    plan_id: str | None = None
    todos: list[Any] = field(default_factory=list)


def _runtime_dir(config: Config) -> str:
    runtime = os.environ.get("QWEN_RUNTIME_DIR")
    if runtime:
        return os.path.abspath(os.path.expanduser(runtime))
    return os.fspath(config.home_dir)


def todo_file_path(config: Config) -> str:
    """``<runtime dir>/todos/<session id or "default">.json``."""
    return os.path.join(_runtime_dir(config), "todos", f"{config.session_id or 'default'}.json")


def read_todo_plan(config: Config) -> TodoPlan:
    """The stored plan; an empty one when there is no file (other failures raise)."""
    try:
        with open(todo_file_path(config), encoding="utf-8") as handle:
            data = json.load(handle)
    except FileNotFoundError:
        return TodoPlan()
    if not isinstance(data, dict):
        raise ValueError("The todo file does not hold a JSON object.")
    plan_id = data.get("planId")
    todos = data.get("todos")
    return TodoPlan(
        plan_id if isinstance(plan_id, str) else None, todos if isinstance(todos, list) else []
    )


def read_todos(config: Config) -> list[dict[str, Any]]:
    """The session's current todo items (for a UI); ``[]`` when none were written."""
    return [todo for todo in read_todo_plan(config).todos if isinstance(todo, dict)]


def write_todo_plan(config: Config, todos: list[Any], plan_id: str | None) -> None:
    """Replace the stored list atomically, creating the directory when needed."""
    from qwen_tools.fs.atomic import write_bytes_atomic

    path = todo_file_path(config)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    data: dict[str, Any] = {"planId": plan_id} if plan_id else {}
    data["todos"] = todos
    data["sessionId"] = config.session_id or "default"
    write_bytes_atomic(path, js_json(data, indent=2).encode("utf-8"))


# -- JSON as JavaScript writes it ---------------------------------------------------------


def _js_value(value: Any) -> Any:
    if isinstance(value, float):
        if not math.isfinite(value):
            return None
        return int(value) if value.is_integer() and abs(value) < 2**53 else value
    if isinstance(value, dict):
        return {str(key): _js_value(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_js_value(item) for item in value]
    return value


def js_json(value: Any, *, indent: int | None = None, sort_keys: bool = False) -> str:
    """``JSON.stringify(value, null, indent)`` for JSON-like data."""
    separators = (",", ": ") if indent is not None else (",", ":")
    text = json.dumps(
        _js_value(value),
        ensure_ascii=False,
        indent=indent,
        separators=separators,
        sort_keys=sort_keys,
    )
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def js_equal(left: Any, right: Any) -> bool:
    """``util.isDeepStrictEqual`` for JSON-like data (key order ignored, types strict)."""
    return js_json(left, sort_keys=True) == js_json(right, sort_keys=True)


# -- validation ---------------------------------------------------------------------------


def _valid_id(value: Any) -> bool:
    return isinstance(value, str) and bool(js_trim(value)) and utf16_len(value) <= _MAX_ID


def _item_error(todo: Any) -> str | None:
    if isinstance(todo, list):  # an array is an object to JavaScript, one without fields
        todo = {}
    if not isinstance(todo, dict):
        return "Each todo must be an object."
    if not _valid_id(todo.get("id")):
        return 'Each todo must have a non-empty "id" string of at most 500 characters.'
    content = todo.get("content")
    if not isinstance(content, str) or not js_trim(content):
        return 'Each todo must have a non-empty "content" string.'
    status = todo.get("status")
    if not isinstance(status, str) or status not in _STATUSES:
        return 'Each todo must have a valid "status" (pending, in_progress, completed).'
    if "blockedBy" in todo:
        blocked = todo["blockedBy"]
        if not isinstance(blocked, list) or not all(_valid_id(dep) for dep in blocked):
            return (
                'Each todo "blockedBy" value must be an array of non-empty Todo IDs of at '
                "most 500 characters."
            )
    return None


def validate_todos(value: Any) -> str | None:
    """The reference's first complaint about a todo list, or ``None`` when it is valid."""
    if not isinstance(value, list):
        return 'Parameter "todos" must be an array.'
    for todo in value:
        error = _item_error(todo)
        if error is not None:
            return error
    todos: list[dict[str, Any]] = [t if isinstance(t, dict) else {} for t in value]
    ids = [str(todo.get("id")) for todo in todos]
    known = set(ids)
    if len(known) != len(ids):
        return "Todo IDs must be unique within the array."
    for todo, todo_id in zip(todos, ids, strict=True):
        dependencies: list[str] = todo.get("blockedBy") or []
        if len(set(dependencies)) != len(dependencies):
            return f'Todo "{todo_id}" must not contain duplicate blockedBy references.'
        if todo_id in dependencies:
            return f'Todo "{todo_id}" must not depend on itself.'
        missing = next((dep for dep in dependencies if dep not in known), None)
        if missing is not None:
            return f'Todo "{todo_id}" references unknown dependency "{missing}".'
    return CYCLE_ERROR if _has_cycle(todos, ids) else None


def _has_cycle(todos: list[dict[str, Any]], ids: list[str]) -> bool:
    """Kahn's algorithm: some item never becomes free of unfinished dependencies."""
    remaining: dict[str, int] = {}
    dependents: dict[str, list[str]] = {}
    for todo, todo_id in zip(todos, ids, strict=True):
        dependencies: list[str] = todo.get("blockedBy") or []
        remaining[todo_id] = len(dependencies)
        for dependency in dependencies:
            dependents.setdefault(dependency, []).append(todo_id)
    queue = [todo_id for todo_id in ids if remaining[todo_id] == 0]
    index = 0
    while index < len(queue):
        for dependent in dependents.get(queue[index], ()):
            remaining[dependent] -= 1
            if remaining[dependent] == 0:
                queue.append(dependent)
        index += 1
    return len(queue) != len(ids)
