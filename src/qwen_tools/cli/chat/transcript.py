"""A resumed chat redrawn as it was shown: prompts, answers, tool boxes with their results.

The saved messages are walked in order: a user message shows the prompt as typed (``> ``) and
the ``!command`` runs it reported; an assistant message its text (``✦`` and Markdown, as
:mod:`.stream_view` prints it) and one box per tool call, finished as the live view left it
(:class:`~.tool_box.CallView`: status glyph, description, diff, todo list or text, with the
status and display kept in :class:`~.saved_chats.Shown`). System reminders, attached file
contents and other text the model alone was sent are not shown; a summary left by compression
is one dim line. A long chat shows its last
entries (about two screens) after a line saying how many earlier ones are not shown.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from functools import partial
from typing import TYPE_CHECKING, Any

from qwen_tools.agent.compression_texts import ACKNOWLEDGEMENT, RESUME_TRAILER
from qwen_tools.cli.chat.saved_chats import display_from_json

if TYPE_CHECKING:
    from rich.console import Console, RenderableType

    from qwen_tools.cli.chat.saved_chats import SavedChat, Shown
    from qwen_tools.registry.registry import ToolRegistry

MAX_ENTRIES = 50
"""At most this many entries are redrawn."""
_SHELL = re.compile(
    r"\AI ran the following shell command:\n```sh\n(?P<command>.*?)\n```\n\n"
    r"This produced the following result:\n```\n(?P<output>.*)\n```\Z",
    re.DOTALL,
)
_MODEL_ONLY = ("<system-reminder>", "\n--- Content from referenced files ---", "<qwen:")
COMPRESSED = "✦ Earlier messages were compressed into a summary for the model."


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [str(part.get("text", "")) for part in content if isinstance(part, dict)]


def _user_entries(message: dict[str, Any], shown: Shown) -> Iterator[RenderableType]:
    from rich.console import Group
    from rich.text import Text

    from qwen_tools.cli.chat.displays import text_tail

    typed = set(shown.prompts)
    for text in _texts(message.get("content")):
        shell = _SHELL.match(text)
        if text.endswith(RESUME_TRAILER):
            yield Text(COMPRESSED, style="dim")
        elif shell:
            line = Text.assemble(("!", "magenta"), f" {shell['command']}")
            yield Group(line, text_tail(shell["output"]))
        elif text in typed or (not typed and text.strip() and not text.startswith(_MODEL_ONLY)):
            yield Text.assemble(("> ", "bold"), (text, "bold"))
        if text.startswith(_MODEL_ONLY[1]):
            break  # the rest are the attached files' contents


def _call_box(
    registry: ToolRegistry, call: dict[str, Any], result: str | None, shown: Shown
) -> RenderableType:
    from qwen_tools.cli.chat.tool_box import CallView
    from qwen_tools.contract.parts import FunctionResponse
    from qwen_tools.execution.call_types import CompletedToolCall, ToolCallRequest
    from qwen_tools.execution.scheduler import ToolCallStatus

    function = call.get("function") or {}
    name, call_id = str(function.get("name", "?")), str(call.get("id", ""))
    try:
        args = json.loads(function.get("arguments") or "{}")
    except ValueError:
        args = function.get("arguments")
    request = ToolCallRequest(name, args, call_id)
    view = CallView.create(registry, request)
    record = shown.calls.get(call_id)
    record = record if isinstance(record, dict) else {}
    status = record.get("status", "success" if result is not None else "cancelled")
    if status not in ("success", "error", "cancelled"):
        status = "success"
    display = display_from_json(record["display"]) if "display" in record else result
    response = FunctionResponse(name, {"output": result or ""}, call_id)
    completed = CompletedToolCall(
        request, status, response, display=display, duration_ms=float(record.get("ms") or 0)
    )
    view.update(ToolCallStatus(status), completed=completed)
    view.asked = bool(record.get("asked"))
    return view.render()


def _ready(renderable: RenderableType) -> RenderableType:
    return renderable


def entries(chat: SavedChat, registry: ToolRegistry) -> list[Callable[[], RenderableType]]:
    """What the chat showed, one entry per prompt, answer or tool call; each one builds its
    renderable when called (a long chat only renders the entries it shows)."""
    from rich.console import Group
    from rich.text import Text

    from qwen_tools.cli.chat.stream_view import message_renderable

    results = {
        str(message.get("tool_call_id")): "\n".join(_texts(message.get("content")))
        for message in chat.messages
        if message.get("role") == "tool"
    }
    shown: list[Callable[[], RenderableType]] = []
    for message in chat.messages:
        role = message.get("role")
        if role == "user":
            for entry in _user_entries(message, chat.shown):  # a blank line between turns
                shown.append(partial(_ready, Group(Text(""), entry) if shown else entry))
        elif role == "assistant":
            text = "\n".join(_texts(message.get("content"))).strip("\n")
            if text.strip() and text != ACKNOWLEDGEMENT:  # (the answer to a summary)
                shown.append(partial(message_renderable, text))
            for call in message.get("tool_calls") or []:
                if isinstance(call, dict):
                    result = results.get(str(call.get("id")))
                    shown.append(partial(_call_box, registry, call, result, chat.shown))
    return shown


def redraw(console: Console, chat: SavedChat, registry: ToolRegistry) -> None:
    """Print the chat's last entries (about two screens), after a note of the earlier ones."""
    from rich.text import Text

    shown = entries(chat, registry)
    budget = max(2 * console.height, 40)
    kept: list[RenderableType] = []
    for entry in reversed(shown[-MAX_ENTRIES:]):
        renderable = entry()
        height = len(console.render_lines(renderable, console.options, pad=False))
        if kept and height > budget:
            break
        budget -= height
        kept.append(renderable)
    hidden = len(shown) - len(kept)
    if hidden:
        word = "message" if hidden == 1 else "messages"
        console.print(Text(f"… {hidden} earlier {word} not shown …", style="dim"))
    for renderable in reversed(kept):
        console.print(renderable)
