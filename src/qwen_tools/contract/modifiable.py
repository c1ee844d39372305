"""Tools whose proposed change the user may rewrite before it runs ("modify with editor").

A modifiable tool hands out a :class:`ModifyContext`: where the file is, what it holds now, what
the call would make of it, and how to turn the user's rewritten content back into params.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

__all__ = ["ModifiableTool", "ModifyContext", "is_modifiable"]


class ModifyContext(Protocol):
    """The hooks a confirmation UI needs to let the user rewrite a proposed file change."""

    def get_file_path(self, params: dict[str, Any]) -> str:
        """The absolute path of the file the call changes."""
        ...

    async def get_current_content(self, params: dict[str, Any]) -> str:
        """The file's content now (``""`` when it does not exist)."""
        ...

    async def get_proposed_content(self, params: dict[str, Any]) -> str:
        """The content the call would write."""
        ...

    def create_updated_params(
        self, old_content: str, modified_proposed: str, original_params: dict[str, Any]
    ) -> dict[str, Any]:
        """Params that write ``modified_proposed`` over ``old_content`` instead."""
        ...


@runtime_checkable
class ModifiableTool(Protocol):
    """A tool that supports modify-with-editor."""

    def get_modify_context(self) -> ModifyContext:
        """The hooks for this tool's calls."""
        ...


def is_modifiable(tool: object) -> bool:
    """Whether ``tool`` supports modify-with-editor (it has a callable ``get_modify_context``)."""
    return callable(getattr(tool, "get_modify_context", None))
