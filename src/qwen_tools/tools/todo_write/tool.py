"""``todo_write``: the model's user-visible task list for the session, replaced on every call.

As in Qwen Code 0.24.4:

* **Params:** ``todos``, a list of ``{id, content, status, blockedBy?}`` (``status`` one of
  ``pending``, ``in_progress``, ``completed``; ``blockedBy`` ids of items of the same list).
  Params are checked by the reference's own rules only, not by the JSON schema (the reference
  overrides schema validation for this tool): ids non-empty, at most 500 UTF-16 units and
  unique, content non-blank, a valid status, dependencies known, not duplicated, not on
  itself, and free of cycles. "At most one ``in_progress``" is advice, not enforced.
* **Storage:** ``<runtime dir>/todos/<session id>.json`` (see :mod:`~qwen_tools.tools.todo_write.store`);
  :func:`read_todos` reads it back. During an active plan (some stored item not completed),
  an item sent without ``blockedBy`` keeps the dependencies stored for its id (those still in
  the list), unless that would create a cycle. A plan id (a UUID) is kept while the plan goes
  on and renewed when a new list starts after everything was completed.
* **Results:** the reference's texts with their ``<system-reminder>`` blocks for a changed,
  cleared or unchanged list; a failure is reported in the text (``Failed to modify todos.``),
  not as an error result. The display is a :class:`~qwen_tools.TodoListDisplay`.

Not implemented: TodoCreated/TodoCompleted hooks, the session-workflow plan revisions, and the
"unfinished todo items" reminder the reference injects into later prompts.
"""

from __future__ import annotations

import json
import os
import uuid
from typing import Any, ClassVar, cast

import anyio

from qwen_tools.config.config import Config
from qwen_tools.contract.abort import AbortSignal
from qwen_tools.contract.declarative import BaseDeclarativeTool
from qwen_tools.contract.display import TodoItem, TodoListDisplay, TodoStatus
from qwen_tools.contract.invocation import BaseToolInvocation, ToolInvocation, UpdateOutput
from qwen_tools.contract.kinds import Kind
from qwen_tools.contract.results import ToolResult
from qwen_tools.contract.tool_names import ToolDisplayNames, ToolNames
from qwen_tools.tools.common.paths import node_error_message
from qwen_tools.tools.todo_write.params import TodoItemParams, TodoWriteParams
from qwen_tools.tools.todo_write.store import (
    CYCLE_ERROR,
    TodoPlan,
    js_equal,
    js_json,
    read_todo_plan,
    read_todos,
    todo_file_path,
    validate_todos,
    write_todo_plan,
)

__all__ = ["TodoItemParams", "TodoWriteParams", "TodoWriteTool", "read_todos"]

_DESCRIPTION = """Keeps a short task list that the user can see, for work where tracking \
progress makes things clearer.

## When it helps
- Work that is complex, spans several phases, or has several separate outcomes or real \
dependencies between steps.
- Work that benefits from visible checkpoints.
- Whenever the user asks for a todo list.

Skip it for a single straightforward step, for questions and conversation, and for anything \
you can simply answer or do right away, unless the user asks for a list.

## Writing the list
Each call sends the complete list, which replaces the previous one. Prefer a few meaningful, \
ordered, checkable outcomes over one item per file, command or error. Use `blockedBy` only for \
genuine dependencies on other items of the same list; an item you resend without `blockedBy` \
keeps the dependencies it had, and `[]` clears them.

Have at most one item `in_progress`. Update statuses as you go, mark an item `completed` only \
when it is really done, and revise or drop items when the plan changes.
"""

_ITEM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "content": {"type": "string", "minLength": 1},
        "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]},
        "id": {"type": "string", "maxLength": 500},
        "blockedBy": {
            "type": "array",
            "items": {"type": "string", "maxLength": 500},
            "uniqueItems": True,
            "description": "Ids of the items of this list that must be completed first. Left "
            "out, an existing item keeps its dependencies; [] removes them.",
        },
    },
    "required": ["content", "status", "id"],
    "additionalProperties": False,
}

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "todos": {
            "type": "array",
            "items": _ITEM_SCHEMA,
            "description": "The whole todo list, as it should be from now on.",
        }
    },
    "required": ["todos"],
}

_UNCHANGED = (
    "Todo list is already up to date. No changes were needed.\n\n<system-reminder>\n"
    "Your todo list was not modified because it is already current. Continue with your "
    "existing tasks.\n</system-reminder>"
)
_CLEARED = (
    "Todo list has been cleared.\n\n<system-reminder>\nYour todo list is now empty. DO NOT "
    "mention this explicitly to the user. You have no pending tasks in your todo list.\n"
    "</system-reminder>"
)


def _modified(todos_json: str) -> str:
    return (
        "Todos have been modified successfully. Ensure that you continue to use the todo list "
        "to track your progress. Please proceed with the current tasks if applicable\n\n"
        "<system-reminder>\nYour todo list has changed. DO NOT mention this explicitly to the "
        "user. Here are the latest contents of your todo list:\n\n"
        f"{todos_json}. Continue on with the tasks at hand if applicable.\n</system-reminder>"
    )


def _failed(message: str) -> ToolResult:
    return ToolResult(
        llm_content=(
            "Failed to modify todos. An error occurred during the operation.\n\n"
            f"<system-reminder>\nTodo list modification failed with error: {message}. You may "
            "need to retry or handle this error appropriately.\n</system-reminder>"
        ),
        return_display=f"Error writing todos: {message}",
    )


def _item(todo: dict[str, Any]) -> TodoItem:
    blocked = todo.get("blockedBy")
    return TodoItem(
        id=str(todo["id"]),
        content=str(todo["content"]),
        status=cast(TodoStatus, todo["status"]),
        blocked_by=tuple(blocked) if isinstance(blocked, list) else None,
    )


def _items(todos: list[dict[str, Any]]) -> tuple[TodoItem, ...]:
    return tuple(_item(todo) for todo in todos)


def _with_kept_dependencies(todos: list[TodoItemParams], stored: list[Any]) -> list[Any]:
    """Items sent without ``blockedBy`` keep their stored dependencies during an active plan."""
    active = any(not isinstance(t, dict) or t.get("status") != "completed" for t in stored)
    if not active:
        return todos
    by_id = {t.get("id"): t for t in stored if isinstance(t, dict)}
    sent_ids = {todo.get("id") for todo in todos}
    kept_any = False
    result: list[Any] = []
    for todo in todos:
        old = by_id.get(todo.get("id"))
        old_deps = old.get("blockedBy") if old is not None else None
        if "blockedBy" in todo or not isinstance(old_deps, list):
            result.append(todo)
            continue
        kept_any = True
        result.append({**todo, "blockedBy": [dep for dep in old_deps if dep in sent_ids]})
    if kept_any and validate_todos(result) == CYCLE_ERROR:
        return todos
    return result


class TodoWriteInvocation(BaseToolInvocation[TodoWriteParams]):
    """One validated ``todo_write`` call."""

    def __init__(self, config: Config, params: TodoWriteParams, creating: bool) -> None:
        super().__init__(params)
        self.config = config
        self.creating = creating

    def get_description(self) -> str:
        """``Create todos`` for the session's first list, ``Update todos`` afterwards."""
        return "Create todos" if self.creating else "Update todos"

    async def execute(
        self, signal: AbortSignal, update_output: UpdateOutput | None = None
    ) -> ToolResult:
        """Replace the stored list (in a worker thread, under the file's session lock)."""
        path = todo_file_path(self.config)
        async with self.config.session.file_locks.lock(path):
            return await anyio.to_thread.run_sync(self._write, path)

    def _write(self, path: str) -> ToolResult:
        try:
            return self._replace(path)
        except OSError as exc:
            return _failed(node_error_message(exc, "open", path))
        except Exception as exc:  # the reference reports every failure in the reply text
            return _failed(str(exc))

    def _candidate(self, previous: TodoPlan) -> Any:
        params = self.params
        modified = params.get("modified_content")
        if params.get("modified_by_user") and isinstance(modified, str):
            data = json.loads(modified)
            if not isinstance(data, dict):
                raise ValueError("The modified content is not a JSON object.")
            return data.get("todos")
        return _with_kept_dependencies(params["todos"], previous.todos)

    def _replace(self, path: str) -> ToolResult:
        previous = read_todo_plan(self.config)
        old = previous.todos
        candidate = self._candidate(previous)
        error = validate_todos(candidate)
        if error is not None:
            raise ValueError(error)
        todos: list[dict[str, Any]] = candidate
        if js_equal(old, todos):
            display = TodoListDisplay(todos=_items(todos), plan_id=previous.plan_id, unchanged=True)
            return ToolResult(llm_content=_UNCHANGED, return_display=display)
        old_by_id = {t.get("id"): t for t in old if isinstance(t, dict)}
        created = [t for t in todos if t["id"] not in old_by_id]
        completed = [
            t
            for t in todos
            if t["id"] in old_by_id
            and old_by_id[t["id"]].get("status") != "completed"
            and t["status"] == "completed"
        ]
        all_done = all(isinstance(t, dict) and t.get("status") == "completed" for t in old)
        new_plan = bool(todos) and (not old or all_done)
        plan_id: str | None = None
        if todos:
            plan_id = str(uuid.uuid4()) if new_plan or not previous.plan_id else previous.plan_id
        write_todo_plan(self.config, todos, plan_id)
        display = TodoListDisplay(
            todos=_items(todos),
            plan_id=plan_id or previous.plan_id,
            created=_items(created),
            completed=_items(completed),
        )
        text = _modified(js_json(todos)) if todos else _CLEARED
        return ToolResult(llm_content=text, return_display=display)


class TodoWriteTool(BaseDeclarativeTool[TodoWriteParams]):
    """The ``todo_write`` tool (display name ``TodoList``, kind ``think``)."""

    Name: ClassVar[str] = ToolNames.TODO_WRITE

    def __init__(self, config: Config) -> None:
        super().__init__(self.Name, ToolDisplayNames.TODO_WRITE, _DESCRIPTION, Kind.THINK, _SCHEMA)
        self.config = config

    def _validate(self, params: Any) -> tuple[TodoWriteParams | None, str | None]:
        """Only the reference's own checks run: it skips the schema pass for this tool."""
        todos = params.get("todos") if isinstance(params, dict) else None
        error = validate_todos(todos)
        return (None, error) if error is not None else (params, None)

    def create_invocation(self, params: TodoWriteParams) -> ToolInvocation[TodoWriteParams]:
        """Build the invocation; it says "Create" when the session has no todo file yet."""
        creating = not os.path.exists(todo_file_path(self.config))
        return TodoWriteInvocation(self.config, params, creating)
