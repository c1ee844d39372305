"""``read_file``: the content of one file, windowed for text and inline for media.

Text (Qwen Code 0.24.4 rules): the file is decoded (see :mod:`._file_types`), split on ``\\n``
and the window ``offset`` … ``offset + limit`` selected (default limit
``truncate_tool_output_lines``); the selection is capped at ``max(25_000, 4 × threshold)``
UTF-8 bytes, every line loses its trailing whitespace (so CRLF reads back as LF), and the
lines are joined under a ``truncate_tool_output_threshold`` character budget; the line that
overflows it is cut and ends with ``... [truncated]``. A partial result is prefixed with
``Showing lines A-B of N total lines.\\n\\n---\\n\\n``; a complete one is the bare content.

Other kinds: binary files give ``Cannot display content of binary file: <rel>`` (a success);
SVG is returned as text up to 1 MB; images (PNG, JPEG, GIF, WebP, BMP), audio, video and PDF
come back as one :class:`~qwen_tools._contract.parts.InlineDataPart`. Media over 9.9 MB (raw
or base64-encoded) is refused with ``file_too_large``.

Deliberate differences from 0.24.4:

* a path outside the workspace directories is refused at validation time
  (``config.workspace_error()``; ``path_not_in_workspace`` if it only shows at execution);
* ``absolute_path`` is accepted as an alias of ``file_path`` (one of them is required);
* an ``offset`` at or past the last line is an error of type ``invalid_tool_params``
  (``Offset <o> is beyond the end of the file (<N> total lines).``) instead of an empty window;
* not yet implemented: the "unchanged since last read" placeholder, notebooks (read as text),
  PDF text extraction (``pages`` is validated, then the PDF is returned inline), image
  overviews, and streaming of files over 10 MB (they are read whole, with the byte cap).
"""

from __future__ import annotations

import base64
import os
import re
import stat
from typing import Any, ClassVar

import anyio

from qwen_tools._config.config import Config
from qwen_tools._contract.abort import AbortSignal
from qwen_tools._contract.declarative import BaseDeclarativeTool
from qwen_tools._contract.errors import ToolError, ToolErrorType
from qwen_tools._contract.invocation import (
    BaseToolInvocation,
    ToolInvocation,
    ToolLocation,
    UpdateOutput,
)
from qwen_tools._contract.kinds import Kind
from qwen_tools._contract.parts import InlineDataPart
from qwen_tools._contract.results import ToolResult

from ._file_types import decode_text, detect_file_type, media_mime_type
from ._paths import (
    display_relative,
    js_to_fixed,
    js_trim,
    js_trim_end,
    make_relative,
    node_error_message,
    shorten_path,
    unescape_path,
    utf16_len,
    utf16_prefix,
)

__all__ = ["ReadFileTool"]

PDF_MAX_PAGES_PER_READ = 20
_MAX_PDF_PAGE = 1_000_000
_SVG_MAX_BYTES = 1024 * 1024
_MEDIA_MAX_MB = 9.9
_DEFAULT_RANGE_BYTES = 25_000
_MARKER = "... [truncated]"
_OVERVIEW_IMAGES = frozenset({"image/png", "image/jpeg", "image/webp"})
_INLINE_IMAGES = _OVERVIEW_IMAGES | {"image/gif", "image/bmp"}

_DESCRIPTION = (
    "Returns the content of one file. Give file_path as an absolute path (join the project "
    "root and the relative path when needed). Text comes back as it is in the file; a large "
    "file is cut, and the reply then starts with a 'Showing lines A-B of N total lines.' "
    "header so you can fetch more with 'offset' (0-based first line) and 'limit' (number of "
    "lines). Images (PNG, JPG, GIF, WEBP, BMP), audio, video and PDF files are returned as "
    "media; SVG files are returned as text. 'pages' selects a PDF page range such as '1-5' "
    f"(at most {PDF_MAX_PAGES_PER_READ} pages)."
)

_SCHEMA: dict[str, Any] = {
    "properties": {
        "file_path": {
            "description": "Absolute path of the file to read, e.g. '/home/user/project/"
            "notes.txt'. Relative paths are rejected.",
            "type": "string",
        },
        "offset": {
            "description": "0-based number of the first line to return (text files). Null "
            "means from the start.",
            "type": ["integer", "null"],
        },
        "limit": {
            "description": "How many lines to return at most (text files). Null means the "
            "default window.",
            "type": ["integer", "null"],
        },
        "pages": {
            "description": "PDF page range, 1-based: a page ('3') or a closed range ('1-5'), "
            f"at most {PDF_MAX_PAGES_PER_READ} pages. Null means the whole document.",
            "type": ["string", "null"],
        },
        "absolute_path": {
            "description": "Alias of file_path, kept for older callers; give one or the other.",
            "type": "string",
        },
    },
    "type": "object",
}

_SINGLE = re.compile(r"^([0-9]+)$")
_RANGE = re.compile(r"^([0-9]+)\s*-\s*([0-9]+)$")
_OPEN = re.compile(r"^([0-9]+)\s*-$")


def parse_page_range(pages: str) -> tuple[int, int | None] | None:
    """``(first, last)`` for ``'3'`` or ``'1-5'``; ``last`` is ``None`` for ``'3-'``."""
    text = js_trim(pages)
    if (match := _OPEN.match(text)) is not None:
        first = int(match.group(1))
        return (first, None) if 1 <= first <= _MAX_PDF_PAGE else None
    if (match := _RANGE.match(text)) is not None:
        first, last = int(match.group(1)), int(match.group(2))
        valid = 1 <= first <= last <= _MAX_PDF_PAGE
        return (first, last) if valid else None
    if (match := _SINGLE.match(text)) is not None:
        page = int(match.group(1))
        return (page, page) if 1 <= page <= _MAX_PDF_PAGE else None
    return None


def _truncate_utf8(text: str, max_bytes: int) -> tuple[str, bool]:
    """Keep at most ``max_bytes`` UTF-8 bytes, never splitting a character."""
    encoded = text.encode("utf-8", "surrogatepass")
    if len(encoded) <= max_bytes:
        return text, False
    end = max(max_bytes, 0)
    while end > 0 and (encoded[end] & 0xC0) == 0x80:
        end -= 1
    return encoded[:end].decode("utf-8", "replace"), True


def _failure(message: str, llm_content: str, display: str, error_type: ToolErrorType) -> ToolResult:
    return ToolResult(
        llm_content=llm_content, return_display=display, error=ToolError(message, error_type)
    )


class ReadFileInvocation(BaseToolInvocation[dict[str, Any]]):
    """One validated ``read_file`` call."""

    def __init__(self, config: Config, params: dict[str, Any]) -> None:
        super().__init__(params)
        self.config = config

    def get_description(self) -> str:
        """The file (relative when inside the project) and the requested window."""
        short = shorten_path(make_relative(self.params["file_path"], str(self.config.target_dir)))
        pages, offset, limit = (self.params.get(k) for k in ("pages", "offset", "limit"))
        if pages:
            return f"{short} (pages {pages})"
        if offset is not None and limit is not None:
            return f"{short} (lines {offset + 1}-{offset + limit})"
        if offset is not None:
            return f"{short} (from line {offset + 1})"
        if limit is not None:
            return f"{short} (first {limit} lines)"
        return short

    def tool_locations(self) -> list[ToolLocation]:
        """The file, with the first requested line when an offset was given."""
        return [ToolLocation(self.params["file_path"], self.params.get("offset"))]

    async def execute(
        self, signal: AbortSignal, update_output: UpdateOutput | None = None
    ) -> ToolResult:
        """Read the file in a worker thread."""
        return await anyio.to_thread.run_sync(self._read)

    def _read(self) -> ToolResult:
        path: str = self.params["file_path"]
        rel = display_relative(path, str(self.config.target_dir))
        if not self.config.workspace.is_path_within_workspace(path):
            message = self.config.workspace_error()
            return ToolResult.failure(message, ToolErrorType.PATH_NOT_IN_WORKSPACE)
        try:
            return self._read_checked(path, rel)
        except OSError as exc:
            message = f"Error reading file {rel}: {node_error_message(exc, 'open', path)}"
            return ToolResult.failure(message, ToolErrorType.READ_CONTENT_FAILURE)

    def _read_checked(self, path: str, rel: str) -> ToolResult:
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
            return ToolResult.failure(message, ToolErrorType.READ_CONTENT_FAILURE)
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
        kind = detect_file_type(path)
        mime = media_mime_type(path)
        size_mb = info.st_size / (1024 * 1024)
        exempt = kind in ("text", "notebook") or (kind == "image" and mime in _OVERVIEW_IMAGES)
        if size_mb > _MEDIA_MAX_MB and not exempt:
            return _failure(
                f"File size exceeds the 10MB limit: {path} ({js_to_fixed(size_mb, 2)}MB)",
                "File size exceeds the 10MB limit.",
                "File size exceeds the 10MB limit.",
                ToolErrorType.FILE_TOO_LARGE,
            )
        if kind == "binary":
            return ToolResult(
                llm_content=f"Cannot display content of binary file: {rel}",
                return_display=f"Skipped binary file: {rel}",
            )
        if kind == "svg":
            if info.st_size > _SVG_MAX_BYTES:
                return ToolResult(
                    llm_content=f"Cannot display content of SVG file larger than 1MB: {rel}",
                    return_display=f"Skipped large SVG file (>1MB): {rel}",
                )
            with open(path, "rb") as fh:
                content = decode_text(fh.read())
            return ToolResult(llm_content=content, return_display=f"Read SVG as text: {rel}")
        if kind == "image" and mime not in _INLINE_IMAGES:
            return ToolResult(
                llm_content=f"Image format {mime} ({rel}) cannot be safely sent to the model, "
                "so its data was omitted from the request. Ask the user for a PNG, JPEG, WebP, "
                "or GIF version if the image content matters.",
                return_display=f"Omitted unsupported image format: {rel} ({mime})",
            )
        if kind in ("image", "audio", "video", "pdf"):
            return self._inline(path, rel, kind, mime)
        return self._read_text(path, rel)

    def _inline(self, path: str, rel: str, kind: str, mime: str) -> ToolResult:
        with open(path, "rb") as fh:
            data = base64.b64encode(fh.read()).decode("ascii")
        encoded_mb = len(data) / (1024 * 1024)
        if encoded_mb > _MEDIA_MAX_MB:
            size = js_to_fixed(encoded_mb, 2)
            return _failure(
                "File exceeds the 10MB data URI limit after base64 encoding: "
                f"{path} ({size}MB encoded)",
                f"File exceeds the 10MB data URI limit after base64 encoding ({size}MB encoded).",
                "File exceeds the 10MB data URI limit after base64 encoding.",
                ToolErrorType.FILE_TOO_LARGE,
            )
        part = InlineDataPart(
            mime_type="application/pdf" if kind == "pdf" else mime,
            data=data,
            display_name=os.path.basename(path),
        )
        return ToolResult(llm_content=part, return_display=f"Read {kind} file: {rel}")

    def _read_text(self, path: str, rel: str) -> ToolResult:
        with open(path, "rb") as fh:
            lines = decode_text(fh.read()).split("\n")
        total = len(lines)
        offset: int = self.params.get("offset") or 0
        if offset > 0 and offset >= total:
            message = f"Offset {offset} is beyond the end of the file ({total} total lines)."
            return ToolResult.failure(message, ToolErrorType.INVALID_TOOL_PARAMS)
        threshold = self.config.truncate_tool_output_threshold
        char_limit = threshold if threshold > 0 else None
        max_bytes = max(_DEFAULT_RANGE_BYTES, threshold * 4) if char_limit else None
        limit: int | None = self.params.get("limit")
        if limit is None and self.config.truncate_tool_output_lines > 0:
            limit = self.config.truncate_tool_output_lines
        end = total if limit is None else min(offset + limit, total)
        selected = "\n".join(lines[offset:end])
        by_bytes = False
        if max_bytes is not None:
            selected, by_bytes = _truncate_utf8(selected, max_bytes)
        body, included, cut = self._budget(selected.split("\n"), char_limit)
        if by_bytes:
            if not body.endswith(_MARKER):
                keep = max(char_limit - len(_MARKER) - 1, 0) if char_limit else utf16_len(body)
                prefix = utf16_prefix(body, keep)
                body = prefix + ("" if not prefix or prefix.endswith("\n") else "\n") + _MARKER
            cut = True
        last = offset + included
        if offset == 0 and last >= total and not cut:
            return ToolResult(llm_content=body, return_display="")
        display = f"Read lines {offset + 1}-{last} of {total} from {rel}"
        header = f"Showing lines {offset + 1}-{last} of {total} total lines.\n\n---\n\n"
        return ToolResult(
            llm_content=header + body,
            return_display=display + (" (truncated)" if cut else ""),
        )

    @staticmethod
    def _budget(raw_lines: list[str], char_limit: int | None) -> tuple[str, int, bool]:
        """Join trimmed lines under the character budget: ``(text, lines used, cut?)``."""
        lines = [js_trim_end(line) for line in raw_lines]
        if char_limit is None:
            return "\n".join(lines), len(lines), False
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
            kept.append(utf16_prefix(line, room) + _MARKER)
            return "\n".join(kept), len(kept), True
        return "\n".join(kept), len(kept), False


class ReadFileTool(BaseDeclarativeTool[dict[str, Any]]):
    """The ``read_file`` tool (display name ``ReadFile``, kind ``read``)."""

    Name: ClassVar[str] = "read_file"

    def __init__(self, config: Config) -> None:
        super().__init__(self.Name, "ReadFile", _DESCRIPTION, Kind.READ, _SCHEMA)
        self.config = config

    def validate_tool_param_values(self, params: dict[str, Any]) -> str | None:
        """Normalise the params (alias, trimming, nulls) and check them, in the reference's order."""
        alias = params.pop("absolute_path", None)
        given = params.get("file_path")
        if given is None:
            if alias is None:
                return "params must have required property 'file_path'"
            given = alias
        elif alias is not None and js_trim(alias) != js_trim(given):
            return "Give either 'file_path' or its alias 'absolute_path', not two different paths."
        path = unescape_path(js_trim(given))
        params["file_path"] = path
        if not path:
            return "The 'file_path' parameter must be non-empty."
        if not os.path.isabs(path):
            return f"File path must be absolute, but was relative: {path}. You must provide an absolute path."
        for key in ("offset", "limit", "pages"):
            if params.get(key) is None:
                params.pop(key, None)
        if "pages" in params:
            pages = js_trim(params["pages"])
            if pages:
                params["pages"] = pages
            else:
                del params["pages"]
        if params.get("offset", 0) < 0:
            return "Offset must be a non-negative integer"
        if params.get("limit", 1) <= 0:
            return "Limit must be a positive integer"
        error = self._check_pages(params.get("pages"))
        if error is not None:
            return error
        if not self.config.workspace.is_path_within_workspace(path):
            return self.config.workspace_error()
        service = self.config.file_service
        if service.should_qwen_ignore_file(path):
            source = service.qwen_ignore_source(path) or ", ".join(service.qwen_ignore_file_names())
            return f"File path '{path}' is ignored by {source} pattern(s)."
        return None

    @staticmethod
    def _check_pages(pages: str | None) -> str | None:
        if pages is None:
            return None
        parsed = parse_page_range(pages)
        if parsed is None:
            return f"Invalid pages parameter: '{pages}'. Use formats like '5' or '1-10'."
        first, last = parsed
        if last is None:
            return (
                "Open-ended page ranges (e.g. '3-') are not supported; specify an explicit end "
                f"page within the {PDF_MAX_PAGES_PER_READ}-page limit (e.g. '3-22')."
            )
        if last - first + 1 > PDF_MAX_PAGES_PER_READ:
            return f"Pages range exceeds maximum of {PDF_MAX_PAGES_PER_READ} pages per request."
        return None

    def create_invocation(self, params: dict[str, Any]) -> ToolInvocation[dict[str, Any]]:
        """Build the invocation for validated params."""
        return ReadFileInvocation(self.config, params)
