"""The model's message on screen: ``✦`` then Markdown, cropped to its tail while it streams."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderableType, RenderResult

MESSAGE_GLYPH = "✦"
THOUGHT_GLYPH = "∴"


def message_renderable(text: str, *, markdown: bool = True) -> RenderableType:
    """A finished model message: a purple ``✦`` gutter and the text rendered as Markdown."""
    from rich.table import Table
    from rich.text import Text

    from qwen_tools.cli.chat.markdown import ChatMarkdown as Markdown

    grid = Table.grid(padding=(0, 1))
    grid.add_column(width=1, no_wrap=True)
    grid.add_column()
    body: RenderableType = Markdown(text) if markdown else Text(text)
    grid.add_row(Text(MESSAGE_GLYPH, style="bold magenta"), body)
    return grid


def thought_renderable(text: str) -> RenderableType:
    """Reasoning text: dimmed and italic under a ``∴`` gutter."""
    from rich.table import Table
    from rich.text import Text

    grid = Table.grid(padding=(0, 1))
    grid.add_column(width=1, no_wrap=True)
    grid.add_column()
    grid.add_row(Text(THOUGHT_GLYPH, style="dim"), Text(text.strip(), style="dim italic"))
    return grid


class TailView:
    """Renders ``renderable`` and keeps only its last ``max_lines`` lines.

    Used for the message being streamed: re-rendering the Markdown of the whole text on each
    frame keeps its look identical to the final print, and the crop keeps the live region
    shorter than the terminal (so the frame can be redrawn in place without scrolling).
    """

    def __init__(self, renderable: RenderableType, max_lines: int) -> None:
        self.renderable = renderable
        self.max_lines = max(1, max_lines)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from rich.segment import Segment
        from rich.text import Text

        lines = console.render_lines(self.renderable, options, pad=False)
        while lines and not "".join(s.text for s in lines[-1]).strip():
            lines.pop()
        if len(lines) > self.max_lines:
            keep = self.max_lines - 1
            yield Text(f"  … {len(lines) - keep} lines above …", style="dim")
            lines = lines[len(lines) - keep :]
        for line in lines:
            yield from line
            yield Segment.line()
