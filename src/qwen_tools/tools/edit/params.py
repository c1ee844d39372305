"""``EditParams``: the params of ``edit``, typed as its schema declares them."""

from __future__ import annotations

from typing import Required, TypedDict

__all__ = ["EditParams"]


class EditParams(TypedDict, total=False):
    """``edit``'s params: the file, the text to replace, its replacement, how many to replace.

    Modify-with-editor adds ``modified_by_user`` and ``ai_proposed_content`` to the params it
    rewrites (see ``EditModifyContext``); they are not declared to the model, so they are not
    part of this type and are read as untyped values.
    """

    file_path: Required[str]
    old_string: Required[str]
    new_string: Required[str]
    replace_all: bool
    expected_replacements: int
