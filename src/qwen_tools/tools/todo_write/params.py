"""``TodoWriteParams``: the params of ``todo_write``, typed as its schema declares them.

The reference skips the schema pass for this tool; its own checks (``validate_todos``) make
sure a call that reaches the invocation has this shape.
"""

from __future__ import annotations

from typing import Literal, Required, TypedDict

__all__ = ["TodoItemParams", "TodoWriteParams"]


class TodoItemParams(TypedDict, total=False):
    """One item of the list: its id, what it is, its status, and the items it waits for."""

    content: Required[str]
    status: Required[Literal["pending", "in_progress", "completed"]]
    id: Required[str]
    blockedBy: list[str]  # the reference's camelCase name


class TodoWriteParams(TypedDict, total=False):
    """``todo_write``'s params: the whole list, as it should be from now on."""

    todos: Required[list[TodoItemParams]]
