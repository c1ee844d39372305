"""Markdown as the chat shows it: rich's renderer with every heading left-aligned and bold.

rich centres ``#`` headings (in a box before rich 14), which looks out of place next to the
message gutter; Qwen Code renders headings as bold lines. This module is only imported when
``chat`` runs, so it imports rich directly.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import Markdown, MarkdownContext, MarkdownElement, TextElement
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


class ChatMarkdown(Markdown):
    """:class:`rich.markdown.Markdown` with left-aligned headings."""

    elements: ClassVar[dict[str, type[MarkdownElement]]] = {
        **Markdown.elements,
        "heading_open": _Heading,
    }
