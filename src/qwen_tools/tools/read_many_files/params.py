"""``ReadManyFilesParams``: the params of ``read_many_files``, typed as its schema declares them."""

from __future__ import annotations

from typing import Required, TypedDict

from qwen_tools.tools.common.filtering import FileFilteringParams

__all__ = ["ReadManyFilesParams"]


class ReadManyFilesParams(TypedDict, total=False):
    """``read_many_files``'s params: the patterns to read, more to add or leave out, switches."""

    paths: Required[list[str]]
    include: list[str]
    exclude: list[str]
    recursive: bool
    useDefaultExcludes: bool  # the reference's camelCase name
    file_filtering_options: FileFilteringParams
