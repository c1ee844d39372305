"""``BaseDeclarativeTool``: a tool described by a JSON schema that validates params into invocations."""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, cast

from qwen_tools.contract.abort import AbortSignal
from qwen_tools.contract.errors import ToolParamsError
from qwen_tools.contract.invocation import ParamsT, ToolInvocation, UpdateOutput
from qwen_tools.contract.kinds import CONCURRENCY_SAFE_KINDS, Kind
from qwen_tools.contract.results import ToolResult
from qwen_tools.contract.validation import validate_params


@dataclass(frozen=True, slots=True)
class FunctionDeclaration:
    """What the model is told about a tool: name, description and a JSON schema for the params."""

    name: str
    description: str
    parameters_json_schema: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """Serialise as the reference declares it (``parametersJsonSchema``)."""
        return {
            "name": self.name,
            "description": self.description,
            "parametersJsonSchema": copy.deepcopy(self.parameters_json_schema),
        }


class BaseDeclarativeTool(ABC, Generic[ParamsT]):
    """Base class of every tool.

    Subclasses give the identity (name, display name, description, kind), a JSON schema for
    the params, optional value checks in :meth:`validate_tool_param_values`, and build the
    invocation in :meth:`create_invocation`. ``build()`` runs schema validation (with the
    reference's coercions and messages), then the value checks, then creates the invocation.

    By default params arrive as a ``dict``; override :meth:`parse_params` to turn them into a
    typed object (see :class:`~qwen_tools.ModelDeclarativeTool` for pydantic models).
    """

    server_name: str | None = None
    """Name of the MCP server that provides this tool (``None`` for everything else)."""

    max_output_chars: float | None = None
    """Output budget of this tool: ``None`` = the global threshold (chars and lines);
    ``math.inf`` = the tool bounds its own output (exempt); a number = this many chars."""

    truncate_keep: Literal["head", "tail", "both"] = "both"
    """Which end of an over-budget output the truncation keeps."""

    def __init__(
        self,
        name: str,
        display_name: str,
        description: str,
        kind: Kind,
        parameter_schema: Mapping[str, Any] | None,
        *,
        is_output_markdown: bool = True,
        can_update_output: bool = False,
    ) -> None:
        self.name = name
        self.display_name = display_name
        self.description = description
        self.kind = kind
        self.parameter_schema: dict[str, Any] = dict(parameter_schema or {})
        self.is_output_markdown = is_output_markdown
        self.can_update_output = can_update_output

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, kind={self.kind.value!r})"

    @property
    def schema(self) -> FunctionDeclaration:
        """The function declaration handed to the model."""
        return FunctionDeclaration(self.name, self.description, self.parameter_schema)

    def is_concurrency_safe(self, params: ParamsT) -> bool:
        """Whether this call may run in parallel with its neighbours in a batch.

        By default, tools of kind read, search and fetch are; the shell tool refines this
        per command.
        """
        return self.kind in CONCURRENCY_SAFE_KINDS

    # -- validation -------------------------------------------------------------------------

    def parse_params(self, params: dict[str, Any]) -> ParamsT:
        """Turn schema-valid params into the tool's params type (identity by default).

        Raise :class:`ToolParamsError` to reject them with a model-facing message.
        """
        return cast(ParamsT, params)

    def validate_tool_param_values(self, params: ParamsT) -> str | None:
        """Checks beyond the schema; return an error message or ``None``. May normalise params."""
        return None

    def _validate(self, params: Any) -> tuple[ParamsT | None, str | None]:
        data, error = validate_params(self.parameter_schema, params)
        if error is not None:
            return None, error
        try:
            typed = self.parse_params(data)
        except ToolParamsError as exc:
            return None, str(exc)
        error = self.validate_tool_param_values(typed)
        return (None, error) if error is not None else (typed, None)

    def validate_tool_params(self, params: Any) -> str | None:
        """Schema validation followed by the value checks; the first error message or ``None``."""
        return self._validate(params)[1]

    # -- building and running ---------------------------------------------------------------

    @abstractmethod
    def create_invocation(self, params: ParamsT) -> ToolInvocation[ParamsT]:
        """Create the invocation for already-validated params."""

    def build(self, params: Any) -> ToolInvocation[ParamsT]:
        """Validate ``params`` and return an invocation; raises :class:`ToolParamsError`."""
        typed, error = self._validate(params)
        if error is not None or typed is None:
            raise ToolParamsError(error or "Invalid parameters")
        return self.create_invocation(typed)

    async def build_and_execute(
        self,
        params: Any,
        signal: AbortSignal | None = None,
        update_output: UpdateOutput | None = None,
    ) -> ToolResult:
        """Build and execute in one step (no confirmation); raises on invalid params."""
        invocation = self.build(params)
        return await invocation.execute(signal or AbortSignal.never(), update_output)
