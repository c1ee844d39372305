"""The user's answer to a confirmation prompt, and what may come with it.

The prompts themselves (the confirmation details a tool gives) are in :mod:`.confirmation`; a call
that asks nothing needs only this module.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = ["ToolConfirmationOutcome", "ToolConfirmationPayload"]


class ToolConfirmationOutcome(StrEnum):
    """The user's answer to a confirmation prompt."""

    PROCEED_ONCE = "proceed_once"
    PROCEED_ALWAYS = "proceed_always"
    PROCEED_ALWAYS_SERVER = "proceed_always_server"
    PROCEED_ALWAYS_TOOL = "proceed_always_tool"
    PROCEED_ALWAYS_PROJECT = "proceed_always_project"  # persist to the workspace's settings
    PROCEED_ALWAYS_USER = "proceed_always_user"  # persist to the user's settings
    MODIFY_WITH_EDITOR = "modify_with_editor"
    CANCEL = "cancel"

    @property
    def proceeds(self) -> bool:
        """Whether the call goes ahead."""
        return self not in (
            ToolConfirmationOutcome.CANCEL,
            ToolConfirmationOutcome.MODIFY_WITH_EDITOR,
        )


@dataclass(frozen=True, slots=True)
class ToolConfirmationPayload:
    """Extra data sent with an answer: edited content (inline modify) or a cancel reason."""

    new_content: str | None = None
    cancel_message: str | None = None
