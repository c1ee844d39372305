"""``ModelDeclarativeTool``: a tool whose params are a pydantic model.

The JSON schema the model sees is generated from the model (titles removed); validation still
runs the reference's schema pass first (same coercions, same error texts), then pydantic builds
the typed params, so custom validators work too.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast

from qwen_tools.contract.declarative import BaseDeclarativeTool
from qwen_tools.contract.errors import ToolParamsError
from qwen_tools.contract.kinds import Kind

if TYPE_CHECKING:
    from pydantic import BaseModel

ModelT = TypeVar("ModelT", bound="BaseModel")


def _strip_titles(node: Any, *, in_properties: bool = False) -> Any:
    """Drop pydantic's ``title`` annotations (but keep properties that are *named* title)."""
    if isinstance(node, dict):
        return {
            key: _strip_titles(
                value, in_properties=(key in ("properties", "$defs") and not in_properties)
            )
            for key, value in node.items()
            if in_properties or key != "title" or not isinstance(value, str)
        }
    if isinstance(node, list):
        return [_strip_titles(item) for item in node]
    return node


def schema_from_model(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON schema of a pydantic model as a tool declares it."""
    schema = _strip_titles(model.model_json_schema())
    schema.setdefault("type", "object")
    schema.setdefault("properties", {})
    return cast(dict[str, Any], schema)


def _pydantic_error_text(exc: Any) -> str:
    errors = exc.errors()
    if not errors:
        return str(exc)
    first = errors[0]
    path = "".join(f"/{part}" for part in first.get("loc", ()))
    message = str(first.get("msg", "is invalid"))
    message = re.sub(r"^Value error, ", "", message)
    return f"params{path} {message}"


class ModelDeclarativeTool(BaseDeclarativeTool[ModelT], Generic[ModelT]):
    """A tool whose params are declared (and typed) by a pydantic model."""

    def __init__(
        self,
        name: str,
        display_name: str,
        description: str,
        kind: Kind,
        params_model: type[ModelT],
        *,
        is_output_markdown: bool = True,
        can_update_output: bool = False,
    ) -> None:
        super().__init__(
            name,
            display_name,
            description,
            kind,
            schema_from_model(params_model),
            is_output_markdown=is_output_markdown,
            can_update_output=can_update_output,
        )
        self.params_model = params_model

    def parse_params(self, params: dict[str, Any]) -> ModelT:
        """Build the model; a pydantic validation error becomes a model-facing message."""
        from pydantic import ValidationError

        try:
            return self.params_model.model_validate(params)
        except ValidationError as exc:
            raise ToolParamsError(_pydantic_error_text(exc)) from None
