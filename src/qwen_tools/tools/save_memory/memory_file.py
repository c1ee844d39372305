"""The memory file of ``save_memory``: where it lives and how a fact is added to it.

The context file name comes from the ``context.fileName`` setting (a name, or a list whose
first non-blank name counts), ``QWEN.md`` by default. The global file lives in the Qwen home directory,
the project file in the project root.

:func:`add_memory_entry` follows the last Qwen Code version that had the tool: the fact loses
surrounding whitespace and any leading ``-`` bullets, becomes ``- <fact>``, and goes at the end
of the ``## Qwen Added Memories`` section (which ends at the next ``\\n## ``), normalising the
blank lines around the section and at the end of the file; a file without the heading gets
it appended after a blank-line separator. The file is read and written as UTF-8 with
``surrogateescape``, so bytes that are not valid UTF-8 survive untouched.

The project file lies in the workspace, so it is read and written only there
(:func:`memory_file_roots`): a ``QWEN.md`` that is (or is swapped for) a symlink to a file
outside is neither shown nor appended to, checked on the descriptors opened. A symlink to a file
inside the workspace is followed and stays a link. The global file is the user's own and is
not confined.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Literal

from qwen_tools.jscompat.jstext import js_trim, js_trim_end

if TYPE_CHECKING:
    from qwen_tools.config.config import Config

__all__ = [
    "DEFAULT_CONTEXT_FILENAME",
    "MEMORY_SECTION_HEADER",
    "InvalidContextFileName",
    "MemoryScope",
    "add_memory_entry",
    "context_file_name",
    "memory_file_path",
    "memory_file_roots",
    "read_memory_file",
    "write_memory_file",
]

MemoryScope = Literal["global", "project"]

DEFAULT_CONTEXT_FILENAME = "QWEN.md"
MEMORY_SECTION_HEADER = "## Qwen Added Memories"

_JS_SPACE = (  # what JavaScript's ``\s`` and ``trim`` count as whitespace
    "\t\n\v\f\r \u00a0\u1680"
    + "".join(map(chr, range(0x2000, 0x200B)))
    + "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_LEADING_BULLETS = re.compile(f"^(?:-+[{re.escape(_JS_SPACE)}]*)+")


class InvalidContextFileName(ValueError):
    """``context.fileName`` names a path rather than a file."""


def _checked_name(name: str) -> str:
    trimmed = js_trim(name)
    if "/" in trimmed or "\\" in trimmed or trimmed in (".", ".."):
        raise InvalidContextFileName(
            f"Invalid GEMINI.md filename: {trimmed}. Filenames cannot contain path separators "
            "or be '.' or '..'."
        )
    return trimmed


def context_file_name(config: Config) -> str:
    """The context file name the settings choose; raises :class:`InvalidContextFileName`."""
    loaded = config.loaded_settings
    value = loaded.get("context.fileName") if loaded is not None else None
    if isinstance(value, list):
        names = [_checked_name(item) for item in value if isinstance(item, str)]
        return next((name for name in names if name), DEFAULT_CONTEXT_FILENAME)
    if isinstance(value, str) and js_trim(value):
        return _checked_name(value)
    return DEFAULT_CONTEXT_FILENAME


def memory_file_path(config: Config, scope: MemoryScope) -> str:
    """``<qwen home>/<name>`` for the global scope, ``<project root>/<name>`` for the project."""
    base = config.target_dir if scope == "project" else config.home_dir
    return os.path.join(os.fspath(base), context_file_name(config))


def memory_file_roots(config: Config, scope: MemoryScope) -> tuple[str, ...] | None:
    """Where the memory file of ``scope`` may be read and written: the workspace for the
    project file, anywhere (``None``) for the global one."""
    return config.workspace.roots() if scope == "project" else None


def read_memory_file(path: str, roots: tuple[str, ...] | None = None) -> str:
    """The file's text (``""`` when it does not exist); other ``OSError``\\ s propagate.

    With ``roots`` the file is opened and checked to lie inside them
    (:class:`~qwen_tools.fs.confined.OutsideRootsError` otherwise).
    """
    from qwen_tools.fs.confined import read_confined_bytes

    try:
        if roots is not None:
            data = read_confined_bytes(path, roots)
        else:
            with open(path, "rb") as handle:
                data = handle.read()
    except FileNotFoundError:
        return ""
    return data.decode("utf-8", "surrogateescape")


def write_memory_file(path: str, text: str, roots: tuple[str, ...] | None = None) -> None:
    """Replace the file atomically (its directory must exist), only inside ``roots`` if given."""
    from qwen_tools.fs.atomic import write_bytes_atomic

    write_bytes_atomic(path, text.encode("utf-8", "surrogateescape"), roots=roots)


def _separator(content: str) -> str:
    """What goes between existing content and an appended section."""
    if not content or content.endswith(("\n\n", "\r\n\r\n")):
        return ""
    return "\n" if content.endswith("\n") else "\n\n"


def add_memory_entry(content: str, fact: str) -> str:
    """``content`` with ``fact`` added as a bullet of the memories section."""
    cleaned = js_trim(_LEADING_BULLETS.sub("", js_trim(fact), count=1))
    item = f"- {cleaned}"
    header_at = content.find(MEMORY_SECTION_HEADER)
    if header_at == -1:
        return f"{content}{_separator(content)}{MEMORY_SECTION_HEADER}\n{item}\n"
    body_start = header_at + len(MEMORY_SECTION_HEADER)
    body_end = content.find("\n## ", body_start)
    if body_end == -1:
        body_end = len(content)
    before = js_trim_end(content[:body_start])
    body = js_trim_end(content[body_start:body_end]) + f"\n{item}"
    after = content[body_end:]
    return js_trim_end(f"{before}\n{body.lstrip(_JS_SPACE)}\n{after}") + "\n"
