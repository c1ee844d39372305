"""The content of one file as read_file and read_many_files give it to the model.

This is the equivalent of Qwen Code 0.24.4's ``processSingleFileContent``: it stats the file,
classifies it (:mod:`~qwen_tools.tools.file_reading.file_types`) and returns a :class:`FileContent` holding the model's
content, the user's display text, an error if any, and what the read covered (for the
"Showing lines" header and the session's read cache).

* **text**: the window of :mod:`~qwen_tools.tools.file_reading.text_window`, trimmed and budgeted; default limit
  ``truncate_tool_output_lines``, byte cap ``max(25_000, 4 × threshold)``, character budget
  ``truncate_tool_output_threshold``. An ``offset`` at or past the last line is an error here
  (the reference returns an empty window).
* **notebook**: the cell dump of :mod:`~qwen_tools.tools.file_reading.notebook` (display ``Read notebook: <rel>``); a file
  that is not a notebook is an error.
* **binary**: ``Cannot display content of binary file: <rel>`` (a success); **svg**: the raw
  text up to 1 MB.
* **image / audio / video**: one inline part; image formats providers reject are described
  instead. **pdf**: sent inline too (the reference extracts text when the model cannot take
  PDFs); ``pages`` cuts the range out as a new PDF (:mod:`~qwen_tools.tools.file_reading.pdf`), and a document of more than
  10 pages without ``pages`` gets the reference's "too many pages" error.
* Media over 9.9 MB, raw or base64-encoded, is refused with ``file_too_large``.
"""

from __future__ import annotations

import base64
import os
import stat
from dataclasses import dataclass

from qwen_tools.config.config import Config
from qwen_tools.contract.errors import ToolError, ToolErrorType
from qwen_tools.contract.parts import InlineDataPart
from qwen_tools.fs.confined import ConfinedOpener, OutsideRootsError
from qwen_tools.fs.text_file import decode_text
from qwen_tools.tools.common import paths
from qwen_tools.tools.common.paths import display_relative, js_to_fixed, node_error_message
from qwen_tools.tools.file_reading.file_open import OpenedFile, read_all
from qwen_tools.tools.file_reading.file_types import FileType, detect_file_type, media_mime_type
from qwen_tools.tools.file_reading.text_window import LargeTextError, format_window, read_window

__all__ = [
    "FileContent",
    "open_for_read",
    "outside_failure",
    "process_file",
    "process_opened",
    "read_opener",
    "relative_for_display",
]

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


def read_opener(config: Config) -> ConfinedOpener:
    """The read tools' checked open: the workspace directories and the read-only ones."""
    return ConfinedOpener(config.workspace.roots(readable=True))


def open_for_read(
    config: Config, path: str, rel: str, opener: ConfinedOpener | None = None
) -> OpenedFile | FileContent:
    """Open the absolute ``path`` for reading, checked on the descriptor, or the error to give.

    A descriptor that lies outside the workspace (and the read-only roots) is refused with
    the text of a path outside the workspace (``path_not_in_workspace``), whatever the name
    looked like when it was validated. Other failures are worded as before the open existed:
    from a ``stat`` of the name (not found, a directory, not a regular file, or the stat's
    error), else from the open itself. ``opener`` (:func:`read_opener`) may be shared by the
    reads of one call.
    """
    try:
        fd = (opener or read_opener(config)).open(path)
    except OutsideRootsError:
        return outside_failure(config)
    except OSError as exc:
        return _open_failure(config, path, rel, exc)
    except ValueError as exc:  # an embedded NUL byte
        message = f"Error reading file {rel}: {exc}"
        return _uniform_failure(message, ToolErrorType.INVALID_TOOL_PARAMS)
    try:
        info = os.fstat(fd)
    except OSError as exc:
        os.close(fd)
        message = f"Error reading file {rel}: {node_error_message(exc, 'stat', path)}"
        return _uniform_failure(message, ToolErrorType.READ_CONTENT_FAILURE)
    return OpenedFile(path, fd, info)


def outside_failure(config: Config) -> FileContent:
    """The result for a file whose opened descriptor lies outside the workspace."""
    return _uniform_failure(paths.outside_message(config), ToolErrorType.PATH_NOT_IN_WORKSPACE)


def _open_failure(config: Config, path: str, rel: str, exc: OSError) -> FileContent:
    if paths.is_outside(config, path, readable=True):  # the name itself now points outside
        return outside_failure(config)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return _failure(
            f"File not found: {path}",
            "Could not read file because no file was found at the specified path.",
            "File not found.",
            ToolErrorType.FILE_NOT_FOUND,
        )
    except OSError as stat_exc:
        message = f"Error reading file {rel}: {node_error_message(stat_exc, 'stat', path)}"
        return _uniform_failure(message, ToolErrorType.READ_CONTENT_FAILURE)
    if stat.S_ISDIR(info.st_mode) or not stat.S_ISREG(info.st_mode):
        return _not_a_file(path, info)
    message = f"Error reading file {rel}: {node_error_message(exc, 'open', path)}"
    return _uniform_failure(message, ToolErrorType.READ_CONTENT_FAILURE)


def _not_a_file(path: str, info: os.stat_result) -> FileContent:
    if stat.S_ISDIR(info.st_mode):
        return _failure(
            f"Path is a directory, not a file: {path}",
            "Could not read file because the provided path is a directory, not a file.",
            "Path is a directory.",
            ToolErrorType.TARGET_IS_DIRECTORY,
        )
    name = os.path.basename(path)
    return _failure(
        f"Not a regular file: {path}",
        f"Cannot read file: {name} is not a regular file (e.g. device, socket, or pipe).",
        "Not a regular file.",
        ToolErrorType.READ_CONTENT_FAILURE,
    )


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

    The file is opened once, checked on its descriptor (:func:`open_for_read`), and read only
    through that descriptor. ``kind`` skips type detection when the caller already classified
    the file, and ``rel`` the computation of the display path. Never raises for file-system
    problems: they come back as an error result.
    """
    if rel is None:
        rel = relative_for_display(path, str(config.target_dir))
    opened = open_for_read(config, path, rel)
    if isinstance(opened, FileContent):
        return opened
    with opened:
        return process_opened(
            config, opened, rel, offset=offset, limit=limit, pages=pages, kind=kind
        )


def process_opened(
    config: Config,
    opened: OpenedFile,
    rel: str,
    *,
    offset: int | None = None,
    limit: int | None = None,
    pages: str | None = None,
    kind: FileType | None = None,
) -> FileContent:
    """:func:`process_file` for a file already opened with :func:`open_for_read`."""
    path, info = opened.path, opened.info
    try:
        if not stat.S_ISREG(info.st_mode):
            return _not_a_file(path, info)
        kind = kind or detect_file_type(path, opened.fd)
        result = _by_kind(config, opened, rel, kind, offset, limit, pages)
    except OSError as exc:
        message = f"Error reading file {rel}: {node_error_message(exc, 'open', path)}"
        return _uniform_failure(message, ToolErrorType.READ_CONTENT_FAILURE)
    except LargeTextError as exc:
        return _uniform_failure(
            f"Error reading file {rel}: {exc}", ToolErrorType.READ_CONTENT_FAILURE
        )
    result.kind, result.stat_result = kind, info
    return result


def _by_kind(
    config: Config,
    opened: OpenedFile,
    rel: str,
    kind: FileType,
    offset: int | None,
    limit: int | None,
    pages: str | None,
) -> FileContent:
    path, info = opened.path, opened.info
    if kind == "text":
        return _text(config, opened, rel, offset or 0, limit)
    mime = media_mime_type(path)
    size_mb = info.st_size / (1024 * 1024)
    if kind == "pdf":
        return _pdf(opened, rel, pages)
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
        content = decode_text(read_all(opened.fd))
        return FileContent(content, f"Read SVG as text: {rel}", total_lines=content.count("\n") + 1)
    if kind == "notebook":
        return _notebook(opened, rel)
    if kind == "image" and mime not in _INLINE_IMAGES:
        return FileContent(
            f"Image format {mime} ({rel}) cannot be safely sent to the model, so its data was "
            "omitted from the request. Ask the user for a PNG, JPEG, WebP, or GIF version if "
            "the image content matters.",
            f"Omitted unsupported image format: {rel} ({mime})",
        )
    return _inline(path, read_all(opened.fd), mime, f"Read {kind} file: {rel}")


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


def _pdf(opened: OpenedFile, rel: str, pages: str | None) -> FileContent:
    from qwen_tools.tools.file_reading.pdf import (
        PdfPagesError,
        extract_pages,
        large_pdf_guidance,
        page_count,
    )

    path, info = opened.path, opened.info
    size_mb = info.st_size / (1024 * 1024)
    name = os.path.basename(path)
    if pages is None:
        with open(opened.fd, "rb", closefd=False) as stream:
            count = page_count(path, stream)
        guidance = large_pdf_guidance(name, count, info.st_size)
        if guidance is not None:
            return _failure(
                guidance, guidance, f"PDF requires page range: {rel}", ToolErrorType.FILE_TOO_LARGE
            )
        if size_mb > _MEDIA_MAX_MB:
            return _too_large(path, size_mb)
        return _inline(path, read_all(opened.fd), "application/pdf", f"Read pdf file: {rel}")
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
        with open(opened.fd, "rb", closefd=False) as stream:
            data, first, last = extract_pages(path, pages, stream)
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


def _notebook(opened: OpenedFile, rel: str) -> FileContent:
    from qwen_tools.tools.file_reading.notebook import NotebookError, render_notebook

    path = opened.path
    try:
        content, truncated = render_notebook(read_all(opened.fd))
    except NotebookError as exc:
        return _failure(
            f"Error parsing notebook {path}: {exc}",
            f"Error parsing notebook {rel}: {exc}",
            f"Error reading notebook: {rel}",
            ToolErrorType.READ_CONTENT_FAILURE,
        )
    return FileContent(content, f"Read notebook: {rel}", is_truncated=truncated)


def _text(
    config: Config, opened: OpenedFile, rel: str, offset: int, limit: int | None
) -> FileContent:
    threshold = config.truncate_tool_output_threshold
    char_limit = threshold if threshold > 0 else None
    max_bytes = max(_DEFAULT_RANGE_BYTES, threshold * 4) if char_limit else None
    if limit is None and config.truncate_tool_output_lines > 0:
        limit = config.truncate_tool_output_lines
    window = read_window(opened.fd, opened.info.st_size, offset, limit, max_bytes)
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
