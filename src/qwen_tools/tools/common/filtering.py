"""``FileFilteringParams``: the ``file_filtering_options`` param of list_directory and read_many_files.

Both tools declare the same two switches (with their own descriptions); a switch left out
falls back to the session's setting.
"""

from __future__ import annotations

from typing import TypedDict

__all__ = ["FileFilteringParams"]


class FileFilteringParams(TypedDict, total=False):
    """Which ignore files filter the answer (each defaults to the setting)."""

    respect_git_ignore: bool
    respect_qwen_ignore: bool
