"""The window of lines read_file returns from a text file, and how it is cut to size.

Selection (Qwen Code 0.24.4, ``utils/read-text-range.ts``):

* Files under 10 MiB are decoded whole (BOM, UTF-8, legacy guess; see
  :mod:`qwen_tools.fs.text_file`), split on ``\\n``, and lines ``offset`` … ``offset + limit``
  are joined back; the line count is exact.
* Files of 10 MiB or more are streamed in 512 KiB chunks and must be UTF-8: the first 8 KiB
  decide the encoding (a UTF-16/32 BOM or a legacy guess is refused with the reference's
  message), and an invalid sequence met later is refused too. Reading stops once the window is
  complete, so the line count is then only a lower bound ("at least N").
* Either way the selection is capped at ``max_bytes`` UTF-8 bytes without splitting a
  character.

Formatting (:func:`format_window`): every line loses its trailing JavaScript whitespace, and
the lines are joined under a character budget counted in UTF-16 units; the line that overflows
it keeps ``max(room, 10)`` units and ends with ``... [truncated]``. A byte-capped selection
also ends with the marker, on its own line.
"""

from __future__ import annotations

import codecs
import os
from dataclasses import dataclass

from qwen_tools.fs.text_file import decode_text, detect_bom
from qwen_tools.jscompat.jstext import js_trim_end, utf16_len, utf16_prefix

__all__ = [
    "MARKER",
    "STREAM_THRESHOLD",
    "LargeTextError",
    "TextWindow",
    "format_window",
    "read_window",
    "truncate_utf8",
]

STREAM_THRESHOLD = 10 * 1024 * 1024
"""Files of this size or more are streamed instead of decoded whole."""
MARKER = "... [truncated]"
_CHUNK = 512 * 1024
_SAMPLE = 8192
_INVALID = (
    "Large text file contains invalid UTF-8 byte sequence beyond the initial encoding sample. "
    "Convert or extract a smaller UTF-8 slice and read that instead."
)
_BOM_STARTS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
_BOM_NAMES = {
    "utf-8": "utf-8",
    "utf-16-le": "utf-16le",
    "utf-16-be": "utf-16be",
    "utf-32-le": "utf-32le",
    "utf-32-be": "utf-32be",
}
# Legacy encodings a sample may be guessed as, with the label chardet gives them.
_LEGACY_LABELS = {
    "cp1250": "windows-1250",
    "cp1251": "windows-1251",
    "cp1252": "windows-1252",
    "cp1253": "windows-1253",
    "cp1254": "windows-1254",
    "cp1255": "windows-1255",
    "cp1256": "windows-1256",
    "latin_1": "iso-8859-1",
    "iso8859_2": "iso-8859-2",
    "iso8859_5": "iso-8859-5",
    "iso8859_7": "iso-8859-7",
    "iso8859_9": "iso-8859-9",
    "koi8_r": "koi8-r",
    "shift_jis": "shift_jis",
    "cp932": "shift_jis",
    "euc_jp": "euc-jp",
    "euc_kr": "euc-kr",
    "cp949": "euc-kr",
    "gb2312": "gb18030",
    "gb18030": "gb18030",
    "big5": "big5",
}


class LargeTextError(Exception):
    """A file too large to decode whole is not UTF-8 (the message is model-facing)."""


@dataclass(frozen=True, slots=True)
class TextWindow:
    """Selected lines, joined with ``\\n`` and byte-capped, and what is known of the file."""

    content: str
    total_lines: int
    exact: bool
    """``False`` when streaming stopped early: ``total_lines`` is then a lower bound."""
    truncated_by_bytes: bool


def truncate_utf8(text: str, max_bytes: int) -> tuple[str, bool]:
    """Keep at most ``max_bytes`` UTF-8 bytes, never splitting a character."""
    if text.isascii():
        return (text, False) if len(text) <= max_bytes else (text[: max(max_bytes, 0)], True)
    encoded = text.encode("utf-8", "surrogatepass")
    if len(encoded) <= max_bytes:
        return text, False
    end = max(max_bytes, 0)
    while end > 0 and (encoded[end] & 0xC0) == 0x80:
        end -= 1
    return encoded[:end].decode("utf-8", "replace"), True


def _utf8_len(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def _read_bytes(fd: int, size: int) -> bytes:
    """The whole file from its start, in one ``pread`` when its size is still ``size``."""
    parts = [os.pread(fd, size + 1, 0)]
    if len(parts[0]) != size:  # changed since it was stat'ed, or a short read
        offset = len(parts[0])
        while chunk := os.pread(fd, _CHUNK, offset):
            parts.append(chunk)
            offset += len(chunk)
    return b"".join(parts) if len(parts) > 1 else parts[0]


def _decode(data: bytes) -> str:
    """:func:`decode_text`, with a shortcut for the common case of BOM-less UTF-8."""
    if data[:2] not in _BOM_STARTS and not data.startswith(codecs.BOM_UTF8):
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            pass
    return decode_text(data)


def read_window(
    fd: int, size: int, offset: int, limit: int | None, max_bytes: int | None
) -> TextWindow:
    """Lines ``offset`` … ``offset + limit`` of the open file ``fd`` (``limit=None``: to the end).

    ``size`` is the file's size when it was stat'ed (it picks the strategy). The file is read
    from its start whatever the descriptor's position, and the descriptor is left open.

    Raises ``OSError`` from the file system and :class:`LargeTextError` for a large file that
    is not UTF-8.
    """
    if size >= STREAM_THRESHOLD:
        return _stream(fd, offset, limit, max_bytes)
    text = _decode(_read_bytes(fd, size))
    total = text.count("\n") + 1
    start = min(offset, total)
    end = total if limit is None else min(start + limit, total)
    selected = text if start == 0 and end == total else "\n".join(text.split("\n")[start:end])
    cut = False
    if max_bytes is not None:
        selected, cut = truncate_utf8(selected, max_bytes)
    return TextWindow(selected, total, True, cut)


def _sample_encoding(sample: bytes) -> str:
    """The encoding the first bytes announce, labelled as the reference labels it."""
    bom = detect_bom(sample)
    if bom is not None:
        return _BOM_NAMES[bom[0]]
    try:
        codecs.getincrementaldecoder("utf-8")().decode(sample, final=False)
    except UnicodeDecodeError:
        pass
    else:
        return "utf-8"  # valid, or cut in the middle of a character
    from charset_normalizer import from_bytes

    best = from_bytes(sample, cp_isolation=sorted(_LEGACY_LABELS)).best()
    if best is None:
        return "utf-8"  # nothing better: the stream's strict decoder reports the problem
    return _LEGACY_LABELS.get(str(best.encoding), str(best.encoding).replace("_", "-"))


class _Collector:
    """The selected text, stopped once ``max_bytes`` UTF-8 bytes are reached."""

    def __init__(self, max_bytes: int | None) -> None:
        self.parts: list[str] = []
        self.used = 0
        self.max_bytes = max_bytes
        self.cut = False

    def add(self, fragment: str) -> None:
        if not fragment or self.cut:
            return
        if self.max_bytes is None:
            self.parts.append(fragment)
            return
        available = self.max_bytes - self.used
        if available <= 0:
            self.cut = True
            return
        kept, self.cut = truncate_utf8(fragment, available)
        self.parts.append(kept)
        self.used += _utf8_len(kept)


def _stream(fd: int, offset: int, limit: int | None, max_bytes: int | None) -> TextWindow:
    end_line = None if limit is None else offset + limit
    out = _Collector(max_bytes)
    line = 0
    stopped = False
    with open(fd, "rb", closefd=False) as fh:
        fh.seek(0)
        encoding = _sample_encoding(fh.read(_SAMPLE))
        if encoding != "utf-8":
            raise LargeTextError(
                "Large non-UTF-8 text files are not supported for streaming reads (detected "
                f"{encoding}). Convert or extract a smaller UTF-8 slice and read that instead."
            )
        fh.seek(0)
        decoder = codecs.getincrementaldecoder("utf-8")("strict")
        first = True
        while not stopped and (chunk := fh.read(_CHUNK)):
            try:
                text = decoder.decode(chunk)
            except UnicodeDecodeError:
                raise LargeTextError(_INVALID) from None
            if first and text:
                first = False
                text = text.removeprefix("\ufeff")
            pos = 0
            if line < offset:  # skip whole lines before the window, chunk by chunk
                needed = offset - line
                newlines = text.count("\n")
                if newlines < needed:
                    line += newlines
                    continue
                for _ in range(needed):
                    pos = text.index("\n", pos) + 1
                line = offset
            while (newline := text.find("\n", pos)) != -1:
                out.add(text[pos:newline])
                if end_line is None or line + 1 < end_line:
                    out.add("\n")
                line += 1
                pos = newline + 1
                if (end_line is not None and line >= end_line) or out.cut:
                    stopped = True
                    break
            if not stopped:
                out.add(text[pos:])
                stopped = out.cut
        if not stopped:
            try:
                decoder.decode(b"", final=True)
            except UnicodeDecodeError:
                raise LargeTextError(_INVALID) from None
    return TextWindow("".join(out.parts), line + 1, not stopped, out.cut)


def format_window(
    content: str, char_limit: int | None, truncated_by_bytes: bool
) -> tuple[str, int, bool]:
    """Trim and budget the selected text: ``(text, lines included, cut?)``."""
    lines = [js_trim_end(line) for line in content.split("\n")]
    body = "\n".join(lines)
    included, cut = len(lines), False
    if char_limit is not None and utf16_len(body) > char_limit:
        body, included, cut = _budget(lines, char_limit)
    if truncated_by_bytes:
        if not body.endswith(MARKER):
            keep = max(char_limit - len(MARKER) - 1, 0) if char_limit else utf16_len(body)
            prefix = utf16_prefix(body, keep)
            body = prefix + ("" if not prefix or prefix.endswith("\n") else "\n") + MARKER
        cut = True
    return body, included, cut


def _budget(lines: list[str], char_limit: int) -> tuple[str, int, bool]:
    kept: list[str] = []
    used = 0
    for line in lines:
        separator = 1 if kept else 0
        width = utf16_len(line)
        if used + separator + width <= char_limit:
            kept.append(line)
            used += separator + width
            continue
        room = max(char_limit - used - separator, 10)
        kept.append(utf16_prefix(line, room) + MARKER)
        return "\n".join(kept), len(kept), True
    return "\n".join(kept), len(kept), False
