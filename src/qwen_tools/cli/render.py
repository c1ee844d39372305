"""Showing results to a person: display text, coloured diffs, errors (rich, imported lazily)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

    from qwen_tools.contract.display import ToolResultDisplay
    from qwen_tools.execution.tool_call import CompletedToolCall


def printable_streams() -> None:
    """Let stdout and stderr print any string: a lone surrogate (a file name that is not UTF-8,
    a ``\\ud800`` from a model) is written as its ``\\udxxx`` escape instead of raising."""
    from qwen_tools.contract.well_formed import install_stream_fallback

    install_stream_fallback(sys.stdout)
    install_stream_fallback(sys.stderr)


def diff_renderable(diff: str) -> object:
    """A unified diff with added lines green and removed lines red."""
    from rich.text import Text

    text = Text()
    for line in diff.splitlines():
        if line.startswith(("+++", "---")):
            style = "bold"
        elif line.startswith("+"):
            style = "green"
        elif line.startswith("-"):
            style = "red"
        elif line.startswith("@@"):
            style = "cyan"
        else:
            style = ""
        text.append(line + "\n", style=style)
    return text


def print_display(console: Console, display: ToolResultDisplay | None, fallback: str) -> None:
    """Print a result's display value, or ``fallback`` when it has none."""
    if display is None or isinstance(display, str):  # text: no display class needed
        text = display if display is not None and display.strip() else fallback
        console.print(text, markup=False, highlight=False, soft_wrap=True)
        return
    from qwen_tools.contract.display import FileDiff, TodoListDisplay

    if isinstance(display, FileDiff):
        console.print(diff_renderable(display.file_diff))
    elif isinstance(display, TodoListDisplay):
        marks = {"pending": "[ ]", "in_progress": "[~]", "completed": "[x]"}
        for todo in display.todos:
            console.print(f"{marks[todo.status]} {todo.content}", markup=False, highlight=False)
    else:
        console.print(str(display.to_dict()), markup=False, highlight=False)


def print_completed(completed: CompletedToolCall) -> None:
    """What the model received goes to stdout; the user-facing display to stderr.

    Failures and cancellations go to stderr.
    """
    if completed.status == "success":
        display = completed.display
        shown = completed.response_text
        if isinstance(display, str) and display.strip() and display.strip() in shown:
            display = None  # stdout has it already (a command's output): say it once
        if display is not None and display != "" and display != shown:
            from rich.console import Console  # only when there is something to show

            print_display(Console(file=sys.stderr, style="dim"), display, "")
        sys.stdout.write(completed.response_text)
        if not completed.response_text.endswith("\n"):
            sys.stdout.write("\n")
        sys.stdout.flush()
        return
    from rich.console import Console

    err = Console(file=sys.stderr)
    label = "Cancelled" if completed.status == "cancelled" else "Error"
    err.print(f"[bold red]{label}:[/] ", end="")
    err.print(completed.response_text, markup=False, highlight=False, soft_wrap=True)
