"""The ``write_file`` tool: create a file or replace its whole content, keeping its format.

Qwen Code 0.24.4 rules:

* **Validation:** the path is trimmed and unescaped; then ``Missing or empty "file_path"``,
  ``File path must be absolute: <p>``, ``Path is a directory, not a file: <p>`` (``lstat``: a
  symlink to a directory passes here and is refused by the prior-read check), and
  ``Error accessing path properties for validation: <p>. Reason: <msg>``.
* **Prior read:** overwriting an existing file requires that the model read it (or wrote it)
  this session and that it did not change since (:mod:`qwen_tools.fs.read_cache`). The check
  runs when the confirmation is prepared (failures raise ``StructuredToolError``) and three
  times in ``execute``: before reading the file, after reading it, and just before writing.
* **Format kept:** an existing file keeps its encoding and BOM, and if it contained a CRLF the
  whole new content is written with CRLF; a new file is UTF-8, no BOM, LF. Missing parent
  directories of a new file are created. The write is atomic and keeps the file's mode.
* **Reply:** ``Successfully created and wrote to new file: <p>.`` or ``Successfully overwrote
  file: <p>.``, plus `` User modified the `content` to be: <content>`` after the user rewrote
  the content (modify with editor). The display is a :class:`~qwen_tools.FileDiff` with the
  headers ``Original``/``Written`` and a :class:`~qwen_tools.DiffStat`.
* **Confirmation:** an edit confirmation titled ``Confirm Write: <path>`` with a
  ``Current``/``Proposed`` diff; the content can be rewritten in an editor
  (:meth:`WriteFileTool.get_modify_context`, :mod:`.modify`, which sets ``modified_by_user`` and
  ``ai_proposed_content``; those two params are accepted from callers too, undeclared, as the
  reference accepts them).

Deliberate differences from 0.24.4:

* a path outside the workspace directories (symlinks resolved) is refused at validation time
  with ``config.workspace_error()`` (``path_not_in_workspace`` if it only shows at execution);
* what is read and written is checked on the descriptors actually opened, not on the name: the
  old content is read through a checked descriptor, missing directories are made below checked
  directories, and the file is written in its real parent opened as a checked descriptor
  (:mod:`qwen_tools.fs.write_target`), so a name swapped for an outside symlink at any moment
  is refused with the same message, and nothing outside is read, created or written. A
  symlink inside the workspace stays a symlink and its final target (inside) is written. The
  path in replies is the one given (``W/lnk/../f`` stays so), while the I/O happens where the
  kernel resolves it;
* ``record_as_artifact`` is accepted and ignored: no workspace artifacts are recorded, so the
  reply never carries the artifact sentence;
* a failure to create the parent directories is reported like a write failure (e.g.
  ``Permission denied writing to file: <p> (EACCES)``) instead of escaping as an exception;
* not implemented: file history backups, the team-memory secret scan, sandbox file versions,
  ``defaultFileEncoding`` and Windows-only BOM rules for new files.
"""

from __future__ import annotations

import os
import stat
from typing import Any, ClassVar, Literal

import anyio

from qwen_tools.config.config import Config
from qwen_tools.contract.abort import AbortSignal
from qwen_tools.contract.confirmation import EditConfirmationDetails, ToolCallConfirmationDetails
from qwen_tools.contract.declarative import BaseDeclarativeTool
from qwen_tools.contract.display import FileDiff
from qwen_tools.contract.errors import StructuredToolError, ToolErrorType
from qwen_tools.contract.invocation import (
    BaseToolInvocation,
    ToolInvocation,
    ToolLocation,
    UpdateOutput,
)
from qwen_tools.contract.kinds import Kind
from qwen_tools.contract.results import ToolResult
from qwen_tools.contract.tool_names import ToolDisplayNames, ToolNames
from qwen_tools.fs.atomic import write_text_atomic
from qwen_tools.fs.confined import OutsideRootsError
from qwen_tools.fs.diff import compute_diff_stat, create_patch_smart
from qwen_tools.fs.text_file import (
    DEFAULT_TEXT_INFO,
    TextEncodingInfo,
)
from qwen_tools.fs.write_target import make_parent_dirs
from qwen_tools.tools.common.paths import (
    check_absolute,
    check_inside,
    clean_path_param,
    is_outside,
    make_relative,
    node_error_message,
    outside_exception,
    outside_result,
    shorten_path,
)
from qwen_tools.tools.write_file.failures import check_failed, problem_result, write_error
from qwen_tools.tools.write_file.modify import WriteFileModifyContext, read_existing
from qwen_tools.tools.write_file.params import WriteFileParams

__all__ = ["WriteFileModifyContext", "WriteFileParams", "WriteFileTool"]

_DESCRIPTION = (
    "Writes the given content to a file on the local file system, creating the file (and any "
    "missing parent directories) or replacing everything it contained. Being asked to create "
    "or generate a file does not mean the path is free: unless this session has already shown "
    "that the file does not exist, or what it currently contains, read it with the read_file "
    "tool first, and create it only if it is missing. Prior-read enforcement rejects "
    "overwriting a file that was not read. file_path must be absolute: join the project root "
    "and the relative path (project root '/path/to/project/' + 'foo/bar.txt' = "
    "'/path/to/project/foo/bar.txt'); resolve a relative path the user gives against the "
    "project root.\n\n"
    "The user may change `content` before it is written; the response says so when that "
    "happens."
)

_SCHEMA: dict[str, Any] = {
    "properties": {
        "file_path": {
            "description": "Absolute path of the file to write, e.g. "
            "'/home/user/project/notes.txt'. Relative paths are rejected.",
            "type": "string",
        },
        "content": {
            "description": "The complete new content of the file.",
            "type": "string",
        },
        "record_as_artifact": {
            "description": "Set false for throwaway files that should not be listed as session "
            "artifacts (for example HTML only used to print a PDF). Accepted for compatibility; "
            "this implementation records no artifacts.",
            "type": "boolean",
        },
    },
    "required": ["file_path", "content"],
    "type": "object",
}


class WriteFileInvocation(BaseToolInvocation[WriteFileParams]):
    """One validated ``write_file`` call."""

    def __init__(self, config: Config, params: WriteFileParams) -> None:
        super().__init__(params)
        self.config = config

    @property
    def _path(self) -> str:
        return str(self.params["file_path"])

    def _short_path(self) -> str:
        return shorten_path(make_relative(self._path, str(self.config.target_dir)))

    def get_description(self) -> str:
        """``Writing to <path relative to the project>``."""
        return f"Writing to {self._short_path()}"

    def tool_locations(self) -> list[ToolLocation]:
        """The file written."""
        return [ToolLocation(self._path)]

    async def should_confirm_execute(
        self, signal: AbortSignal
    ) -> ToolCallConfirmationDetails | Literal[False]:
        """The diff of the write; raises ``StructuredToolError`` when the prior-read check fails."""
        return await anyio.to_thread.run_sync(self._confirmation_details)

    def _confirmation_details(self) -> EditConfirmationDetails:
        path = self._path
        cache = self.config.session.read_cache
        exists = os.path.exists(path)
        problem = cache.check_prior_read(path, "overwrite")
        if problem is not None:
            raise StructuredToolError(problem.message, problem.error_type)
        original = ""
        if exists:
            try:
                original = read_existing(path, self.config.workspace.roots()).text
            except FileNotFoundError:
                exists = False
            except OutsideRootsError as exc:
                raise outside_exception(self.config) from exc
            except OSError as exc:
                message = node_error_message(exc, "open", path)
                raise StructuredToolError(
                    f"Error reading existing file for confirmation: {message}",
                    ToolErrorType.UNHANDLED_EXCEPTION,
                ) from exc
        if exists:
            problem = cache.check_prior_read(path, "overwrite", expect_existing=True)
            if problem is not None:
                raise StructuredToolError(problem.message, problem.error_type)
        file_name = os.path.basename(path)
        content: str = self.params["content"]
        return EditConfirmationDetails(
            title=f"Confirm Write: {self._short_path()}",
            file_name=file_name,
            file_path=path,
            file_diff=create_patch_smart(file_name, original, content, "Current", "Proposed"),
            original_content=original,
            new_content=content,
        )

    async def execute(
        self, signal: AbortSignal, update_output: UpdateOutput | None = None
    ) -> ToolResult:
        """Write the file in a worker thread, holding the file's session lock."""
        async with self.config.session.file_locks.lock(self._path):
            return await anyio.to_thread.run_sync(self._write)

    def _write(self) -> ToolResult:
        path = self._path
        content: str = self.params["content"]
        if is_outside(self.config, path):
            return outside_result(self.config)
        roots = self.config.workspace.roots()
        cache = self.config.session.read_cache
        exists = os.path.exists(path)
        problem = cache.check_prior_read(path, "overwrite")
        if problem is not None:
            return problem_result(problem)
        original = ""
        info: TextEncodingInfo = DEFAULT_TEXT_INFO
        if exists:
            try:
                decoded = read_existing(path, roots)
                original, info = decoded.text, decoded.info
            except FileNotFoundError:
                exists = False
            except OutsideRootsError:
                return outside_result(self.config)
            except OSError as exc:
                return check_failed(exc, path)
        if exists:
            problem = cache.check_prior_read(path, "overwrite", expect_existing=True)
            if problem is not None:
                return problem_result(problem)
        problem = cache.check_prior_read(path, "overwrite", expect_existing=exists)
        if problem is not None:
            return problem_result(problem)
        if not exists:
            try:
                make_parent_dirs(path, roots)
            except OutsideRootsError:
                return outside_result(self.config)
            except (OSError, ValueError) as exc:
                return write_error(exc, path, mkdir=True)
        try:
            written = write_text_atomic(path, content, info, roots=roots)
        except OutsideRootsError:
            return outside_result(self.config)
        except (OSError, ValueError) as exc:
            return write_error(exc, path)
        cache.record_write(path, stat_result=written)
        return self._success(path, content, original, exists)

    def _success(self, path: str, content: str, original: str, existed: bool) -> ToolResult:
        parts = [
            f"Successfully overwrote file: {path}."
            if existed
            else f"Successfully created and wrote to new file: {path}."
        ]
        if self.params.get("modified_by_user"):
            parts.append(f"User modified the `content` to be: {content}")
        proposed = self.params.get("ai_proposed_content")
        ai_proposed = proposed if isinstance(proposed, str) and proposed else content
        file_name = os.path.basename(path)
        display = FileDiff(
            file_diff=create_patch_smart(file_name, original, content, "Original", "Written"),
            file_name=file_name,
            original_content=original,
            new_content=content,
            file_path=path,
            diff_stat=compute_diff_stat(original, ai_proposed, content),
        )
        return ToolResult(llm_content=" ".join(parts), return_display=display)


class WriteFileTool(BaseDeclarativeTool[WriteFileParams]):
    """The ``write_file`` tool (display name ``WriteFile``, kind ``edit``)."""

    Name: ClassVar[str] = ToolNames.WRITE_FILE

    def __init__(self, config: Config) -> None:
        super().__init__(self.Name, ToolDisplayNames.WRITE_FILE, _DESCRIPTION, Kind.EDIT, _SCHEMA)
        self.config = config

    def validate_tool_param_values(self, params: WriteFileParams) -> str | None:
        """Normalise ``file_path`` and check it, in the reference's order, then the workspace."""
        path = params["file_path"] = clean_path_param(params["file_path"])
        if not path:
            return 'Missing or empty "file_path"'
        relative = check_absolute(path)
        if relative is not None:
            return relative
        try:
            if os.path.exists(path) and stat.S_ISDIR(os.lstat(path).st_mode):
                return f"Path is a directory, not a file: {path}"
        except OSError as exc:
            reason = node_error_message(exc, "lstat", path)
            return f"Error accessing path properties for validation: {path}. Reason: {reason}"
        return check_inside(self.config, path)

    def create_invocation(self, params: WriteFileParams) -> ToolInvocation[WriteFileParams]:
        """Build the invocation for validated params."""
        return WriteFileInvocation(self.config, params)

    def get_modify_context(self) -> WriteFileModifyContext:
        """Hooks that let the user rewrite ``content`` in an editor before the write."""
        return WriteFileModifyContext(self.config)
