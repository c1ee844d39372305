"""The content of one file as read_file and read_many_files give it to the model.

This is the equivalent of Qwen Code 0.24.4's ``processSingleFileContent``: it stats the file,
classifies it (:mod:`._file_types`) and returns a :class:`FileContent` holding the model's
content, the user's display text, an error if any, and what the read covered (for the
"Showing lines" header and the session's read cache).

* **text**: the window of :mod:`._text_window`, trimmed and budgeted; default limit
  ``truncate_tool_output_lines``, byte cap ``max(25_000, 4 × threshold)``, character budget
  ``truncate_tool_output_threshold``. An ``offset`` at or past the last line is an error here
  (the reference returns an empty window).
* **notebook**: the cell dump of :mod:`._notebook` (display ``Read notebook: <rel>``); a file
  that is not a notebook is an error.
* **binary**: ``Cannot display content of binary file: <rel>`` (a success); **svg**: the raw
  text up to 1 MB.
* **image / audio / video**: one inline part; image formats providers reject are described
  instead. **pdf**: sent inline too (the reference extracts text when the model cannot take
  PDFs); ``pages`` cuts the range out as a new PDF (:mod:`._pdf`), and a document of more than
  10 pages without ``pages`` gets the reference's "too many pages" error.
* Media over 9.9 MB, raw or base64-encoded, is refused with ``file_too_large``.
"""

from __future__ import annotations

import base64
import os
import stat
from dataclasses import dataclass

from qwen_tools._config.config import Config
from qwen_tools._contract.errors import ToolError, ToolErrorType
from qwen_tools._contract.parts import InlineDataPart
from qwen_tools._fs.text_file import decode_text

from ._file_types import FileType, detect_file_type, media_mime_type
from ._notebook import NotebookError, render_notebook
from ._paths import display_relative, js_to_fixed, node_error_message
from ._pdf import PdfPagesError, extract_pages, large_pdf_guidance, page_count
from ._text_window import LargeTextError, format_window, read_window

__all__ = ["FileContent", "process_file", "relative_for_display"]

_SVG_MAX_BYTES = 1024 * 1024
_MEDIA_MAX_MB = 9.9
_PDF_PAGED_MAX_MB = 512
_DEFAULT_RANGE_BYTES = 25_000
_OVERVIEW_IMAGES = frozenset({"image/png", "image/jpeg", "image/webp"})
_INLINE_IMAGES = _OVERVIEW_IMAGES | {"image/gif", "image/bmp"}


@dataclass(slots=True)
class FileContent:
    """One file read: content for the model, display text, and what the read covered."""

    llm_content: str | InlineDataPart
    display: str
    error: ToolError | None = None
    kind: FileType | None = None
    stat_result: os.stat_result | None = None
    """The status the file was read under (for the read cache)."""
    is_truncated: bool = False
    lines_shown: tuple[int, int] | None = None
    """1-based first and last line included (text only)."""
    total_lines: int | None = None
    total_exact: bool = True

    @property
    def cacheable(self) -> bool:
        """Whether the model received plain text with a line count (text and SVG)."""
        return isinstance(self.llm_content, str) and self.total_lines is not None

    def total_label(self) -> str:
        """``N``, or ``at least N`` when streaming stopped before the end of the file."""
        return str(self.total_lines) if self.total_exact else f"at least {self.total_lines}"


def relative_for_display(path: str, root: str) -> str:
    """``path`` relative to ``root`` as the reference shows it (``path.relative``), fast for
    the common case of a normalised path below the root."""
    prefix = root.rstrip("/") + "/"
    if path.startswith(prefix) and "/." not in path and "//" not in path:
        return path[len(prefix) :]
    return display_relative(path, root)


def _failure(
    message: str, llm_content: str, display: str, error_type: ToolErrorType
) -> FileContent:
    return FileContent(llm_content, display, ToolError(message, error_type))


def _uniform_failure(message: str, error_type: ToolErrorType) -> FileContent:
    return _failure(message, message, message, error_type)


def process_file(
    config: Config,
    path: str,
    *,
    offset: int | None = None,
    limit: int | None = None,
    pages: str | None = None,
    kind: FileType | None = None,
    rel: str | None = None,
) -> FileContent:
    """Read ``path`` (absolute) as the reference's ``processSingleFileContent`` does.

    ``kind`` skips type detection when the caller already classified the file, and ``rel``
    the computation of the display path. Never raises for file-system problems: they come
    back as an error result.
    """
    if rel is None:
        rel = relative_for_display(path, str(config.target_dir))
    try:
        return _process(config, path, rel, offset, limit, pages, kind)
    except OSError as exc:
        message = f"Error reading file {rel}: {node_error_message(exc, 'open', path)}"
        return _uniform_failure(message, ToolErrorType.READ_CONTENT_FAILURE)
    except LargeTextError as exc:
        return _uniform_failure(
            f"Error reading file {rel}: {exc}", ToolErrorType.READ_CONTENT_FAILURE
        )


def _process(
    config: Config,
    path: str,
    rel: str,
    offset: int | None,
    limit: int | None,
    pages: str | None,
    kind: FileType | None,
) -> FileContent:
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return _failure(
            f"File not found: {path}",
            "Could not read file because no file was found at the specified path.",
            "File not found.",
            ToolErrorType.FILE_NOT_FOUND,
        )
    except OSError as exc:
        message = f"Error reading file {rel}: {node_error_message(exc, 'stat', path)}"
        return _uniform_failure(message, ToolErrorType.READ_CONTENT_FAILURE)
    if stat.S_ISDIR(info.st_mode):
        return _failure(
            f"Path is a directory, not a file: {path}",
            "Could not read file because the provided path is a directory, not a file.",
            "Path is a directory.",
            ToolErrorType.TARGET_IS_DIRECTORY,
        )
    if not stat.S_ISREG(info.st_mode):
        name = os.path.basename(path)
        return _failure(
            f"Not a regular file: {path}",
            f"Cannot read file: {name} is not a regular file (e.g. device, socket, or pipe).",
            "Not a regular file.",
            ToolErrorType.READ_CONTENT_FAILURE,
        )
    kind = kind or detect_file_type(path)
    result = _by_kind(config, path, rel, info, kind, offset, limit, pages)
    result.kind, result.stat_result = kind, info
    return result


def _by_kind(
    config: Config,
    path: str,
    rel: str,
    info: os.stat_result,
    kind: FileType,
    offset: int | None,
    limit: int | None,
    pages: str | None,
) -> FileContent:
    if kind == "text":
        return _text(config, path, rel, info, offset or 0, limit)
    mime = media_mime_type(path)
    size_mb = info.st_size / (1024 * 1024)
    if kind == "pdf":
        return _pdf(path, rel, info, pages)
    exempt = kind == "image" and mime in _OVERVIEW_IMAGES
    if size_mb > _MEDIA_MAX_MB and not exempt:
        return _too_large(path, size_mb)
    if kind == "binary":
        return FileContent(
            f"Cannot display content of binary file: {rel}", f"Skipped binary file: {rel}"
        )
    if kind == "svg":
        if info.st_size > _SVG_MAX_BYTES:
            return FileContent(
                f"Cannot display content of SVG file larger than 1MB: {rel}",
                f"Skipped large SVG file (>1MB): {rel}",
            )
        with open(path, "rb") as fh:
            content = decode_text(fh.read())
        return FileContent(content, f"Read SVG as text: {rel}", total_lines=content.count("\n") + 1)
    if kind == "notebook":
        return _notebook(path, rel)
    if kind == "image" and mime not in _INLINE_IMAGES:
        return FileContent(
            f"Image format {mime} ({rel}) cannot be safely sent to the model, so its data was "
            "omitted from the request. Ask the user for a PNG, JPEG, WebP, or GIF version if "
            "the image content matters.",
            f"Omitted unsupported image format: {rel} ({mime})",
        )
    with open(path, "rb") as fh:
        data = fh.read()
    return _inline(path, data, mime, f"Read {kind} file: {rel}")


def _too_large(path: str, size_mb: float) -> FileContent:
    return _failure(
        f"File size exceeds the 10MB limit: {path} ({js_to_fixed(size_mb, 2)}MB)",
        "File size exceeds the 10MB limit.",
        "File size exceeds the 10MB limit.",
        ToolErrorType.FILE_TOO_LARGE,
    )


def _inline(path: str, data: bytes, mime: str, display: str) -> FileContent:
    encoded = base64.b64encode(data).decode("ascii")
    encoded_mb = len(encoded) / (1024 * 1024)
    if encoded_mb > _MEDIA_MAX_MB:
        size = js_to_fixed(encoded_mb, 2)
        return _failure(
            "File exceeds the 10MB data URI limit after base64 encoding: "
            f"{path} ({size}MB encoded)",
            f"File exceeds the 10MB data URI limit after base64 encoding ({size}MB encoded).",
            "File exceeds the 10MB data URI limit after base64 encoding.",
            ToolErrorType.FILE_TOO_LARGE,
        )
    part = InlineDataPart(mime_type=mime, data=encoded, display_name=os.path.basename(path))
    return FileContent(part, display)


def _pdf(path: str, rel: str, info: os.stat_result, pages: str | None) -> FileContent:
    size_mb = info.st_size / (1024 * 1024)
    name = os.path.basename(path)
    if pages is None:
        guidance = large_pdf_guidance(name, page_count(path), info.st_size)
        if guidance is not None:
            return _failure(
                guidance, guidance, f"PDF requires page range: {rel}", ToolErrorType.FILE_TOO_LARGE
            )
        if size_mb > _MEDIA_MAX_MB:
            return _too_large(path, size_mb)
        with open(path, "rb") as fh:
            data = fh.read()
        return _inline(path, data, "application/pdf", f"Read pdf file: {rel}")
    if size_mb > _PDF_PAGED_MAX_MB:
        size = js_to_fixed(size_mb, 2)
        return _failure(
            f"PDF exceeds page-range extraction size limit: {path} ({size}MB)",
            f"PDF file is too large for page-range text extraction: {size}MB exceeds the "
            f"{_PDF_PAGED_MAX_MB}MB limit. Split the document into smaller files before "
            "retrying.",
            f"PDF file too large ({size}MB > {_PDF_PAGED_MAX_MB}MB).",
            ToolErrorType.FILE_TOO_LARGE,
        )
    try:
        data, first, last = extract_pages(path, pages)
    except PdfPagesError as exc:
        message = str(exc)
        error_type = (
            ToolErrorType.INVALID_TOOL_PARAMS
            if message.startswith("Invalid pages")
            else ToolErrorType.READ_CONTENT_FAILURE
        )
        return _failure(message, message, f"Failed to read pdf: {rel}", error_type)
    span = f"{first}" if first == last else f"{first}-{last}"
    return _inline(path, data, "application/pdf", f"Read pdf file (pages {span}): {rel}")


def _notebook(path: str, rel: str) -> FileContent:
    with open(path, "rb") as fh:
        data = fh.read()
    try:
        content, truncated = render_notebook(data)
    except NotebookError as exc:
        return _failure(
            f"Error parsing notebook {path}: {exc}",
            f"Error parsing notebook {rel}: {exc}",
            f"Error reading notebook: {rel}",
            ToolErrorType.READ_CONTENT_FAILURE,
        )
    return FileContent(content, f"Read notebook: {rel}", is_truncated=truncated)


def _text(
    config: Config, path: str, rel: str, info: os.stat_result, offset: int, limit: int | None
) -> FileContent:
    threshold = config.truncate_tool_output_threshold
    char_limit = threshold if threshold > 0 else None
    max_bytes = max(_DEFAULT_RANGE_BYTES, threshold * 4) if char_limit else None
    if limit is None and config.truncate_tool_output_lines > 0:
        limit = config.truncate_tool_output_lines
    window = read_window(path, info.st_size, offset, limit, max_bytes)
    total = window.total_lines
    if offset > 0 and offset >= total:
        message = f"Offset {offset} is beyond the end of the file ({total} total lines)."
        return _uniform_failure(message, ToolErrorType.INVALID_TOOL_PARAMS)
    body, included, cut = format_window(window.content, char_limit, window.truncated_by_bytes)
    last = offset + included
    truncated = offset > 0 or not window.exact or last < total or cut
    content = FileContent(
        body,
        "",
        is_truncated=truncated,
        lines_shown=(offset + 1, last),
        total_lines=total,
        total_exact=window.exact,
    )
    if truncated:
        content.display = f"Read lines {offset + 1}-{last} of {content.total_label()} from {rel}"
        content.display += " (truncated)" if cut else ""
    return content
