"""Putting MCP tools into a :class:`~qwen_tools.ToolRegistry`, and finding them by old names.

:func:`register_mcp_tools` replaces each server's earlier registration with its current tools
(a reconnected server may list different ones). A tool whose name is taken by a non-MCP tool
is skipped with a warning. :func:`resolve_mcp_alias` finds a tool by one of its aliases —
Qwen Code 0.24.4's ``mcp__<server>__<tool>`` names — for a registry look-up that missed.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from .._registry.registry import ToolRegistrationError

if TYPE_CHECKING:
    from .._contract.declarative import BaseDeclarativeTool
    from .._registry.registry import ToolRegistry
    from .manager import McpManager
    from .tool import McpTool

logger = logging.getLogger("qwen_tools.mcp")


async def register_mcp_tools(registry: ToolRegistry, manager: McpManager) -> list[McpTool]:
    """Register the tools of every connected server; returns those registered.

    Starts the manager first if nobody did.
    """
    if not manager.started:
        await manager.start()
    for server in manager.server_names:
        registry.remove_tools_by_server(server)
    registered: list[McpTool] = []
    for tool in manager.tools():
        try:
            registry.register_tool(tool)
        except ToolRegistrationError as exc:
            logger.warning(
                "MCP tool '%s' of server '%s' skipped: %s", tool.name, tool.server_name, exc
            )
            continue
        registered.append(tool)
    return registered


def resolve_mcp_alias(registry: ToolRegistry, name: str) -> BaseDeclarativeTool[Any] | None:
    """The MCP tool one of whose aliases is ``name`` (``None`` if there is none)."""
    if not name.startswith("mcp__"):
        return None
    for tool in registry.get_all_tools():
        if tool.server_name is not None and name in getattr(tool, "aliases", ()):
            return tool
    return None
