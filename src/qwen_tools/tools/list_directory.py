"""``list_directory``: the entries directly inside one directory.

Output, as Qwen Code 0.24.4 gives it to the model::

    Listed <N> item(s) in <path>:
    ---
    [DIR] data
    notes.txt
    ---                                  (only when entries were cut)
    [<k> item(s) truncated] ...

    (<g> git-ignored, <q> qwen-ignored)  (only the non-zero counts)

Directories come first, each group in ICU collation order; at most
``min(100, truncate_tool_output_lines)`` entries are shown and ``<N>`` counts them all.
Ignore rules are applied to entries *as files* (no trailing slash), so a directory-only
pattern such as ``build/`` does not hide the directory itself, as in the reference. ``ignore``
patterns match the entry name only: ``*`` and ``?`` are wildcards, everything else is literal.

Unlike 0.24.4, a path outside the workspace directories is refused at validation time, and
again on the opened directory descriptor (a name swapped for an outside symlink since is
refused, never listed). Names holding control characters are shown escaped
(:func:`~qwen_tools.tools.common.paths.escape_control_chars`), so no name can add a line to the listing.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from typing import Any, ClassVar, Required, TypedDict

import anyio

from qwen_tools.config.config import Config
from qwen_tools.config.file_service import FileFilteringOptions
from qwen_tools.contract.abort import AbortSignal
from qwen_tools.contract.declarative import BaseDeclarativeTool
from qwen_tools.contract.errors import ToolErrorType
from qwen_tools.contract.invocation import BaseToolInvocation, ToolInvocation, UpdateOutput
from qwen_tools.contract.kinds import Kind
from qwen_tools.contract.results import ToolResult
from qwen_tools.contract.tool_names import ToolDisplayNames, ToolNames
from qwen_tools.fs.confined import OutsideRootsError
from qwen_tools.jscompat.collation import collation_key
from qwen_tools.tools.common.filtering import FileFilteringParams
from qwen_tools.tools.common.paths import (
    check_absolute,
    check_inside,
    clean_path_param,
    escape_control_chars,
    is_outside,
    js_resolve,
    make_relative,
    node_error_message,
    outside_result,
    shorten_path,
)

__all__ = ["ListDirectoryParams", "ListDirectoryTool"]

MAX_ENTRY_COUNT = 100
_DIR_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_DIRECTORY

_DESCRIPTION = (
    "Shows the files and subdirectories found directly inside one directory (no recursion). "
    "The path must be absolute. Entries can be skipped with name patterns, and .gitignore / "
    ".qwenignore rules apply unless turned off."
)

_SCHEMA: dict[str, Any] = {
    "properties": {
        "path": {
            "description": "Absolute path of the directory whose contents should be listed.",
            "type": "string",
        },
        "ignore": {
            "description": "Name patterns (with * and ? wildcards) of entries to leave out.",
            "items": {"type": "string"},
            "type": "array",
        },
        "file_filtering_options": {
            "description": "Optional switches for the ignore files that filter the listing.",
            "type": "object",
            "properties": {
                "respect_git_ignore": {
                    "description": "Skip entries matched by .gitignore (git repositories only). "
                    "Defaults to true.",
                    "type": "boolean",
                },
                "respect_qwen_ignore": {
                    "description": "Skip entries matched by .qwenignore and the configured "
                    "custom ignore files. Defaults to true.",
                    "type": "boolean",
                },
            },
        },
    },
    "required": ["path"],
    "type": "object",
}


class ListDirectoryParams(TypedDict, total=False):
    """``list_directory``'s params, as :data:`_SCHEMA` declares them."""

    path: Required[str]
    ignore: list[str]
    file_filtering_options: FileFilteringParams


# What JavaScript's "." matches: anything but a line terminator.
_JS_DOT = "[^\n\r\u2028\u2029]"
_REGEX_SPECIALS = re.compile(r"[.+^${}()|\[\]\\]")


def _name_pattern(pattern: str) -> re.Pattern[str]:
    """A wildcard pattern as the reference turns it into a regex (escape, then ``*``/``?``)."""
    escaped = _REGEX_SPECIALS.sub(lambda m: "\\" + m.group(0), pattern)
    return re.compile(escaped.replace("*", _JS_DOT + "*").replace("?", _JS_DOT))


@dataclass(frozen=True, slots=True)
class _Entry:
    name: str
    is_directory: bool


def _error(message: str, display: str, error_type: ToolErrorType) -> ToolResult:
    return ToolResult.failure(message, error_type, display=f"Error: {display}")


class ListDirectoryInvocation(BaseToolInvocation[ListDirectoryParams]):
    """One validated ``list_directory`` call."""

    def __init__(self, config: Config, params: ListDirectoryParams) -> None:
        super().__init__(params)
        self.config = config

    def get_description(self) -> str:
        """The directory, relative to the project root when inside it."""
        return shorten_path(make_relative(self.params["path"], str(self.config.target_dir)))

    def _options(self) -> FileFilteringOptions:
        given = self.params.get("file_filtering_options") or {}
        defaults = self.config.file_filtering
        git = given.get("respect_git_ignore")
        qwen = given.get("respect_qwen_ignore")
        return FileFilteringOptions(
            respect_git_ignore=defaults.respect_git_ignore if git is None else bool(git),
            respect_qwen_ignore=defaults.respect_qwen_ignore if qwen is None else bool(qwen),
        )

    async def execute(
        self, signal: AbortSignal, update_output: UpdateOutput | None = None
    ) -> ToolResult:
        """List the directory in a worker thread."""
        return await anyio.to_thread.run_sync(self._list)

    def _list(self) -> ToolResult:
        path: str = self.params["path"]
        workspace = self.config.workspace
        if is_outside(self.config, path):
            return outside_result(self.config)
        # The directory is listed from a descriptor checked to lie inside the workspace: a
        # name swapped for an outside symlink since validation is refused here, not listed.
        try:
            fd = workspace.open(path, _DIR_FLAGS)
        except OutsideRootsError:
            return outside_result(self.config)
        except OSError as exc:
            return self._open_failure(path, exc)
        try:
            try:
                names = os.listdir(fd)
            except OSError as exc:
                message = "Error listing directory: " + node_error_message(exc, "scandir", path)
                return _error(
                    message, "Failed to list directory.", ToolErrorType.LS_EXECUTION_ERROR
                )
            if not names:
                return ToolResult(
                    llm_content=f"Directory {path} is empty.",
                    return_display="Directory is empty.",
                )
            entries, git_count, qwen_count = self._collect(path, fd, names)
        finally:
            os.close(fd)
        return self._format(path, entries, git_count, qwen_count)

    def _open_failure(self, path: str, exc: OSError) -> ToolResult:
        """The reference's wording for a path that could not be opened as a directory."""
        if is_outside(self.config, path):
            return outside_result(self.config)  # the name itself leads outside by now
        try:
            info = os.stat(path)
        except OSError as stat_exc:
            message = "Error listing directory: " + node_error_message(stat_exc, "stat", path)
            return _error(message, "Failed to list directory.", ToolErrorType.LS_EXECUTION_ERROR)
        if not stat.S_ISDIR(info.st_mode):
            return _error(
                f"Error: Path is not a directory: {path}",
                "Path is not a directory.",
                ToolErrorType.PATH_IS_NOT_A_DIRECTORY,
            )
        message = "Error listing directory: " + node_error_message(exc, "scandir", path)
        return _error(message, "Failed to list directory.", ToolErrorType.LS_EXECUTION_ERROR)

    def _collect(self, path: str, fd: int, names: list[str]) -> tuple[list[_Entry], int, int]:
        root = str(self.config.target_dir)
        service = self.config.file_service
        options = self._options()
        patterns = [_name_pattern(p) for p in self.params.get("ignore") or ()]
        entries: list[_Entry] = []
        git_count = qwen_count = 0
        for name in names:
            relative = os.path.relpath(js_resolve(path, name), root)
            # Entries are tested as files: directory-only patterns do not hide directories.
            if options.respect_git_ignore and service.should_git_ignore_file(relative, False):
                git_count += 1
                continue
            if options.respect_qwen_ignore and service.should_qwen_ignore_file(relative, False):
                qwen_count += 1
                continue
            if any(p.fullmatch(name) for p in patterns):
                continue
            try:
                info = os.stat(name, dir_fd=fd)  # follows a symlink, as the reference's stat
            except OSError:
                continue  # dangling symlink or vanished entry: skipped silently
            entries.append(_Entry(name, stat.S_ISDIR(info.st_mode)))
        if len(entries) > 1:  # one entry needs no order: the collation table stays unloaded
            entries.sort(key=lambda e: (not e.is_directory, collation_key(e.name)))
        return entries, git_count, qwen_count

    def _format(
        self, path: str, entries: list[_Entry], git_count: int, qwen_count: int
    ) -> ToolResult:
        total = len(entries)
        lines_limit = self.config.truncate_tool_output_lines
        limit = min(MAX_ENTRY_COUNT, lines_limit) if lines_limit > 0 else MAX_ENTRY_COUNT
        truncated = total > limit
        shown = entries[:limit] if truncated else entries
        listing = "\n".join(
            ("[DIR] " if e.is_directory else "") + escape_control_chars(e.name) for e in shown
        )
        message = f"Listed {total} item(s) in {path}:\n---\n{listing}"
        if truncated:
            omitted = total - limit
            message += f"\n---\n[{omitted} {'item' if omitted == 1 else 'items'} truncated] ..."
        ignored = []
        if git_count > 0:
            ignored.append(f"{git_count} git-ignored")
        if qwen_count > 0:
            ignored.append(f"{qwen_count} qwen-ignored")
        display = f"Listed {total} item(s)"
        if ignored:
            message += f"\n\n({', '.join(ignored)})"
            display += f" ({', '.join(ignored)})"
        if truncated:
            display += " (truncated)"
        return ToolResult(llm_content=message, return_display=display)


class ListDirectoryTool(BaseDeclarativeTool[ListDirectoryParams]):
    """The ``list_directory`` tool (display name ``ListFiles``, kind ``search``)."""

    Name: ClassVar[str] = ToolNames.LIST_DIRECTORY

    def __init__(self, config: Config) -> None:
        super().__init__(
            self.Name, ToolDisplayNames.LIST_DIRECTORY, _DESCRIPTION, Kind.SEARCH, _SCHEMA
        )
        self.config = config

    def validate_tool_param_values(self, params: ListDirectoryParams) -> str | None:
        """Trim and unescape ``path``; it must be absolute and inside the workspace."""
        path = params["path"] = clean_path_param(params["path"])
        return check_absolute(path, "directory") or check_inside(self.config, path)

    def create_invocation(self, params: ListDirectoryParams) -> ToolInvocation[ListDirectoryParams]:
        """Build the invocation for validated params."""
        return ListDirectoryInvocation(self.config, params)
