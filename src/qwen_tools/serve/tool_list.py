"""The ``tools/list`` entries of a served registry, exported once per tool version.

Exporting a tool (:func:`~qwen_tools.registry.exporters.to_mcp_tools`, then the SDK's ``Tool``
model) costs more than answering a small call, and the SDK asks for a tool's input schema on
calls too. :class:`ToolExports` keeps each tool's export and reuses it while the tool is the
same object with the same name, title, description, kind and parameter schema (compared by
value, so a schema changed in place is exported again); tools added to or removed from the
registry show up at the next request, as before.
"""

from __future__ import annotations

import copy
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import mcp_types as types

from qwen_tools.registry.exporters import to_mcp_tools

if TYPE_CHECKING:
    from qwen_tools.contract.declarative import BaseDeclarativeTool
    from qwen_tools.registry.registry import ToolRegistry

__all__ = ["ToolExports"]

logger = logging.getLogger("qwen_tools.serve")


@dataclass(frozen=True)
class _Export:
    tool: BaseDeclarativeTool[Any]
    key: tuple[str, str, str, str]
    parameters: dict[str, Any]
    entry: dict[str, Any] | None
    model: types.Tool | None


def _key(tool: BaseDeclarativeTool[Any]) -> tuple[str, str, str, str]:
    return (tool.name, tool.display_name, tool.description, str(tool.kind.value))


class ToolExports:
    """Each tool of ``registry`` as an MCP ``Tool`` (``None`` when its schema cannot be)."""

    def __init__(self, registry: ToolRegistry) -> None:
        self.registry = registry
        self._cache: dict[str, _Export] = {}

    def _export(self, tool: BaseDeclarativeTool[Any]) -> _Export:
        cached = self._cache.get(tool.name)
        if (
            cached is not None
            and cached.tool is tool
            and cached.key == _key(tool)
            and cached.parameters == tool.parameter_schema
        ):
            return cached
        parameters = copy.deepcopy(tool.parameter_schema)
        try:
            (entry,) = to_mcp_tools(
                [tool.schema], {tool.name: tool.kind}, titles={tool.name: tool.display_name}
            )
        except ValueError as exc:
            logger.warning("tool %s is not offered over MCP: %s", tool.name, exc)
            export = _Export(tool, _key(tool), parameters, None, None)
        else:
            export = _Export(tool, _key(tool), parameters, entry, types.Tool.model_validate(entry))
        self._cache[tool.name] = export
        return export

    def tools(self) -> list[types.Tool]:
        """The ``tools/list`` entries, sorted by name."""
        tools = sorted(self.registry.get_all_tools(), key=lambda t: t.name)
        current = {tool.name for tool in tools}
        for gone in self._cache.keys() - current:
            del self._cache[gone]
        exported = (self._export(tool).model for tool in tools)
        return [model for model in exported if model is not None]

    def input_schema(self, name: str) -> dict[str, Any] | None:
        """The exported input schema of ``name`` (``None`` for an unknown tool)."""
        tool = self.registry.get_tool(name)
        entry = self._export(tool).entry if tool is not None else None
        return entry["inputSchema"] if entry is not None else None
