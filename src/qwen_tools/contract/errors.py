"""Typed tool errors: the ``ToolErrorType`` vocabulary and the exceptions tools may raise."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class ToolErrorType(StrEnum):
    """Why a tool call failed; values are the reference's lower-case names.

    Only the members some call can end with are here: the reference defines more (notebook
    edits, ``send_message``, older names), which nothing in this package produces.
    ``EXECUTION_CANCELLED`` is ours: the type of a cancelled call.
    """

    # general
    INVALID_TOOL_PARAMS = "invalid_tool_params"
    UNKNOWN = "unknown"
    UNHANDLED_EXCEPTION = "unhandled_exception"
    TOOL_NOT_REGISTERED = "tool_not_registered"
    EXECUTION_FAILED = "execution_failed"
    EXECUTION_DENIED = "execution_denied"
    EXECUTION_TIMEOUT = "execution_timeout"
    EXECUTION_CANCELLED = "execution_cancelled"
    # file system
    FILE_NOT_FOUND = "file_not_found"
    FILE_WRITE_FAILURE = "file_write_failure"
    READ_CONTENT_FAILURE = "read_content_failure"
    ATTEMPT_TO_CREATE_EXISTING_FILE = "attempt_to_create_existing_file"
    FILE_TOO_LARGE = "file_too_large"
    PERMISSION_DENIED = "permission_denied"
    NO_SPACE_LEFT = "no_space_left"
    TARGET_IS_DIRECTORY = "target_is_directory"
    PATH_NOT_IN_WORKSPACE = "path_not_in_workspace"
    # prior-read enforcement
    EDIT_REQUIRES_PRIOR_READ = "edit_requires_prior_read"
    FILE_CHANGED_SINCE_READ = "file_changed_since_read"
    PRIOR_READ_VERIFICATION_FAILED = "prior_read_verification_failed"
    # edit
    EDIT_PREPARATION_FAILURE = "edit_preparation_failure"
    EDIT_NO_OCCURRENCE_FOUND = "edit_no_occurrence_found"
    EDIT_EXPECTED_OCCURRENCE_MISMATCH = "edit_expected_occurrence_mismatch"
    EDIT_NO_CHANGE = "edit_no_change"
    # glob / ls / read_many_files
    GLOB_EXECUTION_ERROR = "glob_execution_error"
    LS_EXECUTION_ERROR = "ls_execution_error"
    PATH_IS_NOT_A_DIRECTORY = "path_is_not_a_directory"
    READ_MANY_FILES_SEARCH_ERROR = "read_many_files_search_error"
    # MCP / shell / discovered tools
    MCP_TOOL_ERROR = "mcp_tool_error"
    SHELL_EXECUTE_ERROR = "shell_execute_error"
    DISCOVERED_TOOL_EXECUTION_ERROR = "discovered_tool_execution_error"
    # memory
    MEMORY_TOOL_EXECUTION_ERROR = "memory_tool_execution_error"
    # web
    WEB_FETCH_FALLBACK_FAILED = "web_fetch_fallback_failed"
    WEB_SEARCH_FAILED = "web_search_failed"
    WEB_SEARCH_BACKEND_FAILED = "web_search_backend_failed"
    WEB_SEARCH_RATE_LIMITED = "web_search_rate_limited"
    # task / agent
    TASK_STOP_NOT_FOUND = "task_stop_not_found"
    TASK_STOP_NOT_RUNNING = "task_stop_not_running"


@dataclass(frozen=True, slots=True)
class ToolError:
    """A failure reported in a ``ToolResult``; the model receives ``message`` only."""

    message: str
    type: ToolErrorType = ToolErrorType.UNKNOWN

    def to_dict(self) -> dict[str, str]:
        """Serialise as ``{"message", "type"}``."""
        return {"message": self.message, "type": self.type.value}


class StructuredToolError(Exception):
    """An exception carrying a ``ToolErrorType``; the executor reports it with that type."""

    def __init__(self, message: str, error_type: ToolErrorType) -> None:
        super().__init__(message)
        self.message = message
        self.error_type = error_type


class ToolParamsError(ValueError):
    """Raised by ``build()`` when parameters fail validation; the message is model-facing."""
