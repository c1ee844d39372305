"""``glob``: files whose paths match a glob pattern, newest first.

Matching follows the options Qwen Code 0.24.4 passes to node-glob: case-insensitive, dot-files
and dot-directories included, ``**`` for any depth (a pattern without ``**`` stays at its own
level, so ``*.txt`` does not recurse), ``{a,b}`` braces and extglobs, directories never
returned. Symbolic links are reported like files (``follow: false``); a symlinked directory is
entered only through a name segment, or once by a ``**`` that does not start the pattern, and
only when it points inside the workspace. When the pattern names an existing path literally
(``file[1].txt``), its ``?*()[]`` characters are matched literally. Entries ignored by ``.gitignore`` (inside
a git repository) or the Qwen ignore files are skipped during the walk; directories are tested
as directories, so ``build/`` prunes the whole tree.

Results: collection stops after 1,000 matches; files modified within the last 24 hours come
first (newest first), the rest follow in ICU collation order of their full path; at most
``min(100, truncate_tool_output_lines)`` are shown.

Unlike 0.24.4, a ``path`` outside the workspace directories is refused at validation time (and
again when the directory, opened, lies outside: the walk of :mod:`~qwen_tools.tools.glob.walk` lists only
directories whose descriptors are checked to lie inside), and an absolute pattern only matches
below its literal leading directories when those lie inside the workspace. Paths holding
control characters are listed escaped (:func:`~qwen_tools.tools.common.paths.escape_control_chars`).
"""

from __future__ import annotations

import time
from typing import Any, ClassVar

import anyio

from qwen_tools.config.config import Config
from qwen_tools.contract.abort import AbortSignal
from qwen_tools.contract.declarative import BaseDeclarativeTool
from qwen_tools.contract.errors import ToolErrorType
from qwen_tools.contract.invocation import BaseToolInvocation, ToolInvocation, UpdateOutput
from qwen_tools.contract.kinds import Kind
from qwen_tools.contract.results import ToolResult
from qwen_tools.contract.tool_names import ToolDisplayNames, ToolNames
from qwen_tools.fs.confined import OutsideRootsError
from qwen_tools.jscompat.collation import collation_key
from qwen_tools.jscompat.jstext import js_trim
from qwen_tools.tools.common.paths import (
    check_search_path,
    escape_control_chars,
    format_display_path,
    is_outside,
    outside_result,
    resolve_path,
)
from qwen_tools.tools.glob.params import GlobParams
from qwen_tools.tools.glob.walk import GlobAborted, GlobMatch, GlobWalker

__all__ = ["GlobParams", "GlobTool"]

MAX_FILE_COUNT = 100
MAX_COLLECTED = MAX_FILE_COUNT * 10
_RECENT_MS = 24 * 60 * 60 * 1000
_ABORTED = "This operation was aborted"

_DESCRIPTION = (
    "Finds files by name pattern in any size of codebase.\n"
    '- Understands glob syntax such as "**/*.js", "src/**/*.ts" or "*.{md,txt}"\n'
    "- Lists matching absolute paths, most recently modified first\n"
    "- Use it to locate files by name; for open-ended exploration that needs several rounds "
    "of globbing and grepping, hand the search to the Agent tool\n"
    "- Several independent searches can be issued together in one response."
)

_SCHEMA: dict[str, Any] = {
    "properties": {
        "pattern": {"description": "Glob pattern the file paths must match.", "type": "string"},
        "path": {
            "description": "Directory to search (absolute, or relative to the project root). "
            "Leave the field out to search the whole workspace; never send the strings "
            '"undefined" or "null". When given, it must be an existing directory.',
            "type": "string",
        },
    },
    "required": ["pattern"],
    "type": "object",
}


class GlobInvocation(BaseToolInvocation[GlobParams]):
    """One validated ``glob`` call."""

    def __init__(self, config: Config, params: GlobParams) -> None:
        super().__init__(params)
        self.config = config

    def get_description(self) -> str:
        """The quoted pattern, plus the search directory when one was given."""
        description = f"'{self.params['pattern']}'"
        if self.params.get("path"):
            root = str(self.config.target_dir)
            description += f" in {format_display_path(self.params['path'], root)}"
        return description

    async def execute(
        self, signal: AbortSignal, update_output: UpdateOutput | None = None
    ) -> ToolResult:
        """Walk the search directories in a worker thread."""
        try:
            return await anyio.to_thread.run_sync(self._search, signal)
        except Exception as exc:  # the reference reports any failure of the walk this way
            reason = _ABORTED if isinstance(exc, GlobAborted) else str(exc)
            message = f"Error during glob search operation: {reason}"
            return ToolResult.failure(
                message,
                ToolErrorType.GLOB_EXECUTION_ERROR,
                display=f"Error: {reason or 'An unexpected error occurred.'}",
            )

    def _search(self, signal: AbortSignal) -> ToolResult:
        pattern: str = self.params["pattern"]
        given = self.params.get("path")
        if given:
            search_dir = resolve_path(str(self.config.target_dir), given)
            if is_outside(self.config, search_dir):
                return outside_result(self.config)
            search_dirs, location = [search_dir], f"within {search_dir}"
        else:
            search_dirs = [str(d) for d in self.config.workspace.directories]
            count = len(search_dirs)
            location = (
                f"across {count} workspace directories"
                if count > 1
                else "in the workspace directory"
            )
        try:
            return self._collect(pattern, search_dirs, location, signal)
        except OutsideRootsError:  # a search directory, opened, lies outside the workspace
            return outside_result(self.config)

    def _collect(
        self, pattern: str, search_dirs: list[str], location: str, signal: AbortSignal
    ) -> ToolResult:
        walker = GlobWalker(self.config)
        matches: list[GlobMatch] = []
        seen: set[str] = set()
        hit_limit = False
        for search_dir in search_dirs:
            remaining = MAX_COLLECTED - len(matches)
            if remaining <= 0:
                hit_limit = True
                break
            found: list[GlobMatch] = []
            for match in walker.matches(search_dir, pattern, signal):
                if len(found) >= remaining:
                    hit_limit = True
                    break
                found.append(match)
            for match in found:
                if match.path not in seen:
                    seen.add(match.path)
                    matches.append(match)
        if not matches:
            return ToolResult(
                llm_content=f'No files found matching pattern "{pattern}" {location}',
                return_display="No files found",
            )
        return self._format(pattern, location, matches, hit_limit)

    def _format(
        self, pattern: str, location: str, matches: list[GlobMatch], hit_limit: bool
    ) -> ToolResult:
        now_ms = time.time() * 1000

        def order(match: GlobMatch) -> tuple[int, float, tuple[int, ...]]:
            if now_ms - match.mtime_ms < _RECENT_MS:
                return (0, -match.mtime_ms, ())
            return (1, 0.0, collation_key(match.path))

        ordered = sorted(matches, key=order)
        total = len(ordered)
        lines_limit = self.config.truncate_tool_output_lines
        limit = min(MAX_FILE_COUNT, lines_limit) if lines_limit > 0 else MAX_FILE_COUNT
        truncated = hit_limit or total > limit
        shown = [m.path for m in (ordered[:limit] if truncated else ordered)]
        found = "Found at least" if hit_limit else "Found"
        message = (
            f'{found} {total} file(s) matching "{pattern}" {location}, '
            "sorted by modification time (newest first):\n---\n"
            + "\n".join(map(escape_control_chars, shown))
        )
        if hit_limit:
            message += (
                f"\n---\n[Results truncated after scanning {total} matching files. "
                "Narrow the pattern or path.]"
            )
        elif truncated:
            omitted = total - limit
            message += f"\n---\n[{omitted} {'file' if omitted == 1 else 'files'} truncated] ..."
        display = f"{found} {total} matching file(s)" + (" (truncated)" if truncated else "")
        return ToolResult(llm_content=message, return_display=display, result_file_paths=shown)


class GlobTool(BaseDeclarativeTool[GlobParams]):
    """The ``glob`` tool (display name ``Glob``, kind ``search``)."""

    Name: ClassVar[str] = ToolNames.GLOB

    def __init__(self, config: Config) -> None:
        super().__init__(self.Name, ToolDisplayNames.GLOB, _DESCRIPTION, Kind.SEARCH, _SCHEMA)
        self.config = config

    def validate_tool_param_values(self, params: GlobParams) -> str | None:
        """A non-blank pattern; ``path``, when given, must be an existing workspace directory."""
        if not js_trim(params["pattern"]):
            return "The 'pattern' parameter cannot be empty."
        return check_search_path(self.config, params, directory_only=True)

    def create_invocation(self, params: GlobParams) -> ToolInvocation[GlobParams]:
        """Build the invocation for validated params."""
        return GlobInvocation(self.config, params)
