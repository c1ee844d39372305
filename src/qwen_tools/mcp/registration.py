"""Putting MCP tools into a :class:`~qwen_tools.ToolRegistry`, and finding them by old names.

:func:`register_mcp_tools` replaces each server's earlier registration with its current tools
(a reconnected server may list different ones). A tool whose name is taken by a non-MCP tool
is skipped with a warning. The registry finds a tool by its aliases too (Qwen Code 0.24.4's
``mcp__<server>__<tool>`` names).

With any server configured, the registry also gets ``read_mcp_resource`` and
``list_mcp_resources`` (:mod:`.resource_tools`). The registry also gets a hint (:func:`unavailable_server_note`): a call of a tool of a server
that failed to connect is answered with the server's name and reason, after the reference's
"not found" sentence, instead of name suggestions.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from qwen_tools.mcp.connection import McpServerStatus
from qwen_tools.mcp.failures import unavailable_text
from qwen_tools.mcp.naming import may_name_a_tool_of
from qwen_tools.registry.registry import ToolRegistrationError

if TYPE_CHECKING:
    from qwen_tools.mcp.manager import McpManager
    from qwen_tools.mcp.tool import McpTool
    from qwen_tools.registry.registry import ToolRegistry

logger = logging.getLogger("qwen_tools.mcp")

PENDING_APPROVAL = (
    'Tool "{tool}" is unavailable: the MCP server "{server}" is awaiting approval, so its tools '
    "are not loaded. Approve it (run /mcp) to use this tool."
)


async def register_mcp_tools(registry: ToolRegistry, manager: McpManager) -> list[McpTool]:
    """Register the tools of every connected server; returns those registered.

    Starts the manager first if nobody did.
    """
    if not manager.started:
        await manager.start()
    return sync_mcp_tools(registry, manager)


def sync_mcp_tools(registry: ToolRegistry, manager: McpManager) -> list[McpTool]:
    """Register the tools of the servers connected now (starting none); returns them."""
    registry.set_missing_tool_hint("mcp", lambda name: unavailable_server_note(manager, name))
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
    _register_resource_tools(registry, manager)
    return registered


def _register_resource_tools(registry: ToolRegistry, manager: McpManager) -> None:
    """``read_mcp_resource`` and ``list_mcp_resources``, once, when any server is configured."""
    from qwen_tools.mcp.resource_tools import (
        LIST_NAME,
        READ_NAME,
        ListMcpResourcesTool,
        ReadMcpResourceTool,
    )

    if not manager.server_names and not manager.pending:
        return

    def on_connect() -> None:
        sync_mcp_tools(registry, manager)

    for name, make in ((READ_NAME, ReadMcpResourceTool), (LIST_NAME, ListMcpResourcesTool)):
        if registry.get_tool(name) is None:
            try:
                registry.register_tool(make(manager, on_connect))
            except ToolRegistrationError as exc:
                logger.warning("MCP resource tool '%s' skipped: %s", name, exc)


def unavailable_server_note(manager: McpManager, name: str) -> str | None:
    """Why tool ``name`` is missing if it may belong to a server that was tried and failed,
    or to a gated server awaiting approval (0.24.4's sentence)."""
    for server in manager.pending:
        if may_name_a_tool_of(name, server):
            return PENDING_APPROVAL.format(tool=name, server=server)
    notes = [
        unavailable_text(server, manager.last_error(server))
        for server in manager.server_names
        if manager.attempted(server)
        and manager.status(server) is not McpServerStatus.CONNECTED
        and may_name_a_tool_of(name, server)
    ]
    return " ".join(f"{note}." if not note.endswith(".") else note for note in notes) or None
