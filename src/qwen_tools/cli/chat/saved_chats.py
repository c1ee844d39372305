"""Chat sessions saved as they go, and resumed (``/resume``, ``chat --resume``).

Each chat is one JSON file ``<qwen runtime dir>/tmp/<project hash>/chats/<id>.json`` holding
the conversation's messages (exactly what the model is sent after the system prompt), the
model and when it was last written, and what the screen showed that the messages do not hold
(:class:`Shown`: the prompts as typed, each tool call's status and display, such as a diff),
so that a resumed chat is redrawn as it was shown. It is rewritten (to a temporary file, then renamed, so a
crash leaves the previous complete version) after every model turn and at the end of every
prompt: a chat killed at any point can be resumed up to its last finished model turn.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from qwen_tools.contract.display import (
    FileDiff,
    McpToolProgressDisplay,
    PlanSummaryDisplay,
    TaskExecutionDisplay,
    TodoItem,
    TodoListDisplay,
)

if TYPE_CHECKING:
    from qwen_tools.agent.events import AgentEvent
    from qwen_tools.config.config import Config
    from qwen_tools.contract.display import ToolResultDisplay

MAX_SHOWN_CHARS = 100_000
"""The longest display kept (a longer text keeps its end)."""


def chats_dir(config: Config) -> Path:
    """Where the project's chats are saved."""
    return config.get_project_temp_dir() / "chats"


def new_chat_id() -> str:
    """A sortable, unique id: the local start time and a random suffix."""
    return time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(2)


@dataclass
class Shown:
    """What the chat showed beyond the messages: the typed prompts, and per tool call id its
    ``status``, its display (JSON) and whether the user was asked (``asked``)."""

    prompts: list[str] = field(default_factory=list)
    calls: dict[str, dict[str, Any]] = field(default_factory=dict)
    _asked: set[str] = field(default_factory=set)

    def note(self, event: AgentEvent) -> None:
        """Keep what a finished call showed."""
        from qwen_tools.agent.events import ToolCallAwaitingApproval, ToolCallFinished

        if isinstance(event, ToolCallAwaitingApproval):
            self._asked.add(event.request.call_id)
        elif isinstance(event, ToolCallFinished):
            done = event.completed
            call_id = done.request.call_id
            self.calls[call_id] = {
                "status": done.status,
                "display": display_json(done.display),
                "ms": round(done.duration_ms),
                "asked": call_id in self._asked,
            }

    def record(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        """The JSON to save with ``messages`` (calls no longer in them are dropped)."""
        ids = {
            str(message.get("tool_call_id"))
            for message in messages
            if message.get("role") == "tool"
        }
        calls = {key: value for key, value in self.calls.items() if key in ids}
        return {"prompts": self.prompts, "calls": calls}


def display_json(display: ToolResultDisplay | None) -> Any:
    """The part of a display the screen uses, as JSON (a diff without the file's contents)."""
    if display is None or isinstance(display, McpToolProgressDisplay):
        return None
    if isinstance(display, str):
        return display[-MAX_SHOWN_CHARS:]
    if isinstance(display, FileDiff):
        diff = display.file_diff[:MAX_SHOWN_CHARS]
        return {"type": "file_diff", "fileDiff": diff, "fileName": display.file_name}
    return display.to_dict()


def display_from_json(data: Any) -> ToolResultDisplay | None:
    """The display :func:`display_json` saved (``None`` for anything not understood)."""
    if isinstance(data, str):
        return data
    if not isinstance(data, dict):
        return None
    kind = data.get("type")
    try:
        if kind == "file_diff":
            return FileDiff(str(data["fileDiff"]), str(data["fileName"]), None, "")
        if kind == "todo_list":
            todos = (TodoItem(t["id"], t["content"], t["status"]) for t in data["todos"])
            return TodoListDisplay(todos=tuple(todos))
        if kind == "plan_summary":
            return PlanSummaryDisplay(data["message"], data["plan"], bool(data.get("rejected")))
        if kind == "task_execution":
            return TaskExecutionDisplay(
                data["subagentName"],
                data["taskDescription"],
                data["taskPrompt"],
                data["status"],
                data.get("result"),
                data.get("terminateReason"),
                tuple(data.get("toolCalls") or ()),
            )
    except (KeyError, TypeError):
        return None
    return None


@dataclass(frozen=True)
class SavedChat:
    """One saved chat, as listed by ``/resume``."""

    chat_id: str
    path: Path
    saved_at: float
    messages: list[dict[str, Any]]
    shown: Shown = field(default_factory=Shown)

    @property
    def title(self) -> str:
        """The first prompt of the chat, on one line."""
        for message in self.messages:
            if message.get("role") != "user":
                continue
            content = message.get("content")
            if isinstance(content, list) and content:
                text = str(content[-1].get("text", ""))
            else:
                text = str(content or "")
            line = " ".join(text.split())
            return line if len(line) <= 60 else line[:59] + "…"
        return "(empty)"


def save_chat(
    config: Config,
    chat_id: str,
    model: str,
    messages: list[dict[str, Any]],
    shown: Shown | None = None,
) -> None:
    """Write the chat (atomically); an empty conversation is not saved."""
    if not messages:
        return
    directory = chats_dir(config)
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / f"{chat_id}.json"
    temporary = directory / f".{chat_id}.json.tmp"
    record = {"id": chat_id, "model": model, "savedAt": time.time(), "messages": messages}
    if shown is not None:
        record["shown"] = shown.record(messages)
    temporary.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
    os.replace(temporary, target)


def list_chats(config: Config) -> list[SavedChat]:
    """The saved chats, the most recently written first (unreadable files are skipped)."""
    chats: list[SavedChat] = []
    directory = chats_dir(config)
    if not directory.is_dir():
        return chats
    for path in directory.glob("*.json"):
        with contextlib.suppress(OSError, ValueError, TypeError):
            record = json.loads(path.read_text(encoding="utf-8"))
            messages = record["messages"]
            if isinstance(messages, list) and messages:
                saved = SavedChat(path.stem, path, float(record["savedAt"]), messages)
                chats.append(saved)
                with contextlib.suppress(AttributeError, TypeError, ValueError):
                    shown = record.get("shown") or {}
                    saved.shown.prompts.extend(str(text) for text in shown.get("prompts", []))
                    saved.shown.calls.update(shown.get("calls") or {})
    chats.sort(key=lambda chat: (chat.saved_at, chat.chat_id), reverse=True)
    return chats


def find_chat(config: Config, wanted: str) -> SavedChat | None:
    """``latest`` (or empty), a number of the ``/resume`` list (1 = latest), or an id."""
    chats = list_chats(config)
    if not chats:
        return None
    if wanted in ("", "latest"):
        return chats[0]
    if wanted.isdigit():
        index = int(wanted) - 1
        return chats[index] if 0 <= index < len(chats) else None
    return next((chat for chat in chats if chat.chat_id == wanted), None)
