"""What a connected MCP server lists: the tools the model may see, and whether it offers anything.

Every list call follows its pages (a repeated cursor ends the walk); prompts and resources are
only asked of a server declaring them, as the reference does. A tool hidden from the model
(``_meta.ui.visibility`` without ``"model"``) or callable only as an MCP task is left out; a
server that offers nothing at all is a failure (:data:`NOTHING_FOUND`).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from qwen_tools.mcp.failures import CONNECTION_CLOSED

if TYPE_CHECKING:
    from mcp.client import Client

logger = logging.getLogger("qwen_tools.mcp")

NOTHING_FOUND = "No prompts, tools, or resources found on the server."
_METHOD_NOT_FOUND = -32601


@dataclass(frozen=True, slots=True)
class McpToolInfo:
    """A tool as the server lists it (wire names for the annotations)."""

    name: str
    description: str
    input_schema: dict[str, Any]
    annotations: dict[str, Any] = field(default_factory=dict)


async def list_tools(client: Client, server: str) -> tuple[McpToolInfo, ...]:
    """The tools of ``server`` the model may call; raises when the server offers nothing."""
    listed = await _all_pages(client.list_tools, "tools")
    others = 0
    # As the reference: prompts (and resources) are only asked of a server declaring them.
    capabilities = client.server_capabilities
    for method, key, declared in (
        (client.list_prompts, "prompts", capabilities.prompts),
        (client.list_resources, "resources", capabilities.resources),
    ):
        if declared is not None:
            others += len(await _all_pages(method, key))
    tools: dict[str, McpToolInfo] = {}
    hidden = False
    for tool in listed:
        if not tool.name:
            continue
        if tool.name in tools:
            logger.warning("MCP server '%s' lists tool '%s' twice", server, tool.name)
            continue
        if not _visible_to_model(tool.meta):
            hidden = True
            continue
        if tool.execution is not None and tool.execution.task_support == "required":
            # only callable as an MCP task, which this client does not run: every call
            # would fail, so the model is never offered it
            logger.info("MCP server '%s': tool '%s' needs tasks; skipped", server, tool.name)
            hidden = True
            continue
        annotations = (
            tool.annotations.model_dump(by_alias=True, exclude_none=True)
            if tool.annotations is not None
            else {}
        )
        tools[tool.name] = McpToolInfo(
            tool.name, tool.description or "", dict(tool.input_schema or {}), annotations
        )
    if not tools and not others and not hidden:
        raise RuntimeError(NOTHING_FOUND)
    return tuple(tools.values())


def _visible_to_model(meta: Any) -> bool:
    ui = meta.get("ui") if isinstance(meta, dict) else None
    if not isinstance(ui, dict) or ui.get("visibility") is None:
        return True
    visibility = ui["visibility"]
    return isinstance(visibility, list) and "model" in visibility


async def _all_pages(method: Callable[..., Awaitable[Any]], key: str) -> list[Any]:
    """Every item of a paginated list call; a server without the method lists nothing."""
    from mcp.shared.exceptions import MCPError

    items: list[Any] = []
    cursor: str | None = None
    seen: set[str] = set()
    while True:
        try:
            page = await method(cursor=cursor)
        except MCPError as exc:
            if exc.code == CONNECTION_CLOSED:
                raise
            if exc.code != _METHOD_NOT_FOUND:
                logger.debug("%s/list failed: %s", key, exc)
            return items
        items.extend(getattr(page, key))
        cursor = page.next_cursor
        if cursor is None or cursor in seen:
            return items
        seen.add(cursor)
