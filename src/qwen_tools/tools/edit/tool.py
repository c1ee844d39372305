"""``edit``: replace text in a file, or create a file from an empty ``old_string``.

Qwen Code 0.24.4 rules (see :mod:`~qwen_tools.tools.edit.plan` for the computation): the file must have been
read in this session (checked before it is read, again after, and once more before writing);
CRLF files are edited as LF in memory and written back CRLF; ``old_string`` is matched
tolerantly (look-alike characters, trailing whitespace, a final newline); a deletion takes its
newline along; ``$`` in ``new_string`` is literal. The reply names the file and shows the
changed lines with 4 lines of context (``Showing lines s-e of N from the edited file:``).
Encoding, BOM, line endings and file mode are kept; a new file's parent directories are made.

Beyond 0.24.4: the optional ``expected_replacements`` (older Qwen Code's parameter) asserts the
number of occurrences and replaces all of them; a failed match shows the closest lines of the
file; a path outside the workspace is refused; concurrent edits of one file are serialised.
The read-modify-write is checked on what is opened, not on the name: the old content is read
through a descriptor checked inside the workspace, missing directories are made below checked
directories, and the new content is written in the real parent opened as a checked descriptor
(see :mod:`qwen_tools.fs.atomic`); a name swapped for an outside symlink at any point is
refused with the outside-workspace message and nothing outside is read or written.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, cast

import anyio.to_thread

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
from qwen_tools.contract.modifiable import ModifyContext
from qwen_tools.contract.results import ToolResult
from qwen_tools.contract.tool_names import ToolDisplayNames, ToolNames
from qwen_tools.fs.atomic import write_text_atomic
from qwen_tools.fs.confined import OutsideRootsError
from qwen_tools.fs.diff import compute_diff_stat, create_patch_smart
from qwen_tools.fs.read_cache import PriorReadProblem
from qwen_tools.fs.text_file import DEFAULT_TEXT_INFO
from qwen_tools.fs.write_target import make_parent_dirs
from qwen_tools.tools.common.paths import (
    check_absolute,
    check_inside,
    clean_path_param,
    is_outside,
    make_relative,
    outside_exception,
    outside_result,
    shorten_path,
)
from qwen_tools.tools.edit.matching import extract_edit_snippet
from qwen_tools.tools.edit.params import EditParams
from qwen_tools.tools.edit.plan import EditPlan, error_message, plan_edit, read_current

__all__ = ["EditInvocation", "EditModifyContext", "EditParams", "EditTool"]

_DESCRIPTION = """\
Changes a file by replacing text. Give the exact text to find (old_string) and the text to put \
in its place (new_string); by default old_string must occur exactly once, set replace_all to \
true to change every occurrence. Read the file with the read_file tool first: an edit of a file \
not read in this session is refused. The user may adjust new_string before it is applied.

Rules:
1. file_path is an absolute path.
2. old_string is the literal text in the file, with its exact whitespace, indentation and line \
breaks. Include enough surrounding lines (about 3 before and 3 after) to make it unique.
3. new_string is the literal replacement text, complete and correct as it should end up.
4. Do not escape either string.
5. An empty old_string creates a new file whose content is new_string.
6. expected_replacements, when given, is the exact number of occurrences you expect; all of \
them are replaced."""

_SCHEMA: dict[str, Any] = {
    "properties": {
        "file_path": {
            "description": "Absolute path of the file to change, e.g. '/home/user/project/app.py'.",
            "type": "string",
        },
        "old_string": {
            "description": "Exact text to replace, as it appears in the file (no escaping), with "
            "a few lines of context on each side so that it matches one place only. Empty "
            "to create a new file.",
            "type": "string",
        },
        "new_string": {
            "description": "Exact text to put in place of old_string (no escaping).",
            "type": "string",
        },
        "replace_all": {
            "description": "Replace every occurrence of old_string instead of exactly one "
            "(default false).",
            "type": "boolean",
        },
        "expected_replacements": {
            "description": "How many occurrences of old_string there must be; all of them are "
            "replaced. Leave it out to replace a single occurrence.",
            "type": "integer",
            "minimum": 1,
        },
    },
    "required": ["file_path", "old_string", "new_string"],
    "type": "object",
}


def _write_error_type(exc: BaseException) -> ToolErrorType:
    if isinstance(exc, OSError) and exc.errno == errno.EISDIR:
        return ToolErrorType.TARGET_IS_DIRECTORY
    return ToolErrorType.FILE_WRITE_FAILURE


def _display(problem: PriorReadProblem) -> str:
    return problem.display_message or problem.message


def _refused(problem: PriorReadProblem) -> EditPlan:
    return EditPlan.refused(problem.message, _display(problem), problem.error_type)


@dataclass(frozen=True, slots=True)
class _Failure:
    raw: str
    display: str
    type: ToolErrorType

    def result(self) -> ToolResult:
        return ToolResult.failure(self.raw, self.type, display=f"Error: {self.display}")


class EditInvocation(BaseToolInvocation[EditParams]):
    """One validated ``edit`` call."""

    def __init__(self, config: Config, params: EditParams) -> None:
        super().__init__(params)
        self.config = config

    @property
    def _path(self) -> str:
        return str(self.params["file_path"])

    def _relative(self) -> str:
        return shorten_path(make_relative(self._path, str(self.config.target_dir)))

    def get_description(self) -> str:
        """``Create <rel>``, ``No file changes to <rel>``, or just the (shortened) path."""
        if self.params["old_string"] == "":
            return f"Create {self._relative()}"
        if self.params["old_string"] == self.params["new_string"]:
            return f"No file changes to {self._relative()}"
        return self._relative()

    def tool_locations(self) -> list[ToolLocation]:
        """The file being edited."""
        return [ToolLocation(self._path)]

    def _calculate(self) -> EditPlan:
        """Prior-read checks around reading the file, then the edit itself (worker thread).

        Raises :class:`~qwen_tools.fs.confined.OutsideRootsError` when what opens is outside.
        """
        cache = self.config.session.read_cache
        problem = cache.check_prior_read(self._path, "edit")
        if problem is not None:
            return _refused(problem)
        current = read_current(self._path, self.config.workspace.roots())
        if current is not None:
            problem = cache.check_prior_read(self._path, "edit", expect_existing=True)
            if problem is not None:
                return _refused(problem)
        return plan_edit(self.params, current)

    async def should_confirm_execute(
        self, signal: AbortSignal
    ) -> ToolCallConfirmationDetails | Literal[False]:
        """The diff to approve; a refused edit raises :class:`StructuredToolError` instead."""
        try:
            plan = await anyio.to_thread.run_sync(self._calculate)
        except OutsideRootsError as exc:
            raise outside_exception(self.config) from exc
        except Exception as exc:
            if signal.aborted:
                raise
            if isinstance(exc, OSError) and exc.errno == errno.EISDIR:
                message = f"Target is a directory, not a file: {self._path} (EISDIR)"
            else:
                message = error_message(exc, "open", self._path)
            raise StructuredToolError(
                f"Error preparing edit: {message}", ToolErrorType.UNHANDLED_EXCEPTION
            ) from exc
        if plan.error is not None:
            raise StructuredToolError(plan.error.raw, plan.error.type)
        file_name = os.path.basename(self._path)
        return EditConfirmationDetails(
            title=f"Confirm Edit: {self._relative()}",
            file_name=file_name,
            file_path=self._path,
            file_diff=create_patch_smart(
                file_name, plan.current_content or "", plan.new_content, "Current", "Proposed"
            ),
            original_content=plan.current_content,
            new_content=plan.new_content,
        )

    async def execute(
        self, signal: AbortSignal, update_output: UpdateOutput | None = None
    ) -> ToolResult:
        """Recompute the edit and write it, holding the file's lock throughout."""
        if is_outside(self.config, self._path):
            return outside_result(self.config)
        async with self.config.session.file_locks.lock(self._path):
            try:
                plan = await anyio.to_thread.run_sync(self._calculate)
            except OutsideRootsError:
                return outside_result(self.config)
            except Exception as exc:
                if signal.aborted:
                    raise
                message = error_message(exc, "open", self._path)
                text = f"Error preparing edit: {message}"
                return ToolResult.failure(
                    message, ToolErrorType.EDIT_PREPARATION_FAILURE, llm_content=text, display=text
                )
            if plan.error is not None:
                return _Failure(plan.error.raw, plan.error.display, plan.error.type).result()
            signal.throw_if_aborted()
            return await anyio.to_thread.run_sync(self._write, plan)

    def _write(self, plan: EditPlan) -> ToolResult:
        path = self._path
        cache = self.config.session.read_cache
        roots = self.config.workspace.roots()
        syscall = "mkdir"
        try:
            problem = cache.check_prior_read(path, "edit", expect_existing=not plan.is_new_file)
            if problem is not None:
                return _Failure(problem.message, _display(problem), problem.error_type).result()
            if plan.is_new_file:
                make_parent_dirs(path, roots)
            syscall = "open"
            info = DEFAULT_TEXT_INFO if plan.is_new_file else plan.info
            written = write_text_atomic(path, plan.new_content, info, roots=roots)
        except OutsideRootsError:
            return outside_result(self.config)
        except Exception as exc:
            message = error_message(exc, syscall, path)
            return ToolResult.failure(
                message,
                _write_error_type(exc),
                llm_content=f"Error executing edit: {message}",
                display=f"Error writing file: {message}",
            )
        cache.record_write(path, stat_result=written)
        return self._success(plan)

    def _success(self, plan: EditPlan) -> ToolResult:
        path = self._path
        file_name = os.path.basename(path)
        before = plan.current_content or ""
        given: Mapping[str, object] = self.params  # ai_proposed_content is undeclared
        proposed = given.get("ai_proposed_content")
        if not isinstance(proposed, str) or not proposed:
            proposed = plan.new_content
        display = FileDiff(
            file_diff=create_patch_smart(
                file_name, before, plan.new_content, "Current", "Proposed"
            ),
            file_name=file_name,
            original_content=plan.current_content,
            new_content=plan.new_content,
            file_path=path,
            diff_stat=compute_diff_stat(before, proposed, plan.new_content),
        )
        parts = [
            f"Created new file: {path} with provided content."
            if plan.is_new_file
            else f"The file: {path} has been updated."
        ]
        snippet = extract_edit_snippet(plan.current_content, plan.new_content)
        if snippet is not None:
            parts.append(
                f"Showing lines {snippet.start_line}-{snippet.end_line} of "
                f"{snippet.total_lines} from the edited file:\n\n---\n\n{snippet.content}"
            )
        return ToolResult(llm_content=" ".join(parts), return_display=display)


class EditModifyContext:
    """Modify-with-editor hooks for ``edit``: the user rewrites the proposed file content.

    The file is read only inside the workspace of ``config`` (anywhere without one).
    """

    def __init__(self, config: Config | None = None) -> None:
        self._config = config

    @property
    def _roots(self) -> tuple[str, ...]:
        return self._config.workspace.roots() if self._config is not None else ("/",)

    def get_file_path(self, params: dict[str, Any]) -> str:
        """The file the call edits."""
        return str(params["file_path"])

    async def get_current_content(self, params: dict[str, Any]) -> str:
        """The file's content now, with LF line endings (``""`` when it does not exist)."""
        path = self.get_file_path(params)
        current = await anyio.to_thread.run_sync(read_current, path, self._roots)
        return "" if current is None else current.text

    async def get_proposed_content(self, params: dict[str, Any]) -> str:
        """What the edit would make of the file (its current content if the edit is refused)."""

        def propose() -> str:
            current = read_current(self.get_file_path(params), self._roots)
            plan = plan_edit(cast(EditParams, params), current, hint=False)
            if plan.error is None:
                return plan.new_content
            return "" if current is None else current.text

        return await anyio.to_thread.run_sync(propose)

    def create_updated_params(
        self, old_content: str, modified_proposed: str, original_params: dict[str, Any]
    ) -> dict[str, Any]:
        """Params replacing the whole ``old_content`` by the user's ``modified_proposed``.

        ``ai_proposed_content`` keeps what the model proposed, so the diff statistics can tell
        the model's changes from the user's.
        """
        current = None if original_params.get("old_string") == "" else old_content
        plan = plan_edit(cast(EditParams, original_params), current, hint=False)
        updated = {
            **original_params,
            "old_string": old_content,
            "new_string": modified_proposed,
            "modified_by_user": True,
            "ai_proposed_content": plan.new_content if plan.error is None else old_content,
        }
        updated.pop("expected_replacements", None)
        return updated


class EditTool(BaseDeclarativeTool[EditParams]):
    """The ``edit`` tool (display name ``Edit``, kind ``edit``)."""

    Name: ClassVar[str] = ToolNames.EDIT

    def __init__(self, config: Config) -> None:
        super().__init__(self.Name, ToolDisplayNames.EDIT, _DESCRIPTION, Kind.EDIT, _SCHEMA)
        self.config = config

    def validate_tool_param_values(self, params: EditParams) -> str | None:
        """Trim and unescape the path, then require it absolute and inside the workspace."""
        path = params["file_path"] = clean_path_param(params["file_path"])
        if not path:
            return "The 'file_path' parameter must be non-empty."
        return check_absolute(path) or check_inside(self.config, path)

    def create_invocation(self, params: EditParams) -> ToolInvocation[EditParams]:
        """Build the invocation for validated params."""
        return EditInvocation(self.config, params)

    def get_modify_context(self) -> ModifyContext:
        """The hooks that let the user rewrite the proposed content before it is written."""
        return EditModifyContext(self.config)
