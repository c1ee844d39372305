"""Saving over-long tool output to disk and the texts the model gets in its place.

Two mechanisms, both as Qwen Code 0.24.4 words and measures them (``tools/truncation.ts``):

* **Truncation** (:func:`cut_text`, :func:`truncate_and_save`): keep about a fifth of the
  character and line budget from the start and the rest from the end, joined by the
  ``... [CONTENT TRUNCATED] ...`` marker; the whole output goes to
  ``<project temp>/<tool>_<12 hex>.output`` and the model reads :func:`truncation_envelope`.
* **Persistence** (:func:`persist_tool_result`): the whole output goes to
  ``<project temp>/tool-results/<call id>.txt`` and the model reads the ``<persisted-output>``
  stub of :func:`build_stub` (a 2,000-character preview and the file's sha256). A session
  writes at most 500 MB there, one file at most 50 MB.

Files are private (mode 0600, in directories of mode 0700) and written atomically. Lengths
are counted in code points (the reference counts UTF-16 units; the two agree unless the text
has characters beyond the Basic Multilingual Plane).

The model is told to read a saved file with ``read_file``, so the project temp dir is a
*read-only* root of the session's workspace (:func:`allow_reading_saved_output`): the read
tools accept paths beneath it, the write tools do not. It is registered only when it is a real
directory of ours that nobody else may write to.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import math
import os
import re
import stat
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from qwen_tools.contract.tool_names import ToolNames

if TYPE_CHECKING:
    from qwen_tools.config.config import Config

Keep = Literal["head", "tail", "both"]

_log = logging.getLogger("qwen_tools.telemetry")

PREVIEW_SIZE_CHARS = 2000
MAX_FILE_SIZE_BYTES = 50 * 1024 * 1024
MAX_SESSION_BYTES = 500 * 1024 * 1024
FULL_OUTPUT_DIGEST_LABEL = "Full output sha256: "
TOOL_OUTPUT_TRUNCATED_PREFIX = "Tool output was too large and has been truncated"
TRUNCATION_MARKER = "... [CONTENT TRUNCATED] ..."
PERSISTED_OUTPUT_OPEN = "<persisted-output>"
SAVE_FAILED_NOTE = "\n[Note: Could not save full output to file]"
NOTE_FILE_TOO_LARGE = "(file too large to persist)"
NOTE_SESSION_BUDGET = "(session disk budget exhausted)"
NOTE_INVALID_CALL_ID = "(invalid callId)"
NOTE_PERSISTENCE_UNAVAILABLE = "(disk persistence unavailable)"

_SEPARATOR = f"\n\n---\n{TRUNCATION_MARKER}\n---\n\n"
_ELLIPSIS = "..."
_READ_FILE = ToolNames.READ_FILE
_FILE_MODE = 0o600
_DIR_MODE = 0o700
_TAG_RE = re.compile(r"</?(?:persisted-output|system-reminder)>")


def limit(value: float | None) -> float:
    """A configured limit as a number: ``None`` or a value ≤ 0 means unlimited."""
    return math.inf if value is None or value <= 0 else value


# -- truncation -------------------------------------------------------------------------------


def cut_text(content: str, threshold: float, lines: float, keep: Keep = "both") -> str | None:
    """The head, marker and tail kept of ``content``, or ``None`` when it is within the limits.

    ``threshold`` is the character budget of the kept text (marker included) and ``lines``
    the line budget; either may be ``math.inf``. Of each budget, ``keep="both"`` gives a
    fifth (at least one line) to the head and the rest to the tail; a line that does not fit
    is cut and marked with ``...``.
    """
    if len(content) <= threshold and math.isinf(lines):
        return None
    all_lines = content.split("\n")
    if len(content) <= threshold and len(all_lines) <= lines:
        return None
    effective = len(all_lines) if lines >= len(all_lines) else int(lines)
    if keep == "head":
        head_count, tail_count = effective, 0
    elif keep == "tail":
        head_count, tail_count = 0, effective
    else:
        head_count = max(effective // 5, 1)
        tail_count = effective - head_count

    budget = max(0.0, threshold)
    sep = _SEPARATOR if budget > len(_SEPARATOR) else ""
    content_budget = budget - len(sep)
    if keep == "head":
        head_budget = content_budget
    elif keep == "tail":
        head_budget = 0.0
    else:
        head_budget = content_budget if math.isinf(content_budget) else content_budget // 5

    head: list[str] = []
    head_chars: float = 0
    for line in all_lines[: min(head_count, len(all_lines))]:
        remaining = head_budget - head_chars
        if remaining <= 0:
            break
        if len(line) + 1 > remaining:
            if remaining >= len(_ELLIPSIS):
                head.append(line[: int(remaining) - len(_ELLIPSIS)] + _ELLIPSIS)
            head_chars = head_budget
            break
        head.append(line)
        head_chars += len(line) + 1

    tail_budget = 0.0 if keep == "head" else max(content_budget - head_chars, 0.0)
    tail: list[str] = []
    tail_chars: float = 0
    tail_start = max(len(all_lines) - tail_count, len(head))
    for index in range(len(all_lines) - 1, tail_start - 1, -1):
        line = all_lines[index]
        remaining = tail_budget - tail_chars
        if remaining <= 0:
            break
        if len(line) + 1 > remaining:
            if remaining >= len(_ELLIPSIS):
                keep_len = int(remaining) - len(_ELLIPSIS)
                tail.append(_ELLIPSIS + (line[-keep_len:] if keep_len > 0 else ""))
            break
        tail.append(line)
        tail_chars += len(line) + 1
    tail.reverse()

    if keep == "head":
        return "\n".join(head) + sep
    if keep == "tail":
        return sep + "\n".join(tail)
    return "\n".join(head) + sep + "\n".join(tail)


def truncation_envelope(saved_to: str, truncated: str) -> str:
    """What the model reads instead of a truncated output saved to ``saved_to``."""
    return (
        f"{TOOL_OUTPUT_TRUNCATED_PREFIX}.\n"
        f"The full output has been saved to: {saved_to}\n"
        f"To read the complete output, use the {_READ_FILE} tool with the absolute file path "
        "above.\n"
        "The truncated output below shows the beginning and end of the content. The marker "
        f"'{TRUNCATION_MARKER}' indicates where content was removed.\n\n"
        f"Truncated part of the output:\n{truncated}"
    )


def _js_basename(name: str) -> str:
    """``path.basename`` of Node (trailing slashes ignored)."""
    stripped = name.rstrip("/")
    return stripped.rsplit("/", 1)[-1] if stripped else ""


def _utf8(text: str) -> bytes:
    """UTF-8 bytes as Node writes a string (a lone surrogate becomes U+FFFD)."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return re.sub("[\ud800-\udfff]", "\ufffd", text).encode("utf-8")


def _make_private_dir(path: Path) -> None:
    """Create ``path`` (mode 0700) and its missing parents (their usual mode)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):
        path.mkdir(mode=_DIR_MODE)


def allow_reading_saved_output(config: Config) -> Path | None:
    """Make the project temp dir (where outputs are saved) readable by the read tools.

    Creates it (mode 0700) when missing. It is added as a read-only root of
    ``config.workspace`` only if it is a real directory (not a symlink) owned by us; group
    and other permissions are taken away if it had any. Returns it, or ``None`` when it was
    not registered (logged).
    """
    directory = config.get_project_temp_dir()
    try:
        _make_private_dir(directory)
        info = os.lstat(directory)
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
            _log.warning("Not reading saved outputs from %s: not a directory of ours", directory)
            return None
        if info.st_mode & 0o077:
            os.chmod(directory, _DIR_MODE, follow_symlinks=False)
        config.workspace.add_readonly_directory(directory)
    except (OSError, ValueError) as exc:  # e.g. a read-only home: nothing can be saved there
        _log.debug("Not reading saved outputs from %s: %s", directory, exc)
        return None
    return directory


def _write_private(path: Path, data: bytes, *, replace_link: bool = False) -> None:
    """Write ``data`` atomically with mode 0600, creating the directories (mode 0700).

    With ``replace_link`` an existing entry at ``path`` (even a symlink) is replaced, never
    followed, and the new file always gets mode 0600.
    """
    from qwen_tools.fs.atomic import write_bytes_atomic  # when something is saved, not at startup

    _make_private_dir(path.parent)
    if not replace_link:
        write_bytes_atomic(path, data, mode=_FILE_MODE)
        return
    import secrets  # hmac and hashlib: imported when something is saved, not at startup

    staging = path.with_name(f".{path.name}.{secrets.token_hex(4)}.part")
    try:
        write_bytes_atomic(staging, data, mode=_FILE_MODE)
        os.replace(staging, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(staging)
        raise


def truncate_and_save(
    content: str,
    tool_name: str,
    directory: Path,
    *,
    threshold: float,
    lines: float,
    keep: Keep = "both",
) -> tuple[str, str | None]:
    """Truncate ``content`` and save it whole; the text for the model and the file (if saved).

    Limits are numbers (``math.inf`` for none). Within them, or when the envelope would not
    be shorter than ``content``, ``content`` comes back unchanged. If the file cannot be
    written, the kept text comes back with the reference's note and no file.
    """
    if len(content) <= threshold and math.isinf(lines):
        return content, None
    cut = cut_text(content, threshold, lines, keep)
    if cut is None:
        return content, None
    import secrets  # imported when an output is saved, not at startup

    name = _js_basename(f"{tool_name}_{secrets.token_hex(6)}") + ".output"
    output_file = str(directory / name)
    wrapped = truncation_envelope(output_file, cut)
    if len(wrapped) >= len(content):
        return content, None
    try:
        _write_private(Path(output_file), _utf8(content))
    except OSError as exc:
        _log.warning("Failed to save truncated output to %s: %s", output_file, exc)
        return cut + SAVE_FAILED_NOTE, None
    _log.debug(
        "Tool output truncated: %s",
        tool_name,
        extra={
            "event_name": "qwen-code.tool_output_truncated",
            "tool_name": tool_name,
            "original_content_length": len(content),
            "truncated_content_length": len(wrapped),
            "threshold": threshold,
            "lines": lines,
        },
    )
    return wrapped, output_file


# -- persistence ------------------------------------------------------------------------------


def is_already_truncated(text: str) -> bool:
    """Whether ``text`` already went through truncation or persistence."""
    return TRUNCATION_MARKER in text or text.startswith(PERSISTED_OUTPUT_OPEN)


def generate_preview(content: str) -> str:
    """The first 2,000 characters, cut back to the last newline, with the wrapper tags escaped."""
    if len(content) > PREVIEW_SIZE_CHARS:
        head = content[:PREVIEW_SIZE_CHARS]
        newline = head.rfind("\n")
        content = (head[:newline] if newline > 0 else head) + "\n..."
    return _TAG_RE.sub(lambda m: f"&lt;{m.group(0)[1:-1]}&gt;", content)


def build_stub(content: str, byte_size: int, path_or_note: str) -> str:
    """The ``<persisted-output>`` stub naming the saved file, or the unwrapped form with a note."""
    preview = generate_preview(content)
    size_kb = (byte_size + 512) // 1024  # Math.round(bytes / 1024)
    digest = hashlib.sha256(_utf8(content)).hexdigest()
    if os.path.isabs(path_or_note):
        return (
            f"{PERSISTED_OUTPUT_OPEN}\n"
            f"Output too large ({size_kb} KB). Full output saved to: {path_or_note}\n"
            f"{FULL_OUTPUT_DIGEST_LABEL}{digest}\n"
            "Note: this file may be cleaned up after 24 hours.\n"
            f"To read the complete output, use the {_READ_FILE} tool with the absolute file path "
            "above.\n\n"
            f"Preview (up to {PREVIEW_SIZE_CHARS} chars):\n{preview}\n</persisted-output>"
        )
    return (
        f"Output too large ({size_kb} KB). {path_or_note}\n"
        f"{FULL_OUTPUT_DIGEST_LABEL}{digest}\n\n"
        f"Preview (up to {PREVIEW_SIZE_CHARS} chars):\n{preview}"
    )


def normalize_call_id(call_id: str | None) -> str | None:
    """The file-name-safe form of a call id (its last path segment), ``None`` if unusable."""
    safe = _js_basename(call_id or "").replace("\x00", "_")
    return None if safe in ("", ".", "..") else safe


_session_bytes: weakref.WeakKeyDictionary[Config, int] = weakref.WeakKeyDictionary()


def session_bytes_written(config: Config) -> int:
    """Bytes this session has persisted so far (counted against the 500 MB limit)."""
    return _session_bytes.get(config, 0)


def _track(config: Config, delta: int) -> None:
    _session_bytes[config] = _session_bytes.get(config, 0) + delta


@dataclass(frozen=True, slots=True)
class Persisted:
    """The outcome of persisting one output: the model's text and the file written, if any."""

    content: str
    output_file: str | None = None
    bytes_written: int = 0


def persist_tool_result(
    call_id: str | None, tool_name: str, content: str, config: Config
) -> Persisted:
    """Save ``content`` under ``tool-results/`` and return the stub the model reads instead.

    Past the per-file or per-session limit, or with an unusable call id, nothing is saved and
    the stub carries the reference's note. If writing fails, the truncation of
    :func:`truncate_and_save` (with the global limits) is tried instead.
    """
    data = _utf8(content)
    size = len(data)
    if size > MAX_FILE_SIZE_BYTES:
        return Persisted(build_stub(content, size, NOTE_FILE_TOO_LARGE))
    if session_bytes_written(config) + size > MAX_SESSION_BYTES:
        return Persisted(build_stub(content, size, NOTE_SESSION_BUDGET))
    _track(config, size)
    safe = normalize_call_id(call_id)
    if safe is None:
        _track(config, -size)
        return Persisted(build_stub(content, size, NOTE_INVALID_CALL_ID))
    temp_dir = config.get_project_temp_dir()
    output_file = temp_dir / "tool-results" / f"{safe}.txt"
    try:
        _write_private(output_file, data, replace_link=True)
        allow_reading_saved_output(config)
        return Persisted(build_stub(content, size, str(output_file)), str(output_file), size)
    except OSError as exc:
        _log.warning("Failed to persist tool result: %s", exc)
    try:
        text, saved = truncate_and_save(
            content,
            tool_name,
            temp_dir,
            threshold=limit(config.truncate_tool_output_threshold),
            lines=limit(config.truncate_tool_output_lines),
        )
    except Exception as exc:  # pragma: no cover - truncate_and_save handles OSError itself
        _track(config, -size)
        _log.warning("Fallback truncation also failed: %s", exc)
        return Persisted(build_stub(content, size, NOTE_PERSISTENCE_UNAVAILABLE))
    if saved is not None:
        return Persisted(text, saved, size)
    _track(config, -size)
    return Persisted(text)
