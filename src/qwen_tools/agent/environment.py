"""The environment reminders that open a conversation, as Qwen Code 0.24.4 places them.

0.24.4 does not put the date, the operating system or the workspace in its system prompt: the
first user message starts with ``<system-reminder>`` text parts, the user's prompt being the
last part. :func:`startup_reminder` is the environment part (date, operating system, working
directories, then each directory's tree from :mod:`.folder_structure`), built once per
conversation; :func:`date_reminder` is the separate current-date part that the main
conversation (not a subagent) repeats whenever the date has changed since it was last sent.
The sentences are ours; the facts and their formats (date, ``process.platform``, directory
list, tree) are the reference's.
"""

from __future__ import annotations

import datetime as _dt
import re
import sys
from typing import TYPE_CHECKING

from qwen_tools.agent.folder_structure import folder_structures
from qwen_tools.jscompat.jstext import js_trim

if TYPE_CHECKING:
    from qwen_tools.config.config import Config

__all__ = [
    "date_reminder",
    "environment_context",
    "escape_reminder_tags",
    "format_date",
    "platform_name",
    "startup_reminder",
    "wrap_system_reminder",
]

_OPEN = "<system-reminder>"
_CLOSE = "</system-reminder>"
_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
_TAG = re.compile(r"<[^<>]*>")
_NAME = "system-reminder"


def format_date(day: _dt.date | None = None) -> str:
    """``Sunday, November 22, 2026``: ``toLocaleDateString("en-US")`` with the long weekday."""
    day = day or _dt.date.today()
    return f"{_DAYS[day.weekday()]}, {_MONTHS[day.month - 1]} {day.day}, {day.year}"


def platform_name() -> str:
    """The operating system as Node's ``process.platform`` names it (``linux``, ``darwin`` …)."""
    name = sys.platform
    return name if name in ("win32", "cygwin") else name.rstrip("0123456789")


def _ignorable(char: str) -> bool:
    """Characters left out when deciding whether a tag spells ``system-reminder``."""
    code = ord(char)
    return (
        code in (0xAD, 0x61C, 0x3164, 0xFEFF, 0xFFA0)
        or code <= 0x1F
        or 0x7F <= code <= 0x9F
        or 0x115F <= code <= 0x1160
        or 0x17B4 <= code <= 0x17B5
        or 0x180B <= code <= 0x180F
        or 0x200B <= code <= 0x200F
        or 0x202A <= code <= 0x202E
        or 0x2060 <= code <= 0x206F
        or 0xFE00 <= code <= 0xFE0F
        or 0xFFF0 <= code <= 0xFFF8
        or 0x1BCA0 <= code <= 0x1BCA3
        or 0x1D173 <= code <= 0x1D17A
        or 0xE0000 <= code <= 0xE0FFF
    )


def _reminder_tag_kind(tag: str) -> str | None:
    """``"closing"``, ``"other"`` (an opening tag) or ``None`` for an unrelated tag."""
    text = "".join(c for c in tag if not _ignorable(c)).lower()
    end = len(text)
    i = 1
    while i < end and text[i].isspace():
        i += 1
    closing = i < end and text[i] == "/"
    i += closing
    while i < end and text[i].isspace():
        i += 1
    if text[i : i + len(_NAME)] != _NAME:
        return None
    i += len(_NAME)
    if i < end - 1 and text[i].isspace():
        while i < end and text[i] != ">":
            i += 1
    while i < end and text[i].isspace():
        i += 1
    i += i < end and text[i] == "/"
    while i < end and text[i].isspace():
        i += 1
    if i != end - 1 or text[i] != ">":
        return None
    return "closing" if closing else "other"


def _escape_tag(match: re.Match[str]) -> str:
    tag = match.group(0)
    kind = _reminder_tag_kind(tag)
    if kind == "closing":
        return "<\\/system-reminder>"
    if kind == "other":
        return (
            tag.replace("&", "&amp;")
            .replace("<", "&lt;")
            .replace(">", "&gt;")
            .replace('"', "&quot;")
            .replace("'", "&apos;")
        )
    return tag


def escape_reminder_tags(text: str) -> str:
    """Neutralise ``<system-reminder>`` tags inside ``text`` (file names can spell them)."""
    return _TAG.sub(_escape_tag, text) if "<" in text else text


def wrap_system_reminder(body: str) -> str:
    """``body`` between ``<system-reminder>`` lines, with reminder tags inside it escaped."""
    return f"{_OPEN}\n{escape_reminder_tags(body)}\n{_CLOSE}"


def environment_context(config: Config, *, today: _dt.date | None = None) -> str:
    """Date, operating system, working directories and their trees (our wording)."""
    directories = [str(d) for d in config.workspace.directories]
    if len(directories) == 1:
        where = f"Working directory: {directories[0]}"
    else:
        where = "Working directories:\n" + "\n".join(f"  - {d}" for d in directories)
    trees = folder_structures(directories, file_service=config.file_service)
    text = (
        "Session details, collected when this conversation started.\n"
        f"Date: {format_date(today)}.\n"
        f"Operating system: {platform_name()}\n"
        f"{where}\n"
        "Files and folders in the workspace (first entries, breadth-first):\n\n"
        f"{trees}"
    )
    return js_trim(text)


def startup_reminder(config: Config, *, today: _dt.date | None = None) -> str:
    """The environment as the ``<system-reminder>`` part that opens a conversation."""
    return wrap_system_reminder(environment_context(config, today=today))


def date_reminder(day: _dt.date | None = None) -> str:
    """The current-date ``<system-reminder>`` part sent with a user message."""
    return wrap_system_reminder(
        f"Current date: {format_date(day)}. This is the authoritative date; it takes precedence "
        "over any date given earlier in the conversation."
    )
