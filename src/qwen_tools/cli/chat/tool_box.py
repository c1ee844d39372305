"""One tool call on screen: a rounded box with a status glyph, the tool's name and description.

The look follows Qwen Code's tool messages: ``o`` pending, ``?`` awaiting approval, ``⊷``
running, ``✓`` done, ``x`` error, ``-`` cancelled; the name in bold, the description dimmed,
the result (diff, todo list, plan, text) below, indented. While a shell command runs, the box
shows a bounded tail of its output.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from qwen_tools.cli.chat.displays import display_view, text_tail
from qwen_tools.execution.scheduler import ToolCallStatus

if TYPE_CHECKING:
    from rich.console import RenderableType

    from qwen_tools.contract.display import ToolResultDisplay
    from qwen_tools.execution.call_types import CompletedToolCall, ToolCallRequest
    from qwen_tools.registry.registry import ToolRegistry

LIVE_TAIL_LINES = 8
"""Lines of a running command's output shown in its box."""
TITLE_CHARS = 300
"""The longest description shown in a box's title (a longer one ends with ``…``)."""

GLYPHS: dict[ToolCallStatus, tuple[str, str]] = {
    ToolCallStatus.VALIDATING: ("o", "dim"),
    ToolCallStatus.SCHEDULED: ("o", "dim"),
    ToolCallStatus.AWAITING_APPROVAL: ("?", "bold yellow"),
    ToolCallStatus.EXECUTING: ("⊷", "bold cyan"),
    ToolCallStatus.SUCCESS: ("✓", "bold green"),
    ToolCallStatus.ERROR: ("x", "bold red"),
    ToolCallStatus.CANCELLED: ("-", "bold yellow"),
}
FINAL = frozenset({ToolCallStatus.SUCCESS, ToolCallStatus.ERROR, ToolCallStatus.CANCELLED})


def describe_call(registry: ToolRegistry, request: ToolCallRequest) -> tuple[str, str, bool]:
    """The display name, ``invocation.get_description()`` and whether output is Markdown.

    Params that don't validate are shown as compact JSON instead of a description.
    """
    tool = registry.get_tool(request.name)
    if tool is None:
        return request.name, _args_summary(request.args), True
    try:
        description = tool.build(request.args).get_description()
    except Exception:
        description = _args_summary(request.args)
    return tool.display_name, description, tool.is_output_markdown


def _args_summary(args: Any) -> str:
    try:
        text = json.dumps(args, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(args)
    return text if len(text) <= 120 else text[:119] + "…"


@dataclass
class CallView:
    """The on-screen state of one call of a batch."""

    request: ToolCallRequest
    name: str
    description: str
    markdown: bool = True
    status: ToolCallStatus = ToolCallStatus.VALIDATING
    live: ToolResultDisplay | None = None
    completed: CompletedToolCall | None = None
    asked: bool = False
    """Whether the user was asked (the duration then includes the wait, so it is not shown)."""

    @classmethod
    def create(cls, registry: ToolRegistry, request: ToolCallRequest) -> CallView:
        """A view for ``request``, named and described from the registry."""
        name, description, markdown = describe_call(registry, request)
        return cls(request, name, description, markdown)

    @property
    def final(self) -> bool:
        """Whether the call has finished (success, error or cancelled)."""
        return self.status in FINAL

    def update(
        self,
        status: ToolCallStatus,
        *,
        output: ToolResultDisplay | None = None,
        completed: CompletedToolCall | None = None,
    ) -> None:
        """A new status, a piece of live output, or the finished call."""
        self.status = status
        self.asked = self.asked or status is ToolCallStatus.AWAITING_APPROVAL
        if output is not None:
            self.live = output
        if completed is not None:
            self.completed = completed

    def render(self) -> RenderableType:
        """The whole box."""
        from rich import box
        from rich.console import Group
        from rich.padding import Padding
        from rich.panel import Panel

        body = self._body()
        content: RenderableType = self.title()
        if body is not None:
            content = Group(content, Padding(body, (0, 0, 0, 2)))
        return Panel(content, box=box.ROUNDED, border_style=self._border(), padding=(0, 1))

    def title(self) -> RenderableType:
        """``<glyph> <Name> <description> (duration)``, wrapped (as Qwen Code: a long command
        is read whole), its description's first line only and at most ``TITLE_CHARS`` long."""
        from rich.table import Table
        from rich.text import Text

        glyph, style = GLYPHS[self.status]
        text = Text(overflow="fold")
        text.append(self.name, style="bold")
        if self.description:
            text.append(f" {_one_line(self.description)}", style="dim")
        if self.completed is not None and not self.asked and self.completed.duration_ms >= 1000:
            text.append(f" ({self.completed.duration_ms / 1000:.1f}s)", style="dim")
        grid = Table.grid(padding=(0, 1))  # a wrapped title stays right of the glyph
        grid.add_column(width=1, no_wrap=True)
        grid.add_column()
        grid.add_row(Text(glyph, style=style), text)
        return grid

    def _border(self) -> str:
        if self.status is ToolCallStatus.AWAITING_APPROVAL:
            return "yellow"
        if self.status is ToolCallStatus.EXECUTING:
            return "cyan"
        return "bright_black"

    def _body(self) -> RenderableType | None:
        if self.completed is not None:
            return self._final_body(self.completed)
        if self.status is ToolCallStatus.EXECUTING and self.live is not None:
            if isinstance(self.live, str):
                return text_tail(self.live, LIVE_TAIL_LINES, style="dim") if self.live else None
            return display_view(self.live)
        return None

    def _final_body(self, completed: CompletedToolCall) -> RenderableType | None:
        from rich.text import Text

        display = completed.display
        if completed.status == "success":
            return display_view(display, markdown=self.markdown)
        style = "red" if completed.status == "error" else "yellow"
        if isinstance(display, str) or display is None:
            # an error shows its message (what the model gets), as Qwen Code: a string display
            # such as "File not found." would not say which file
            error = completed.status == "error"
            message = completed.response_text if error else display or completed.response_text
            return text_tail(message, 6, style=style) if message.strip() else None
        shown = display_view(display)
        if shown is None:
            return Text(completed.response_text, style=style)
        from rich.console import Group

        return Group(shown, Text(_short_reason(completed), style=style))


def _one_line(description: str) -> str:
    lines = description.strip().splitlines() or [""]
    first = lines[0]
    if len(lines) > 1 or len(first) > TITLE_CHARS:
        return first[: TITLE_CHARS - 1].rstrip() + "…"
    return first


def _short_reason(completed: CompletedToolCall) -> str:
    if completed.status == "cancelled":
        return "Cancelled."
    text = completed.response_text.strip().splitlines()
    return text[0] if text else "Error."
