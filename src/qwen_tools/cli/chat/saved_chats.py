"""Chat sessions saved as they go, and resumed (``/resume``, ``chat --resume``).

Each chat is one JSON file ``<qwen runtime dir>/tmp/<project hash>/chats/<id>.json`` holding
the conversation's messages (exactly what the model is sent after the system prompt), the
model and when it was last written. It is rewritten (to a temporary file, then renamed, so a
crash leaves the previous complete version) after every model turn and at the end of every
prompt: a chat killed at any point can be resumed up to its last finished model turn.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from qwen_tools.config.config import Config


def chats_dir(config: Config) -> Path:
    """Where the project's chats are saved."""
    return config.get_project_temp_dir() / "chats"


def new_chat_id() -> str:
    """A sortable, unique id: the local start time and a random suffix."""
    return time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(2)


@dataclass(frozen=True)
class SavedChat:
    """One saved chat, as listed by ``/resume``."""

    chat_id: str
    path: Path
    saved_at: float
    messages: list[dict[str, Any]]

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


def save_chat(config: Config, chat_id: str, model: str, messages: list[dict[str, Any]]) -> None:
    """Write the chat (atomically); an empty conversation is not saved."""
    if not messages:
        return
    directory = chats_dir(config)
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / f"{chat_id}.json"
    temporary = directory / f".{chat_id}.json.tmp"
    record = {"id": chat_id, "model": model, "savedAt": time.time(), "messages": messages}
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
                chats.append(SavedChat(path.stem, path, float(record["savedAt"]), messages))
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
