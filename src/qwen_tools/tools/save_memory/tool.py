"""``save_memory``: add a fact to the user's long-term memory file (a Markdown context file).

Qwen Code 0.24.4 no longer has this tool (it moved to managed auto-memory); this follows the
last version that had it:

* **Params:** ``fact`` (required, non-blank) and ``scope`` (``global`` = the context file in
  the Qwen home directory, ``project`` = the one in the project root). The context file name
  is the ``context.fileName`` setting (first name of a list), ``QWEN.md`` by default.
* **Effect:** ``- <fact>`` is appended to the ``## Qwen Added Memories`` section, created when
  missing (see :mod:`~qwen_tools.tools.save_memory.memory_file`); the write is atomic, under the file's session lock.
* **Confirmation:** an edit confirmation titled ``Confirm Memory Save: <path> (<scope>)`` with
  the diff of the memory file; "always allow" covers that file and scope for the session.
* **Results:** ``Okay, I've remembered that in <scope> memory: "<fact>"``; without a scope, a
  (non-error) request to name one; a failed write is a ``memory_tool_execution_error``.

Deliberate differences from that version: without a scope nothing is asked of the user (the
reference showed a location-choice dialog whose "Yes" saved nothing either); modify-with-editor
and the undeclared ``modified_by_user``/``modified_content`` params are not supported; an
unreadable memory file is reported instead of being overwritten as if empty; the project file
is read and written only inside the workspace, checked on what is opened (a ``QWEN.md``
symlinked outside is refused with the outside-workspace message).
"""

from __future__ import annotations

import errno
import os
from typing import Any, ClassVar, Literal

import anyio

from qwen_tools.config.config import Config
from qwen_tools.contract.abort import AbortSignal
from qwen_tools.contract.confirmation import (
    EditConfirmationDetails,
    ToolCallConfirmationDetails,
    ToolConfirmationOutcome,
    ToolConfirmationPayload,
)
from qwen_tools.contract.declarative import BaseDeclarativeTool
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
from qwen_tools.fs.confined import OutsideRootsError
from qwen_tools.fs.diff import format_patch, structured_patch
from qwen_tools.fs.write_target import make_parent_dirs
from qwen_tools.jscompat.jstext import js_trim
from qwen_tools.tools.common.paths import (
    node_error_message,
    outside_exception,
    outside_message,
    tildeify_path,
)
from qwen_tools.tools.save_memory.memory_file import (
    InvalidContextFileName,
    MemoryScope,
    add_memory_entry,
    context_file_name,
    memory_file_path,
    memory_file_roots,
    read_memory_file,
    write_memory_file,
)
from qwen_tools.tools.save_memory.params import SaveMemoryParams

__all__ = ["SaveMemoryParams", "SaveMemoryTool"]

_DESCRIPTION = (
    "Stores a short fact in long-term memory so that it is available in future sessions.\n\n"
    "Call it when the user asks you to remember something, or states a durable fact about "
    "themselves, their preferences or their environment that will help later. Do not use it "
    "for context that only matters in the current conversation, for long or rambling text, "
    "or for anything you are unsure is worth keeping (ask the user first).\n\n"
    'Choose `scope` "global" for the user-level memory file in ~/.qwen (shared by every '
    'project) or "project" for the one in the project root; when it is left out, the tool '
    "asks which one to use."
)

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "fact": {
            "type": "string",
            "description": "The fact to remember, as one clear, self-contained statement.",
        },
        "scope": {
            "type": "string",
            "description": 'Which memory file to write: "global" (~/.qwen, every project) or '
            '"project" (this project only). Omit it to be asked.',
            "enum": ["global", "project"],
        },
    },
    "required": ["fact"],
}

_EMPTY_FACT = 'Parameter "fact" must be a non-empty string.'


class SaveMemoryInvocation(BaseToolInvocation[SaveMemoryParams]):
    """One validated ``save_memory`` call."""

    def __init__(self, config: Config, params: SaveMemoryParams) -> None:
        super().__init__(params)
        self.config = config

    @property
    def _scope(self) -> MemoryScope | None:
        scope = self.params.get("scope")
        return "project" if scope == "project" else "global" if scope == "global" else None

    def _path(self, scope: MemoryScope) -> str:
        return memory_file_path(self.config, scope)

    def _choice_text(self) -> str:
        global_path = tildeify_path(self._path("global"))
        project_path = tildeify_path(self._path("project"))
        return (
            "Please specify where to save this memory:\n\n"
            f"Global: {global_path} (shared across all projects)\n"
            f"Project: {project_path} (current project only)"
        )

    def get_description(self) -> str:
        """``<memory file> (<scope>)``, or both candidate files when no scope was given."""
        scope = self._scope
        if scope is None:
            global_path = tildeify_path(self._path("global"))
            project_path = tildeify_path(self._path("project"))
            return f"CHOOSE: {global_path} (global) OR {project_path} (project)"
        return f"{tildeify_path(self._path(scope))} ({scope})"

    def tool_locations(self) -> list[ToolLocation]:
        """The memory file written (none until a scope is chosen)."""
        scope = self._scope
        return [ToolLocation(self._path(scope))] if scope is not None else []

    async def should_confirm_execute(
        self, signal: AbortSignal
    ) -> ToolCallConfirmationDetails | Literal[False]:
        """The diff of the memory file, unless it was always allowed (or nothing is written)."""
        scope = self._scope
        if scope is None:
            return False
        path = self._path(scope)
        key = f"{path}_{scope}"
        allowed = self.config.session.always_allowed_memory_files
        if key in allowed:
            return False
        roots = memory_file_roots(self.config, scope)
        try:
            current = await anyio.to_thread.run_sync(read_memory_file, path, roots)
        except OutsideRootsError as exc:
            raise outside_exception(self.config) from exc
        except OSError as exc:
            raise StructuredToolError(
                node_error_message(exc, _read_syscall(exc), path),
                ToolErrorType.UNHANDLED_EXCEPTION,
            ) from exc
        proposed = add_memory_entry(current, self.params["fact"])
        name = os.path.basename(path)
        diff = format_patch(
            name,
            name,
            structured_patch(current, proposed, ignore_whitespace=True),
            "Current",
            "Proposed",
        )

        async def remember(
            outcome: ToolConfirmationOutcome, _payload: ToolConfirmationPayload | None
        ) -> None:
            if outcome is ToolConfirmationOutcome.PROCEED_ALWAYS:
                allowed.add(key)

        return EditConfirmationDetails(
            title=f"Confirm Memory Save: {tildeify_path(path)} ({scope})",
            file_name=path,
            file_path=path,
            file_diff=diff,
            original_content=current,
            new_content=proposed,
            on_confirm=remember,
        )

    async def execute(
        self, signal: AbortSignal, update_output: UpdateOutput | None = None
    ) -> ToolResult:
        """Add the fact to the chosen memory file (or ask for a scope)."""
        fact: str = self.params["fact"]
        scope = self._scope
        if scope is None:
            text = self._choice_text()
            return ToolResult(llm_content=text, return_display=text)
        path = self._path(scope)
        roots = memory_file_roots(self.config, scope)
        async with self.config.session.file_locks.lock(path):
            try:
                await anyio.to_thread.run_sync(_append, path, fact, roots)
            except OutsideRootsError:
                return _failure(_StepFailed.message(outside_message(self.config)))
            except _StepFailed as exc:
                return _failure(exc)
        message = f'Okay, I\'ve remembered that in {scope} memory: "{fact}"'
        return ToolResult(llm_content=message, return_display=message)


def _read_syscall(exc: OSError) -> str:
    return "read" if exc.errno == errno.EISDIR else "open"


class _StepFailed(Exception):
    """An ``OSError`` of one step of the append, with the Node syscall name it maps to."""

    def __init__(self, exc: OSError, syscall: str, target: str) -> None:
        super().__init__(node_error_message(exc, syscall, target))

    @classmethod
    def message(cls, text: str) -> _StepFailed:
        """A failure described by ``text`` itself."""
        failed = cls.__new__(cls)
        Exception.__init__(failed, text)
        return failed


def _append(path: str, fact: str, roots: tuple[str, ...] | None) -> None:
    """Add ``fact`` to the file; ``OutsideRootsError`` when it lies outside ``roots``."""
    try:
        current = read_memory_file(path, roots)
    except OutsideRootsError:
        raise
    except OSError as exc:
        raise _StepFailed(exc, _read_syscall(exc), path) from exc
    updated = add_memory_entry(current, fact)
    parent = os.path.dirname(path)
    try:
        make_parent_dirs(path, roots)
    except OutsideRootsError:
        raise
    except OSError as exc:
        target = os.fsdecode(exc.filename) if exc.filename is not None else parent
        raise _StepFailed(exc, "mkdir", target) from exc
    try:
        write_memory_file(path, updated, roots)
    except OutsideRootsError:
        raise
    except OSError as exc:
        raise _StepFailed(exc, "open", path) from exc


def _failure(exc: _StepFailed) -> ToolResult:
    message = f"[MemoryTool] Failed to add memory entry: {exc}"
    text = f"Error saving memory: {message}"
    return ToolResult.failure(
        message, ToolErrorType.MEMORY_TOOL_EXECUTION_ERROR, llm_content=text, display=text
    )


class SaveMemoryTool(BaseDeclarativeTool[SaveMemoryParams]):
    """The ``save_memory`` tool (display name ``SaveMemory``, kind ``think``)."""

    Name: ClassVar[str] = ToolNames.MEMORY

    def __init__(self, config: Config) -> None:
        super().__init__(self.Name, ToolDisplayNames.MEMORY, _DESCRIPTION, Kind.THINK, _SCHEMA)
        self.config = config

    def validate_tool_param_values(self, params: SaveMemoryParams) -> str | None:
        """A blank fact is refused; so is a ``context.fileName`` setting naming a path."""
        if not js_trim(params["fact"]):
            return _EMPTY_FACT
        try:
            context_file_name(self.config)
        except InvalidContextFileName as exc:
            return str(exc)
        return None

    def create_invocation(self, params: SaveMemoryParams) -> ToolInvocation[SaveMemoryParams]:
        """Build the invocation for validated params."""
        return SaveMemoryInvocation(self.config, params)
