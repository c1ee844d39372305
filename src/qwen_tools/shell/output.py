"""What a shell command printed: capture, ANSI stripping, binary sniffing and the saved preview.

Qwen Code 0.24.4's child-process path (``services/shellExecutionService.ts``) is followed:

* stdout and stderr are decoded separately (UTF-8, bad bytes replaced) and joined at the end as
  ``stdout + ("\\n" unless stdout ends with one) + stderr``; ANSI escapes are stripped and the
  result is ``trim()``-ed;
* the first 4 KiB (both streams, in arrival order) are sniffed: a NUL byte in the first 512 bytes
  means binary output, after which nothing more is kept (the model then sees ``(empty)``; the
  live display shows :data:`BINARY_NOTICE`);
* at most ``max_bytes`` (64 MiB) are captured; the rest is counted and dropped, and a notice
  with the sizes is appended to the output.

:func:`truncate_and_save` is the reference's ``truncateToolOutput`` with ``keep: "both"`` and no
line limit, as the shell tool calls it: an over-budget text is written to
``<dir>/<tool>_<12 hex>.output`` (mode 0600) and replaced by the "Tool output was too large"
wrapper around a head (about a fifth of the preview) and a tail. Lengths are counted in UTF-16
code units, as JavaScript does. The text is never split into a list of all its lines, so a huge
output costs no more than a couple of copies of itself.
"""

from __future__ import annotations

import codecs
import os
import re
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from qwen_tools.jscompat.jstext import js_trim, utf16_len, utf16_prefix

__all__ = [
    "BINARY_NOTICE",
    "DEFAULT_MAX_BUFFERED_BYTES",
    "ChunkSniffer",
    "OutputCapture",
    "Truncation",
    "capture_limit_notice",
    "format_memory_usage",
    "strip_ansi",
    "truncate_and_save",
]

Stream = Literal["stdout", "stderr"]

DEFAULT_MAX_BUFFERED_BYTES = 64 * 1024 * 1024
"""The reference's default capture cap."""

BINARY_NOTICE = "[Binary output detected. Halting stream...]"

_SNIFF_BYTES = 4096
_BINARY_SAMPLE = 512
_PREVIEW_CHARS = 65536

_ST = "(?:\u0007|\u001b\\\\|\u009c)"
_ANSI = re.compile(
    rf"(?:\u001b\][\s\S]*?{_ST})"
    r"|[\u001b\u009b][\[\]()#;?]*(?:[0-9]{1,4}(?:[;:][0-9]{0,4})*)?[0-9A-PR-TZcf-nq-uy=><~]"
)
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def strip_ansi(text: str) -> str:
    """Remove ANSI escape sequences (CSI and OSC), with the ``ansi-regex`` pattern."""
    if "\x1b" not in text and "\x9b" not in text:
        return text
    return _ANSI.sub("", text)


def _utf16_suffix(text: str, units: int) -> str:
    if units <= 0:
        return ""
    if text.isascii():
        return text[-units:]
    return text.encode("utf-16-le", "surrogatepass")[-units * 2 :].decode("utf-16-le", "ignore")


def format_memory_usage(size: int) -> str:
    """``formatMemoryUsage``: ``"12.3 KB"``, ``"64.0 MB"`` or ``"1.50 GB"``."""
    kb, mb = size / 1024, size / (1024 * 1024)
    if round(kb, 1) < 1024:
        return f"{kb:.1f} KB"
    if round(mb, 1) < 1024:
        return f"{mb:.1f} MB"
    return f"{size / (1024 * 1024 * 1024):.2f} GB"


def capture_limit_notice(max_bytes: int, total_bytes: int) -> str:
    """The notice appended when a command printed more than the capture cap."""
    cap = format_memory_usage(max_bytes)
    return (
        f"[Output exceeded the maximum captured size of {cap}; captured the first {cap} of "
        f"{format_memory_usage(total_bytes)} and discarded the rest to avoid constructing an "
        "oversized JavaScript string.]"
    )


class ChunkSniffer:
    """Binary detection over the first 4 KiB of output, and one UTF-8 decoder per stream."""

    def __init__(self) -> None:
        self.binary = False
        self._sniff = bytearray()
        self._decoders = {
            "stdout": codecs.getincrementaldecoder("utf-8")("replace"),
            "stderr": codecs.getincrementaldecoder("utf-8")("replace"),
        }

    def accept(self, data: bytes) -> bool:
        """Sniff ``data``; ``False`` once the output is known to be binary (drop it)."""
        if not self.binary and len(self._sniff) < _SNIFF_BYTES:
            self._sniff += data[: _SNIFF_BYTES - len(self._sniff)]
            if 0 in self._sniff[:_BINARY_SAMPLE]:
                self.binary = True
        return not self.binary

    def decode(self, data: bytes, stream: Stream, *, final: bool = False) -> str:
        """Decode ``data`` of ``stream`` (a split multi-byte character waits for its rest)."""
        return self._decoders[stream].decode(data, final)


@dataclass
class _StreamText:
    chunks: list[str] = field(default_factory=list)
    tail: str = ""

    def add(self, text: str) -> None:
        if text:
            self.chunks.append(text)
            self.tail = (self.tail + text[-_PREVIEW_CHARS:])[-_PREVIEW_CHARS:]

    def take(self) -> str:
        text = "".join(self.chunks)
        self.chunks.clear()
        return text


def _join_streams(stdout: str, stderr: str) -> str:
    if not stderr:
        return stdout
    if not stdout:
        return stderr
    return stdout + ("" if stdout.endswith("\n") else "\n") + stderr


class OutputCapture:
    """Collects a foreground command's output within a byte cap (see the module docstring)."""

    def __init__(self, max_bytes: int = DEFAULT_MAX_BUFFERED_BYTES) -> None:
        self.max_bytes = max_bytes
        self.total_bytes = 0
        self.captured_bytes = 0
        self._sniffer = ChunkSniffer()
        self._text = {"stdout": _StreamText(), "stderr": _StreamText()}

    @property
    def binary(self) -> bool:
        """Whether the output was detected as binary."""
        return self._sniffer.binary

    @property
    def limit_exceeded(self) -> bool:
        """Whether some output was dropped because of the cap."""
        return self.total_bytes > self.captured_bytes

    def feed(self, data: bytes, stream: Stream) -> None:
        """Take one chunk read from ``stream``."""
        self.total_bytes += len(data)
        room = self.max_bytes - self.captured_bytes
        captured = data if len(data) <= room else data[: max(room, 0)]
        self.captured_bytes += len(captured)
        if not self._sniffer.accept(data) or not captured:
            return
        self._text[stream].add(self._sniffer.decode(captured, stream))

    def live_text(self) -> str:
        """What to show while the command runs: the recent output, or the binary notice."""
        if self.binary:
            return BINARY_NOTICE
        out, err = self._text["stdout"].tail, self._text["stderr"].tail
        return strip_ansi(_join_streams(out, err))[-_PREVIEW_CHARS:]

    def finish(self) -> str:
        """The final output: joined, ANSI-stripped, trimmed, with the cap notice if needed."""
        if self.binary:
            return ""
        for stream in ("stdout", "stderr"):
            self._text[stream].add(self._sniffer.decode(b"", stream, final=True))
        combined = _join_streams(self._text["stdout"].take(), self._text["stderr"].take())
        output = js_trim(strip_ansi(combined))
        del combined
        if not self.limit_exceeded:
            return output
        notice = capture_limit_notice(self.max_bytes, self.total_bytes)
        return f"{output}\n\n{notice}" if output else notice


# -- the head + tail preview --------------------------------------------------------------------

TRUNCATED_PREFIX = "Tool output was too large and has been truncated"
_SEPARATOR = "\n\n---\n... [CONTENT TRUNCATED] ...\n---\n\n"
_ELLIPSIS = "..."


@dataclass(frozen=True, slots=True)
class Truncation:
    """The text to send, and the file holding the full text when it was cut."""

    content: str
    output_file: str | None = None


def _span_len(text: str, start: int, stop: int, ascii_only: bool) -> int:
    """UTF-16 length of ``text[start:stop]`` without copying it."""
    if ascii_only:
        return stop - start
    return stop - start + len(_ASTRAL.findall(text, start, stop))


def _head_lines(text: str, count: int, budget: int, ascii_only: bool) -> tuple[list[str], int]:
    """The first lines within ``budget`` (the one that does not fit is cut, ending in ``...``)."""
    kept: list[str] = []
    used = 0
    start = 0
    for _ in range(count):
        remaining = budget - used
        if remaining <= 0:
            break
        stop = text.find("\n", start)
        stop = len(text) if stop < 0 else stop
        size = _span_len(text, start, stop, ascii_only)
        if size + 1 > remaining:
            if remaining >= len(_ELLIPSIS):
                units = remaining - len(_ELLIPSIS)
                kept.append(utf16_prefix(text[start : start + units], units) + _ELLIPSIS)
            return kept, budget
        kept.append(text[start:stop])
        used += size + 1
        start = stop + 1
    return kept, used


def _tail_lines(text: str, count: int, budget: int, ascii_only: bool) -> list[str]:
    """The last ``count`` lines at most, within ``budget`` (the first kept one may be cut)."""
    kept: list[str] = []
    used = 0
    end = len(text)
    for _ in range(count):
        remaining = budget - used
        if remaining <= 0:
            break
        cut = text.rfind("\n", 0, end)
        size = _span_len(text, cut + 1, end, ascii_only)
        if size + 1 > remaining:
            if remaining >= len(_ELLIPSIS):
                units = remaining - len(_ELLIPSIS)
                piece = text[max(cut + 1, end - units) : end]
                kept.append(_ELLIPSIS + _utf16_suffix(piece, units))
            break
        kept.append(text[cut + 1 : end])
        used += size + 1
        if cut < 0:
            break
        end = cut
    kept.reverse()
    return kept


def _write_private(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8", errors="surrogatepass", newline="") as handle:
        step = 1 << 20
        for offset in range(0, len(text), step):
            handle.write(text[offset : offset + step])


def truncate_and_save(
    content: str,
    *,
    directory: Path,
    tool_name: str,
    threshold: float,
    preview_chars: int,
) -> Truncation:
    """Cut ``content`` to a head and a tail when it exceeds ``threshold`` (UTF-16 units).

    The full text goes to ``<directory>/<tool_name>_<12 hex>.output``; the result carries the
    wrapper the model reads. Content that fits, or whose wrapper would not be shorter, comes back
    unchanged (no file).
    """
    if threshold <= 0:
        return Truncation(content)
    total = utf16_len(content)
    if total <= threshold:
        return Truncation(content)
    line_count = content.count("\n") + 1
    head_count = max(line_count // 5, 1)
    budget = max(0, preview_chars)
    separator = _SEPARATOR if budget > len(_SEPARATOR) else ""
    content_budget = budget - len(separator)
    ascii_only = content.isascii()
    head, head_used = _head_lines(
        content, min(head_count, line_count), content_budget // 5, ascii_only
    )
    tail_budget = max(content_budget - head_used, 0)
    tail = _tail_lines(content, line_count - head_count, tail_budget, ascii_only)
    preview = "\n".join(head) + separator + "\n".join(tail)
    output_file = directory / f"{tool_name}_{secrets.token_hex(6)}.output"
    wrapped = (
        f"{TRUNCATED_PREFIX}.\n"
        f"The full output has been saved to: {output_file}\n"
        "To read the complete output, use the read_file tool with the absolute file path above.\n"
        "The truncated output below shows the beginning and end of the content. The marker "
        "'... [CONTENT TRUNCATED] ...' indicates where content was removed.\n\n"
        f"Truncated part of the output:\n{preview}"
    )
    if utf16_len(wrapped) >= total:
        return Truncation(content)
    try:
        _write_private(output_file, content)
    except OSError:
        return Truncation(preview + "\n[Note: Could not save full output to file]")
    return Truncation(wrapped, str(output_file))
