"""Compact rich renderings of what tools show: diffs, todo lists, plans, subagent runs, text.

Every renderer bounds its height (long outputs keep their tail, long diffs their head) so a
tool call never floods the screen; the model still receives the full text.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from qwen_tools.contract.display import (
    FileDiff,
    McpToolProgressDisplay,
    PlanSummaryDisplay,
    TaskExecutionDisplay,
    TodoListDisplay,
    ToolResultDisplay,
)

if TYPE_CHECKING:
    from rich.console import RenderableType
    from rich.text import Text

MAX_TEXT_LINES = 15
"""Lines of a text result shown (its tail)."""
MAX_DIFF_LINES = 40
"""Lines of a diff shown (its head)."""

_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")


def _hidden(count: int, where: str) -> Text:
    from rich.text import Text

    return Text(f"… {count} {where} line{'s' if count != 1 else ''} hidden …", style="dim")


def text_tail(text: str, limit: int = MAX_TEXT_LINES, style: str = "") -> RenderableType:
    """Plain text (no markup), keeping its last ``limit`` lines."""
    from rich.console import Group
    from rich.text import Text

    lines = text.rstrip("\n").split("\n")
    body = Text("\n".join(lines[-limit:]), style=style)
    if len(lines) <= limit:
        return body
    return Group(_hidden(len(lines) - limit, "earlier"), body)


def diff_lines(diff: str, limit: int = MAX_DIFF_LINES) -> RenderableType:
    """A unified diff as numbered lines: green ``+``, red ``-``, dim context, ``⋯`` between hunks.

    The ``---``/``+++`` headers are dropped (the box title names the file).
    """
    from rich.console import Group
    from rich.text import Text

    rows: list[tuple[str, str, str]] = []  # (line number, sign + content, style)
    old = new = 0
    for line in diff.splitlines():
        if line.startswith(("---", "+++", "Index:", "====")):
            continue
        match = _HUNK.match(line)
        if match:
            if rows:
                rows.append(("", "⋯", "dim"))
            old, new = int(match[1]), int(match[2])
        elif line.startswith("+"):
            rows.append((str(new), line, "green"))
            new += 1
        elif line.startswith("-"):
            rows.append((str(old), line, "red"))
            old += 1
        elif line.startswith("\\"):
            rows.append(("", line, "dim"))
        else:
            rows.append((str(new), line, "dim"))
            old += 1
            new += 1
    if not rows:
        return Text("No changes.", style="dim")
    width = max(len(number) for number, _, _ in rows)
    text = Text()
    for number, content, style in rows[:limit]:
        text.append(number.rjust(width) + " ", style="dim")
        text.append(content + "\n", style=style)
    text.rstrip()
    if len(rows) <= limit:
        return text
    return Group(text, _hidden(len(rows) - limit, "more"))


def todo_lines(display: TodoListDisplay) -> RenderableType:
    """``●`` done (struck through), ``◐`` in progress, ``○`` pending."""
    from rich.text import Text

    text = Text()
    for todo in display.todos:
        if todo.status == "completed":
            text.append("● ", style="green")
            text.append(todo.content + "\n", style="dim strike")
        elif todo.status == "in_progress":
            text.append("◐ ", style="yellow")
            text.append(todo.content + "\n", style="bold")
        else:
            text.append("○ ", style="dim")
            text.append(todo.content + "\n")
    text.rstrip()
    return text if display.todos else Text("(empty todo list)", style="dim")


def plan_view(display: PlanSummaryDisplay) -> RenderableType:
    """The plan as Markdown under its message."""
    from rich.console import Group
    from rich.text import Text

    from qwen_tools.cli.chat.markdown import ChatMarkdown as Markdown

    style = "yellow" if display.rejected else "bold"
    return Group(Text(display.message, style=style), Markdown(display.plan))


def task_view(display: TaskExecutionDisplay) -> RenderableType:
    """A subagent run: its name and task, the calls it made, then its result (tail)."""
    from rich.console import Group
    from rich.text import Text

    head = Text()
    head.append(display.subagent_name, style="bold magenta")
    head.append(f"  {display.task_description}  ", style="")
    head.append(display.status, style=_TASK_STYLE.get(display.status, ""))
    parts: list[RenderableType] = [head]
    for call in display.tool_calls[-5:]:
        name = str(call.get("name") or call.get("toolName") or "?")
        status = str(call.get("status") or "")
        summary = str(call.get("description") or call.get("args") or "")
        line = Text("  ")
        line.append(_GLYPHS.get(status, "•") + " ", style=_TASK_STYLE.get(status, "dim"))
        line.append(name, style="bold")
        line.append(f" {summary}"[:100], style="dim")
        parts.append(line)
    if display.result:
        parts.append(text_tail(display.result, 8))
    elif display.terminate_reason:
        parts.append(Text(display.terminate_reason, style="dim"))
    return Group(*parts)


_TASK_STYLE = {
    "running": "yellow",
    "executing": "yellow",
    "completed": "green",
    "success": "green",
    "failed": "red",
    "error": "red",
    "cancelled": "yellow",
}
_GLYPHS = {
    "executing": "⊷",
    "success": "✓",
    "completed": "✓",
    "error": "x",
    "failed": "x",
    "cancelled": "-",
}


def progress_line(display: McpToolProgressDisplay) -> RenderableType:
    """``progress/total`` and the server's message."""
    from rich.text import Text

    amount = f"{display.progress:g}" + (f"/{display.total:g}" if display.total else "")
    return Text(f"{amount} {display.message or ''}".rstrip(), style="dim")


def display_view(
    display: ToolResultDisplay | None, *, markdown: bool = True
) -> RenderableType | None:
    """The renderable for a result display, or ``None`` when there is nothing to show."""
    if display is None:
        return None
    if isinstance(display, FileDiff):
        return diff_lines(display.file_diff)
    if isinstance(display, TodoListDisplay):
        return todo_lines(display)
    if isinstance(display, PlanSummaryDisplay):
        return plan_view(display)
    if isinstance(display, TaskExecutionDisplay):
        return task_view(display)
    if isinstance(display, McpToolProgressDisplay):
        return progress_line(display)
    if not display.strip():
        return None
    lines = display.count("\n") + 1
    if markdown and lines <= MAX_TEXT_LINES:
        from qwen_tools.cli.chat.markdown import ChatMarkdown as Markdown

        return Markdown(display)
    return text_tail(display)
