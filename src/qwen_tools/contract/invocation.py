"""``ToolInvocation``: one validated call of a tool, ready to describe, confirm and execute."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, Literal, TypeAlias, TypeVar

from qwen_tools.contract.abort import AbortSignal
from qwen_tools.contract.results import ToolResult

if TYPE_CHECKING:  # the display classes are imported by the tools that build them
    from qwen_tools.contract.confirmation import ToolCallConfirmationDetails
    from qwen_tools.contract.display import ToolResultDisplay

ParamsT = TypeVar("ParamsT")

UpdateOutput: TypeAlias = Callable[["ToolResultDisplay"], None]
"""Callback a tool calls with live output while it runs."""


@dataclass(frozen=True, slots=True)
class ToolLocation:
    """A file a call touches (absolute path), optionally a line in it."""

    path: str
    line: int | None = None


class ToolInvocation(ABC, Generic[ParamsT]):
    """A tool call with validated params: describe it, confirm it, execute it."""

    params: ParamsT

    @abstractmethod
    def get_description(self) -> str:
        """One line (Markdown) saying what this call will do."""

    def tool_locations(self) -> list[ToolLocation]:
        """The files this call will touch."""
        return []

    async def should_confirm_execute(
        self, signal: AbortSignal
    ) -> ToolCallConfirmationDetails | Literal[False]:
        """Details to show the user before running, or ``False`` when no confirmation is needed."""
        return False

    @abstractmethod
    async def execute(
        self, signal: AbortSignal, update_output: UpdateOutput | None = None
    ) -> ToolResult:
        """Run the call; honour ``signal`` and stream through ``update_output`` if given."""


class BaseToolInvocation(ToolInvocation[ParamsT], ABC):
    """Convenience base: stores ``params``; subclasses implement description and execution."""

    def __init__(self, params: ParamsT) -> None:
        self.params = params
