"""What the Python engine searches in a file's bytes, and the matching lines it reports.

* **Contents.** A UTF-16 byte-order mark selects UTF-16 (decoded), a UTF-8 one is dropped.
  Binary files found by the walk are cut where ripgrep stops reading: at the first read of its
  64 KiB line buffer that contains a NUL byte (the first read is 3 bytes long, the size of
  its BOM sniff), so only the lines completed by earlier reads are searched.
* **Lines.** The pattern is translated by :mod:`.regex_translate`; a line whose bytes are not
  UTF-8 keeps its number but loses its text, and a file name that is not UTF-8 is shown with
  U+FFFD replacements, as the reference decodes ripgrep's output.
"""

from __future__ import annotations

import re

from qwen_tools.tools.grep.regex_translate import LineRegex
from qwen_tools.tools.grep.ripgrep import GrepMatch

_CAPACITY = 1 << 16
_SURROGATE = re.compile("[\ud800-\udfff]")


def quit_offset(data: bytes, first_read: int) -> int:
    """How many leading bytes ripgrep searches before its binary check stops it (NUL present).

    Models a fresh line buffer: reads fill a 64 KiB buffer (growing threefold when a line does
    not fit), the very first read is ``first_read`` bytes, and a read containing a NUL ends the
    search before anything in it is searched.
    """
    nul = data.find(b"\0")
    capacity, end, searched = _CAPACITY, 0, 0
    while True:
        while True:
            used = end - searched
            if used >= capacity:
                capacity *= 3
            size = min(capacity - used, first_read, len(data) - end)
            first_read = len(data)
            start, end = end, end + size
            if size == 0 or nul < end:
                return searched
            newline = data.rfind(b"\n", start, end)
            if newline >= 0:
                searched = newline + 1
                break


def decode(data: bytes, explicit: bool) -> str:
    """The text ripgrep searches in a file's bytes (``explicit``: a file given as a root)."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        codec = "utf-16-le" if data[:2] == b"\xff\xfe" else "utf-16-be"
        data = data[2:].decode(codec, "replace").encode("utf-8", "surrogatepass")
        first_read = len(data)
    elif data[:3] == b"\xef\xbb\xbf":
        data, first_read = data[3:], len(data)
    else:
        first_read = 3
    if not explicit and b"\0" in data:
        data = data[: quit_offset(data, first_read)]
    return data.decode("utf-8", "surrogateescape")


def shown_path(path: str) -> str:
    """``path`` as the reference shows it: a name that is not UTF-8 gets U+FFFD replacements."""
    if not path.isascii() and _SURROGATE.search(path):
        return path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return path


def scan(text: str, line_regex: LineRegex, path: str, out: list[GrepMatch]) -> int:
    """Append the matching lines of ``text``; returns their approximate JSON size."""
    regex = line_regex.pick(text)
    size, size_text, pos, line, counted = 0, len(text), 0, 1, 0
    phantom_end = size_text == 0 or text[-1] == "\n"
    bad = not text.isascii() and _SURROGATE.search(text) is not None
    while (m := regex.search(text, pos)) is not None:
        start = m.start()
        if start >= size_text and phantom_end:
            break
        line += text.count("\n", counted, start)
        counted = start
        begin = text.rfind("\n", 0, start) + 1
        stop = text.find("\n", start)
        content = text[begin : stop if stop >= 0 else size_text]
        if stop >= 0 and content.endswith("\r"):
            content = content[:-1]
        if bad and _SURROGATE.search(content):
            content = ""
        out.append(GrepMatch(path, line, content))
        size += 2 * len(path) + 2 * len(content) + 160
        if stop < 0:
            break
        pos = stop + 1
    return size + (3 * len(path) + 400 if size else 0)
