"""The ``edit`` computation: from params and the file's current text to new text or a refusal.

:func:`plan_edit` is pure (no file access, no prior-read checks): it applies Qwen Code 0.24.4's
``calculateEdit`` rules and error table in their order, plus our ``expected_replacements`` and
the closest-lines hint for a string that is not found. :func:`read_current` reads the file the
way the edit sees it: decoded, with CRLF turned into LF, through a descriptor checked to lie
inside the workspace (so a name swapped for an outside symlink is never read).
"""

from __future__ import annotations

import errno
from dataclasses import dataclass

from qwen_tools.contract.errors import ToolErrorType
from qwen_tools.fs.confined import read_confined_bytes
from qwen_tools.fs.text_file import DEFAULT_TEXT_INFO, TextEncodingInfo, decode_text_file
from qwen_tools.tools.common.paths import node_error_message
from qwen_tools.tools.edit.matching import (
    apply_replacement,
    closest_match_hint,
    count_occurrences,
    maybe_augment_old_string_for_deletion,
    normalize_edit_strings,
)
from qwen_tools.tools.edit.params import EditParams

__all__ = ["CurrentFile", "EditPlan", "EditPlanError", "error_message", "plan_edit", "read_current"]


@dataclass(frozen=True, slots=True)
class EditPlanError:
    """Why an edit is refused: ``raw`` goes to the model, ``display`` to the user."""

    raw: str
    display: str
    type: ToolErrorType


@dataclass(frozen=True, slots=True)
class CurrentFile:
    """An existing file as the edit sees it: text with LF line endings, and its stored format."""

    text: str
    info: TextEncodingInfo


@dataclass(frozen=True, slots=True)
class EditPlan:
    """The outcome of computing an edit (``error`` set when it is refused)."""

    current_content: str | None
    new_content: str
    occurrences: int = 0
    error: EditPlanError | None = None
    is_new_file: bool = False
    info: TextEncodingInfo = DEFAULT_TEXT_INFO

    @classmethod
    def refused(cls, raw: str, display: str, error_type: ToolErrorType) -> EditPlan:
        """A plan that only carries an error (prior-read refusals)."""
        return cls(None, "", error=EditPlanError(raw, display, error_type))


def error_message(exc: BaseException, syscall: str, path: str) -> str:
    """Node's wording for a file-system error (``ENOENT: no such file …, open '<p>'``)."""
    if isinstance(exc, OSError) and exc.errno is not None:
        target = exc.filename if isinstance(exc.filename, str) else path
        return node_error_message(exc, syscall, target)
    return str(exc) or type(exc).__name__


def read_current(path: str, roots: tuple[str, ...]) -> CurrentFile | None:
    """The file's text (CRLF → LF) and format, or ``None`` when it does not exist.

    The file is opened and checked to lie inside ``roots`` (realpath-resolved directories):
    :class:`~qwen_tools.fs.confined.OutsideRootsError` when it does not. A FIFO, socket or
    device raises ``EINVAL`` instead of blocking. Other ``OSError``\\ s propagate (the caller
    reports them as ``Error preparing edit``).
    """
    try:
        decoded = decode_text_file(read_confined_bytes(path, roots))
    except OSError as exc:
        if exc.errno in (errno.ENOENT,):
            return None
        raise
    return CurrentFile(decoded.text.replace("\r\n", "\n"), decoded.info)


def _not_found(path: str) -> EditPlanError:
    return EditPlanError(
        f"File not found: {path}",
        "File not found. Cannot apply edit. Use an empty old_string to create a new file.",
        ToolErrorType.FILE_NOT_FOUND,
    )


def _no_occurrence(path: str, content: str, old_string: str, hint: bool) -> EditPlanError:
    raw = (
        f"Failed to edit, 0 occurrences found for old_string in {path}. No edits made. The "
        "exact text in old_string was not found. Ensure you're not escaping content "
        "incorrectly and check whitespace, indentation, and context. Use read_file tool to "
        "verify."
    )
    note = closest_match_hint(content, old_string) if hint else None
    if note is not None:
        raw = f"{raw}\n\n{note}"
    return EditPlanError(
        raw,
        "Failed to edit, could not find the string to replace.",
        ToolErrorType.EDIT_NO_OCCURRENCE_FOUND,
    )


def _count_error(
    path: str, occurrences: int, replace_all: bool, expected: int | None
) -> EditPlanError | None:
    if expected is not None and occurrences != expected:
        term = "occurrence" if expected == 1 else "occurrences"
        return EditPlanError(
            f"Failed to edit, Expected {expected} {term} but found {occurrences} for "
            f"old_string in file: {path}",
            f"Failed to edit, expected {expected} {term} but found {occurrences}.",
            ToolErrorType.EDIT_EXPECTED_OCCURRENCE_MISMATCH,
        )
    if expected is None and not replace_all and occurrences > 1:
        return EditPlanError(
            f"Failed to edit. Found {occurrences} occurrences for old_string in {path} but "
            "replace_all was not enabled.",
            "Failed to edit because the text matches multiple locations. Provide more context "
            "or set replace_all to true.",
            ToolErrorType.EDIT_EXPECTED_OCCURRENCE_MISMATCH,
        )
    return None


def plan_edit(
    params: EditParams, current: CurrentFile | str | None, *, hint: bool = True
) -> EditPlan:
    """Compute the edit of ``current`` (``None``: the file does not exist) that ``params`` ask.

    The checks run in the reference's order: missing file, create over an existing file, no
    occurrence, wrong number of occurrences, identical strings, then unchanged content.
    ``hint=False`` leaves the closest-lines note out of a "not found" error.
    """
    path = str(params["file_path"])
    if isinstance(current, str):
        current = CurrentFile(current, DEFAULT_TEXT_INFO)
    content = None if current is None else current.text
    info = DEFAULT_TEXT_INFO if current is None else current.info
    requested_old = str(params["old_string"])
    old, new = normalize_edit_strings(content, requested_old, str(params["new_string"]))
    replace_all = bool(params.get("replace_all") or False)
    expected = params.get("expected_replacements")
    occurrences = 0
    error: EditPlanError | None = None
    is_new_file = False
    if content is None:
        if old == "":
            is_new_file = True
        else:
            error = _not_found(path)
    else:
        old = maybe_augment_old_string_for_deletion(content, old, new)
        occurrences = count_occurrences(content, old)
        if requested_old == "":
            error = EditPlanError(
                f"File already exists, cannot create: {path}",
                "Failed to edit. Attempted to create a file that already exists.",
                ToolErrorType.ATTEMPT_TO_CREATE_EXISTING_FILE,
            )
        elif occurrences == 0:
            error = _no_occurrence(path, content, requested_old, hint)
        else:
            error = _count_error(path, occurrences, replace_all, expected)
            if error is None and old == new:
                error = EditPlanError(
                    "No changes to apply. The old_string and new_string are identical in "
                    f"file: {path}",
                    "No changes to apply. The old_string and new_string are identical.",
                    ToolErrorType.EDIT_NO_CHANGE,
                )
    if error is not None:
        new_content = content or ""
    else:
        new_content = apply_replacement(content, old, new, is_new_file)
        if content is not None and new_content == content:
            error = EditPlanError(
                "No changes to apply. The new content is identical to the current content in "
                f"file: {path}",
                "No changes to apply. The new content is identical to the current content.",
                ToolErrorType.EDIT_NO_CHANGE,
            )
    return EditPlan(content, new_content, occurrences, error, is_new_file, info)
