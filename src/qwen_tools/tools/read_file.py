"""``read_file``: the content of one file, windowed for text and inline for media.

The content itself comes from :mod:`~qwen_tools.tools.file_reading.content` (the reference's
``processSingleFileContent``: text windows, notebooks, SVG, binary files, media, PDF). This
module adds what the tool does around it, as Qwen Code 0.24.4 does:

* **One checked open.** The file is opened once through the workspace's confined open, which
  checks where the opened descriptor really lies; the type sniff, the read and the cache's
  fingerprint all come from that descriptor. A name that was inside when validated but leads
  outside when opened (swapped for a symlink meanwhile) gets the outside-the-workspace error.

* **Header.** A text read that does not show the whole file is prefixed with
  ``Showing lines A-B of N total lines.\n\n---\n\n`` (``of at least N`` when a file over
  10 MB was streamed and reading stopped early); a complete read is the bare content.
* **Read cache.** Every successful read is recorded in ``config.session.read_cache``: *full*
  when the request had no offset, limit or pages and nothing was cut, *cacheable* for plain
  text (and SVG); image, PDF, binary, notebook, audio and video reads are not cacheable.
* **"Unchanged" fast path.** A full request for a file whose last read was full, cacheable and
  not followed by a write, and whose mtime and size are unchanged, returns
  ``[File <rel> unchanged since last read in this session — …]`` (display
  ``Unchanged: <rel>``) instead of the content again. A ranged read never takes it.
* **Notebooks** (``.ipynb``) refuse ``offset``, ``limit`` and ``pages`` with the reference's
  retry hint.

Deliberate differences from 0.24.4:

* a path outside the workspace directories (and the read-only directories such as the
  session's saved tool output) is refused at validation time (``config.workspace_error()``;
  ``path_not_in_workspace`` if it only shows at execution, on the opened descriptor);
* ``absolute_path`` is accepted as an alias of ``file_path`` (one of them is required);
* an ``offset`` at or past the last line is an error of type ``invalid_tool_params``
  (``Offset <o> is beyond the end of the file (<N> total lines).``) instead of an empty window;
* PDF files are always returned inline (``pages`` selects a page range as a smaller PDF) where
  0.24.4 extracts their text for models without PDF input; no image overviews are rendered.
"""

from __future__ import annotations

import json
import os
import stat
from typing import Any, ClassVar, Literal, TypedDict

from qwen_tools.config.config import Config
from qwen_tools.contract.abort import AbortSignal
from qwen_tools.contract.declarative import BaseDeclarativeTool
from qwen_tools.contract.invocation import (
    BaseToolInvocation,
    ToolInvocation,
    ToolLocation,
    UpdateOutput,
)
from qwen_tools.contract.kinds import Kind
from qwen_tools.contract.results import ToolResult
from qwen_tools.contract.tool_names import ToolDisplayNames, ToolNames
from qwen_tools.jscompat.jstext import js_trim
from qwen_tools.tools.common.paths import (
    check_absolute,
    check_inside,
    clean_path_param,
    js_resolve,
    make_relative,
    shorten_path,
)
from qwen_tools.tools.file_reading.content import (
    FileContent,
    open_for_read,
    process_opened,
    relative_for_display,
)
from qwen_tools.tools.file_reading.file_open import OpenedFile
from qwen_tools.tools.file_reading.file_types import js_extname
from qwen_tools.tools.file_reading.pdf import PDF_MAX_PAGES_PER_READ, parse_page_range

__all__ = ["ReadFileParams", "ReadFileTool"]

_DESCRIPTION = (
    "Returns the content of one file. Give file_path as an absolute path (join the project "
    "root and the relative path when needed). Text comes back as it is in the file; a large "
    "file is cut, and the reply then starts with a 'Showing lines A-B of N total lines.' "
    "header so you can fetch more with 'offset' (0-based first line) and 'limit' (number of "
    "lines). Images (PNG, JPG, GIF, WEBP, BMP), audio, video and PDF files are returned as "
    "media; SVG files are returned as text. 'pages' selects a PDF page range such as '1-5' "
    f"(at most {PDF_MAX_PAGES_PER_READ} pages); a PDF of more than 10 pages needs it. Jupyter "
    "notebooks (.ipynb) come back as their cells with outputs; leave offset, limit and pages "
    "out for them. Reading a file again, unchanged and in full, only returns a short note "
    "that it is unchanged; ask for an explicit offset/limit to get the text once more."
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
            "means from the start. Leave it out for notebooks.",
            "type": ["integer", "null"],
        },
        "limit": {
            "description": "How many lines to return at most (text files). Null means the "
            "default window. Leave it out for notebooks.",
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


class ReadFileParams(TypedDict, total=False):
    """``read_file``'s params, as :data:`_SCHEMA` declares them (none required by the schema).

    Validation turns ``absolute_path`` into ``file_path`` and drops null or empty ranges, so
    an invocation always has ``file_path`` and never ``absolute_path`` or a null.
    """

    file_path: str
    offset: int | None
    limit: int | None
    pages: str | None
    absolute_path: str


_RANGE_KEYS: tuple[Literal["offset", "limit", "pages"], ...] = ("offset", "limit", "pages")

_UNCHANGED = (
    "[File {rel} unchanged since last read in this session \u2014 the full content was "
    "provided earlier in this conversation. If you cannot retrieve that prior content (e.g. "
    "after context compaction) or you suspect the file was modified outside the read/edit "
    "tools (shell command, MCP tool, another process), re-read with explicit offset/limit to "
    "fetch current content.]"
)


_INLINE_READ_BYTES = 256 * 1024
"""Files up to this size are read on the event loop thread (see ``execute``)."""


class ReadFileInvocation(BaseToolInvocation[ReadFileParams]):
    """One validated ``read_file`` call."""

    def __init__(self, config: Config, params: ReadFileParams) -> None:
        super().__init__(params)
        self.config = config

    def get_description(self) -> str:
        """The file (relative when inside the project) and the requested window."""
        short = shorten_path(make_relative(self.params["file_path"], str(self.config.target_dir)))
        params = self.params
        pages, offset, limit = params.get("pages"), params.get("offset"), params.get("limit")
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
        """Read the file: small regular files inline, anything else in a worker thread.

        A thread hand-off costs more than reading a small file from the page cache, and many
        threads contending for the GIL made parallel batches of small reads slower than serial
        ones; large files, devices and slow file systems still never block the event loop.
        """
        try:
            info = os.stat(self.params["file_path"])
            inline = stat.S_ISREG(info.st_mode) and info.st_size <= _INLINE_READ_BYTES
        except (OSError, ValueError):
            inline = False
        if inline:
            return self._read()
        import anyio.to_thread  # a small file is read inline: most calls never load it

        return await anyio.to_thread.run_sync(self._read)

    def _read(self) -> ToolResult:
        path: str = self.params["file_path"]
        rel = relative_for_display(path, str(self.config.target_dir))
        # The one open, checked on its descriptor: everything below reads that descriptor. (No
        # second check of the name first: validation checked it, and only what the open
        # reaches can tell where the content comes from.)
        opened = open_for_read(self.config, path, rel)
        if isinstance(opened, FileContent):
            return self._failure(opened)
        with opened:
            return self._read_opened(opened, rel)

    @staticmethod
    def _failure(content: FileContent) -> ToolResult:
        display = content.display or "Error reading file"
        error = content.error
        assert error is not None  # called only for a failed read
        return ToolResult.failure(
            error.message, error.type, llm_content=content.llm_content, display=display
        )

    def _read_opened(self, opened: OpenedFile, rel: str) -> ToolResult:
        absolute = js_resolve(opened.path)
        cache = self.config.session.read_cache
        full_request = not any(k in self.params for k in ("offset", "limit", "pages"))
        # Asked of the opened file's status, so an earlier read vouches only for this file.
        if full_request and cache.is_unchanged_since_full_read(absolute, opened.info):
            short = shorten_path(make_relative(absolute, str(self.config.target_dir)))
            return ToolResult(
                llm_content=_UNCHANGED.format(rel=short), return_display=f"Unchanged: {short}"
            )
        content = process_opened(
            self.config,
            opened,
            rel,
            offset=self.params.get("offset"),
            limit=self.params.get("limit"),
            pages=self.params.get("pages"),
        )
        if content.error is not None:
            return self._failure(content)
        cache.record_read(
            absolute,
            full=full_request,
            cacheable=content.cacheable,
            truncated=content.is_truncated,
            stat_result=content.stat_result,
        )
        llm_content = content.llm_content
        if content.is_truncated and content.lines_shown is not None:
            first, last = content.lines_shown
            header = f"Showing lines {first}-{last} of {content.total_label()} total lines."
            llm_content = f"{header}\n\n---\n\n{llm_content}"
        return ToolResult(llm_content=llm_content, return_display=content.display)


class ReadFileTool(BaseDeclarativeTool[ReadFileParams]):
    """The ``read_file`` tool (display name ``ReadFile``, kind ``read``)."""

    Name: ClassVar[str] = ToolNames.READ_FILE

    def __init__(self, config: Config) -> None:
        super().__init__(self.Name, ToolDisplayNames.READ_FILE, _DESCRIPTION, Kind.READ, _SCHEMA)
        self.config = config

    def validate_tool_param_values(self, params: ReadFileParams) -> str | None:
        """Normalise the params (alias, trimming, nulls) and check them, in the reference's order."""
        alias = params.pop("absolute_path", None)
        given = params.get("file_path")
        if given is None:
            if alias is None:
                return "params must have required property 'file_path'"
            given = alias
        elif alias is not None and js_trim(alias) != js_trim(given):
            return "Give either 'file_path' or its alias 'absolute_path', not two different paths."
        path = params["file_path"] = clean_path_param(given)
        if not path:
            return "The 'file_path' parameter must be non-empty."
        relative = check_absolute(path, "read")
        if relative is not None:
            return relative
        for key in _RANGE_KEYS:
            if params.get(key) is None:
                params.pop(key, None)
        pages = params.get("pages")
        if pages is not None:
            pages = js_trim(pages)
            if pages:
                params["pages"] = pages
            else:
                del params["pages"]
        if js_extname(path).lower() == ".ipynb" and any(
            k in params for k in ("offset", "limit", "pages")
        ):
            retry = {"file_path": path, "offset": None, "limit": None, "pages": None}
            return (
                "For Jupyter notebooks (.ipynb), omit 'offset', 'limit', and 'pages' or set them "
                f"to null. Retry with: {json.dumps(retry, separators=(',', ':'), ensure_ascii=False)}"
            )
        if (params.get("offset") or 0) < 0:
            return "Offset must be a non-negative integer"
        limit = params.get("limit")
        if limit is not None and limit <= 0:
            return "Limit must be a positive integer"
        error = self._check_pages(params.get("pages"))
        if error is not None:
            return error
        outside = check_inside(self.config, path, readable=True)
        if outside is not None:
            return outside
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

    def create_invocation(self, params: ReadFileParams) -> ToolInvocation[ReadFileParams]:
        """Build the invocation for validated params."""
        return ReadFileInvocation(self.config, params)
