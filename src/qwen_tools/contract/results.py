"""``ToolResult``: what a tool returns (content for the model, display for the user, an error)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from qwen_tools.contract.errors import ToolError, ToolErrorType
from qwen_tools.contract.parts import PartListUnion, content_to_json

if TYPE_CHECKING:  # the display classes are imported by the tools that build them
    from qwen_tools.contract.display import ToolResultDisplay


@dataclass(slots=True)
class ToolResult:
    """The outcome of one execution.

    ``llm_content`` goes to the model on success; on failure (``error`` set) the model receives
    ``error.message`` instead. ``return_display`` is for the user.
    """

    llm_content: PartListUnion
    return_display: ToolResultDisplay | None = None
    error: ToolError | None = None
    result_file_paths: list[str] = field(default_factory=list)
    output_budget_applied: bool = False
    """The tool already bounded its own output, so the scheduler's output budget skips it."""
    interrupted: bool = False
    """The tool stopped early because its abort signal fired: it did not complete."""

    @property
    def is_error(self) -> bool:
        """Whether this result reports a failure."""
        return self.error is not None

    @classmethod
    def failure(
        cls,
        message: str,
        error_type: ToolErrorType,
        *,
        llm_content: PartListUnion | None = None,
        display: ToolResultDisplay | None = None,
    ) -> ToolResult:
        """A failed result; ``llm_content`` and the display default to ``message``."""
        return cls(
            llm_content=message if llm_content is None else llm_content,
            return_display=message if display is None else display,
            error=ToolError(message, error_type),
        )

    def to_dict(self) -> dict[str, Any]:
        """Serialise with the reference's camelCase keys."""
        from qwen_tools.contract.display import display_to_json

        return {
            "llmContent": content_to_json(self.llm_content),
            "returnDisplay": display_to_json(self.return_display),
            "error": self.error.to_dict() if self.error else None,
        }
