"""Markdown as the chat shows it: rich's renderer, with Qwen Code's headings, lists and links.

rich centres ``#`` headings (in a box before rich 14), which looks out of place next to the
message gutter; Qwen Code renders headings as bold lines. Numbered items read ``1.`` (rich
writes ``1``), and a link shows its address after its text, ``text (url)``, as Qwen Code
does: rich's default OSC 8 hyperlink hides the address on terminals (and in tmux) that don't
support it. This module is only imported when ``chat`` runs, so it imports rich directly.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import ListItem, Markdown, MarkdownContext, MarkdownElement, TextElement
from rich.segment import Segment
from rich.text import Text


class _Heading(TextElement):
    """A heading: its text, bold (``#`` also underlined), left-aligned."""

    @classmethod
    def create(cls, markdown: Markdown, token: Any) -> _Heading:
        return cls(str(token.tag))

    def __init__(self, tag: str) -> None:
        self.tag = tag
        self.style_name = "bold underline" if tag == "h1" else "bold"
        super().__init__()

    def on_enter(self, context: MarkdownContext) -> None:
        self.text = Text()
        context.enter_style(self.style_name)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        text = self.text.copy()
        text.justify = "left"
        yield text


class _ListItem(ListItem):
    """A list item; a numbered one reads ``1.``."""

    def render_number(
        self, console: Console, options: ConsoleOptions, number: int, last_number: int
    ) -> RenderResult:
        width = len(str(last_number)) + 3
        lines = console.render_lines(
            self.elements, options.update(width=options.max_width - width), style=self.style
        )
        style = console.get_style("markdown.item.number", default="none")
        numeral = Segment(f"{number}.".rjust(width - 1) + " ", style)
        padding = Segment(" " * width, style)
        for index, line in enumerate(lines):
            yield numeral if index == 0 else padding
            yield from line
            yield Segment("\n")


class ChatMarkdown(Markdown):
    """:class:`rich.markdown.Markdown` with left-aligned headings, ``1.`` and visible links."""

    elements: ClassVar[dict[str, type[MarkdownElement]]] = {
        **Markdown.elements,
        "heading_open": _Heading,
        "list_item_open": _ListItem,
    }

    def __init__(self, markup: str, **options: Any) -> None:
        options.setdefault("hyperlinks", False)  # ``text (url)``: the address stays readable
        super().__init__(markup, **options)
