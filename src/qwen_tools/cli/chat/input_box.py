"""The chat's input box: a rounded border around prompt_toolkit's input, as Qwen Code draws it.

::

    ╭──────────────────────────────────────╮
    │ > Type your message or @path/to/file │
    ╰──────────────────────────────────────╯

The box is made of prompt_toolkit containers (an ``HSplit`` of border rows around a ``VSplit``
of ``│``, a padding column, the prompt's own input area, a padding column, ``│``), put in the
place :class:`~prompt_toolkit.PromptSession` keeps for its ``show_frame`` frame, whose corners
are square. The input area inside keeps everything of the session (soft wrapping, growing with
its lines, completion menu, the mode shown at the right); the box is only drawn while typing,
so a sent prompt stays in the scrollback as ``> text``. The border turns yellow while the input
starts with ``!`` (shell mode).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.layout import Container


def rounded_box(body: Container, border_style: Callable[[], str]) -> Container:
    """``body`` inside a rounded border, one blank column on each side."""
    from prompt_toolkit.layout import HSplit, VSplit, Window

    def fill(char: str = "", width: int | None = None, height: int | None = None) -> Window:
        return Window(char=char, width=width, height=height, style=border_style)

    def row(left: str, right: str) -> VSplit:
        return VSplit([fill(left, 1, 1), fill("─", height=1), fill(right, 1, 1)], height=1)

    middle = VSplit([fill("│", 1), Window(width=1), body, Window(width=1), fill("│", 1)], padding=0)
    return HSplit([row("╭", "╮"), middle, row("╰", "╯")])


def put_in_box(session: PromptSession[str], border_style: Callable[[], str]) -> bool:
    """Draw ``session``'s input inside :func:`rounded_box` while a prompt is being typed.

    ``False`` (the input left as it was) if the session's layout is not the expected one.
    """
    from prompt_toolkit.filters import is_done
    from prompt_toolkit.layout import ConditionalContainer, HSplit

    root = session.app.layout.container
    framed = root.children[0] if isinstance(root, HSplit) and root.children else None
    if not isinstance(framed, ConditionalContainer) or framed.alternative_content is None:
        return False
    framed.content = rounded_box(framed.alternative_content, border_style)
    # not session.show_frame: prompt_async(show_frame=False) by default overwrites it
    framed.filter = ~is_done
    return True
