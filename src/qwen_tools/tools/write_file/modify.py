"""The file ``write_file`` replaces, read inside the workspace, and the modify-with-editor hooks.

The user may rewrite ``content`` in an editor before the write (:class:`WriteFileModifyContext`);
the params then carry ``modified_by_user`` and ``ai_proposed_content``, as the reference's do.
"""

from __future__ import annotations

from typing import Any

import anyio

from qwen_tools.config.config import Config
from qwen_tools.fs.confined import read_confined_bytes
from qwen_tools.fs.text_file import DecodedText, decode_text_file


def read_existing(path: str, roots: tuple[str, ...]) -> DecodedText:
    """The file's text and format, read through a descriptor checked inside ``roots``.

    Raises :class:`~qwen_tools.fs.confined.OutsideRootsError` when what opens is outside,
    ``EINVAL`` for a FIFO, socket or device, and any other ``OSError`` of the open or read.
    """
    return decode_text_file(read_confined_bytes(path, roots))


def _read_current(path: str, roots: tuple[str, ...]) -> str:
    """The file's text, ``""`` when it does not exist (any other ``OSError`` propagates)."""
    try:
        return read_existing(path, roots).text
    except FileNotFoundError:
        return ""


class WriteFileModifyContext:
    """Modify-with-editor hooks of ``write_file``: the user rewrites ``content``."""

    def __init__(self, config: Config | None = None) -> None:
        self.config = config

    def get_file_path(self, params: dict[str, Any]) -> str:
        """The file the call writes."""
        return str(params["file_path"])

    async def get_current_content(self, params: dict[str, Any]) -> str:
        """The file's text now (``""`` for a new file), read only inside the workspace."""
        path = str(params["file_path"])
        roots = self.config.workspace.roots() if self.config is not None else ("/",)
        return await anyio.to_thread.run_sync(_read_current, path, roots)

    async def get_proposed_content(self, params: dict[str, Any]) -> str:
        """The content the model asked to write."""
        return str(params["content"])

    def create_updated_params(
        self, old_content: str, modified_proposed: str, original_params: dict[str, Any]
    ) -> dict[str, Any]:
        """Write the user's content instead, remembering what the model proposed."""
        return {
            **original_params,
            "ai_proposed_content": original_params["content"],
            "content": modified_proposed,
            "modified_by_user": True,
        }
