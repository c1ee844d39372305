"""How a failed ``write_file`` is reported, in Qwen Code 0.24.4's words.

``EACCES``, ``ENOSPC`` and ``EISDIR`` have their own messages and error types; any other
``OSError`` of the write quotes Node's ``atomicWriteFile("<path>"): <CODE>: <message>, <syscall>
'<path>'`` (``mkdir`` for the parent directories). A failed prior-read check keeps its own
message and error type, with ``Error: <display message>`` for the user.
"""

from __future__ import annotations

import errno
import json
import os

from qwen_tools.contract.errors import ToolErrorType
from qwen_tools.contract.results import ToolResult
from qwen_tools.fs.read_cache import PriorReadProblem
from qwen_tools.tools.common.paths import node_error_message


def write_error(exc: BaseException, path: str, *, mkdir: bool = False) -> ToolResult:
    """The reference's failure for a write of ``path`` (or the ``mkdir -p`` before it)."""
    if not isinstance(exc, OSError) or not exc.errno:
        return ToolResult.failure(f"Error writing to file: {exc}", ToolErrorType.FILE_WRITE_FAILURE)
    code = errno.errorcode.get(exc.errno, "UNKNOWN")
    special = {
        errno.EACCES: (
            f"Permission denied writing to file: {path} ({code})",
            ToolErrorType.PERMISSION_DENIED,
        ),
        errno.ENOSPC: (f"No space left on device: {path} ({code})", ToolErrorType.NO_SPACE_LEFT),
        errno.EISDIR: (
            f"Target is a directory, not a file: {path} ({code})",
            ToolErrorType.TARGET_IS_DIRECTORY,
        ),
    }.get(exc.errno)
    if special is not None:
        return ToolResult.failure(*special)
    target = os.fsdecode(exc.filename) if exc.filename is not None else path
    if mkdir:
        detail = node_error_message(exc, "mkdir", target)
    else:
        syscall = "rename" if exc.filename2 is not None else "open"
        detail = f"atomicWriteFile({json.dumps(path, ensure_ascii=False)}): "
        detail += node_error_message(exc, syscall, target)
    message = f"Error writing to file '{path}': {detail} ({code})"
    return ToolResult.failure(message, ToolErrorType.FILE_WRITE_FAILURE)


def check_failed(exc: OSError, path: str) -> ToolResult:
    """Reading the existing file (before overwriting it) failed."""
    if exc.errno:
        code = errno.errorcode.get(exc.errno, "UNKNOWN")
        detail = node_error_message(exc, "open", path)
        message = f"Error checking existing file '{path}': {detail} ({code})"
    else:
        message = f"Error checking existing file: {exc}"
    return ToolResult.failure(message, ToolErrorType.FILE_WRITE_FAILURE)


def problem_result(problem: PriorReadProblem) -> ToolResult:
    """The prior-read check refused the write."""
    display = f"Error: {problem.display_message}" if problem.display_message else problem.message
    return ToolResult.failure(problem.message, problem.error_type, display=display)
