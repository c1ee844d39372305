"""``WriteFileParams``: the params of ``write_file``, typed as its schema declares them."""

from __future__ import annotations

from typing import Required, TypedDict

__all__ = ["WriteFileParams"]


class WriteFileParams(TypedDict, total=False):
    """``write_file``'s params: the file and its whole new content.

    Modify-with-editor adds ``modified_by_user`` and ``ai_proposed_content`` (see
    ``WriteFileModifyContext``); they are not declared to the model, so they are not part of
    this type and are read as untyped values.
    """

    file_path: Required[str]
    content: Required[str]
    record_as_artifact: bool
