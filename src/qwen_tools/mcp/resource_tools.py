"""``read_mcp_resource`` (Qwen Code 0.24.4's) and ``list_mcp_resources`` (ours): MCP resources.

``read_mcp_resource {server_name, uri}`` reads one resource (``resources/read``) and returns its
contents framed as :mod:`.resource_content` does, with 0.24.4's parameters, limits, confirmation
(``Confirm MCP Resource Read`` unless the server is trusted in a trusted folder) and errors. Any
URI the server accepts can be read, so a ``Resource Link: ... at <uri>`` in a tool's result stays
readable.

0.24.4 has no tool to list resources (its UI shows them); ``list_mcp_resources {server_name?}``
lists the resources and resource templates of one server or of all, as JSON, so the model can
find the URIs to read. Both connect a server that was not connected yet (``mcp="on_demand"``).
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from qwen_tools.contract.abort import AbortError
from qwen_tools.contract.confirmation import InfoConfirmationDetails, ToolCallConfirmationDetails
from qwen_tools.contract.declarative import BaseDeclarativeTool
from qwen_tools.contract.errors import StructuredToolError, ToolErrorType
from qwen_tools.contract.invocation import BaseToolInvocation, ToolInvocation, UpdateOutput
from qwen_tools.contract.kinds import Kind
from qwen_tools.contract.results import ToolResult
from qwen_tools.jscompat.jsjson import js_stringify
from qwen_tools.mcp.failures import ConnectionLost
from qwen_tools.mcp.resource_content import (
    MAX_MCP_RESOURCE_BLOB_CHARS,
    empty_resource_text,
    format_resource_contents,
    summarize_resource,
)

if TYPE_CHECKING:
    from qwen_tools.contract.abort import AbortSignal
    from qwen_tools.mcp.connection import McpConnection
    from qwen_tools.mcp.manager import McpManager

__all__ = ["ListMcpResourcesTool", "ReadMcpResourceTool"]

READ_NAME = "read_mcp_resource"
LIST_NAME = "list_mcp_resources"
UNTRUSTED = "MCP resources are unavailable in untrusted folders."
NO_RESOURCES = "No resources found. MCP servers may still provide tools even without resources."
_MAX_TURN_BLOB_CHARS = MAX_MCP_RESOURCE_BLOB_CHARS * 3
_turn_blob_budget: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()

_READ_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "server_name": {
            "type": "string",
            "minLength": 1,
            "maxLength": 1024,
            "description": "The configured MCP server name.",
        },
        "uri": {
            "type": "string",
            "minLength": 1,
            "maxLength": 4096,
            "description": "The exact resource URI to read from that server.",
        },
    },
    "required": ["server_name", "uri"],
    "additionalProperties": False,
}
_LIST_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "server_name": {
            "type": "string",
            "minLength": 1,
            "maxLength": 1024,
            "description": "Only this configured MCP server (default: every server).",
        },
    },
    "additionalProperties": False,
}


def _failed(message: str) -> StructuredToolError:
    return StructuredToolError(message, ToolErrorType.EXECUTION_FAILED)


async def live_connection(manager: McpManager, name: str) -> McpConnection:
    """Server ``name``'s connection, connected now if it was not; raises the reference's errors."""
    if not manager.config.settings.trusted:
        raise _failed(UNTRUSTED)
    if name in manager.pending:
        raise _failed(f"MCP server '{name}' is pending approval.")
    if name not in manager.server_names:
        raise _failed(f"MCP server '{name}' is not configured.")
    connection = manager.connection(name)
    if not connection.connected:
        if manager.attempted(name):
            await manager.reconnect(name)
        else:
            await manager.connect([name])
    if not connection.connected:
        reason = connection.error or "not connected"
        raise _failed(f"MCP server '{name}' is {connection.status.value}: {reason}")
    return connection


class _ResourceTool(BaseDeclarativeTool[dict[str, Any]]):
    """What both tools share: the manager, and a hook run after a server got connected."""

    should_defer = True
    """Offered through ``tool_search`` / ``tool_call`` when deferral is on (as 0.24.4)."""

    def __init__(
        self,
        manager: McpManager,
        name: str,
        display_name: str,
        description: str,
        schema: dict[str, Any],
        on_connect: Callable[[], object] | None,
    ) -> None:
        super().__init__(name, display_name, description, Kind.FETCH, schema)
        self.manager = manager
        self.on_connect = on_connect

    async def connection(self, name: str) -> McpConnection:
        before = (
            self.manager.connection(name).generation if name in self.manager.server_names else 0
        )
        connection = await live_connection(self.manager, name)
        if connection.generation != before and self.on_connect is not None:
            self.on_connect()  # register the tools of a server connected just now
        return connection


class ReadMcpResourceTool(_ResourceTool):
    """``read_mcp_resource``: one resource of one server."""

    max_output_chars = float("inf")  # bounded by its own limits, as 0.24.4

    def __init__(self, manager: McpManager, on_connect: Callable[[], object] | None = None) -> None:
        super().__init__(
            manager,
            READ_NAME,
            "ReadMcpResource",
            "Reads a resource from a configured MCP server by server_name and URI. The server_name "
            "must be one of the configured MCP servers; the uri must be an exact resource URI the "
            "server offers (see list_mcp_resources) or one a tool result linked to.",
            _READ_SCHEMA,
            on_connect,
        )

    def create_invocation(self, params: dict[str, Any]) -> ToolInvocation[dict[str, Any]]:
        return _ReadInvocation(self, params)


class _ReadInvocation(BaseToolInvocation[dict[str, Any]]):
    def __init__(self, tool: ReadMcpResourceTool, params: dict[str, Any]) -> None:
        super().__init__(params)
        self.tool = tool

    def get_description(self) -> str:
        return f"{self.params['server_name']}:{self.params['uri']}"

    async def should_confirm_execute(
        self, signal: AbortSignal
    ) -> ToolCallConfirmationDetails | Literal[False]:
        server = self.params["server_name"]
        config = self.tool.manager.config
        entry = config.settings.mcp_servers.get(server)
        if entry is not None and entry.trust and config.settings.trusted:
            return False
        if server in config.session.always_allowed_mcp_servers:
            return False
        return InfoConfirmationDetails(
            title="Confirm MCP Resource Read",
            prompt=f'Read resource {self.params["uri"]} from MCP server "{server}"',
        )

    async def execute(
        self, signal: AbortSignal, update_output: UpdateOutput | None = None
    ) -> ToolResult:
        label = self.get_description()
        connection = await self.tool.connection(self.params["server_name"])
        uri = self.params["uri"]
        result: Any = None
        try:
            async with signal.cancel_scope():
                result = await connection.request(lambda client: client.read_resource(uri))
        except ConnectionLost as lost:
            raise _failed(str(lost)) from lost
        if signal.aborted or result is None:
            raise AbortError("Tool call aborted")
        contents = [c.model_dump(by_alias=True, exclude_none=True) for c in result.contents]
        try:
            used = _turn_blob_budget.get(signal, 0)
        except TypeError:  # a signal that cannot be weakly referenced: a budget per call
            used = 0
        formatted = format_resource_contents(
            contents,
            label,
            max_blob_chars=min(MAX_MCP_RESOURCE_BLOB_CHARS, max(0, _MAX_TURN_BLOB_CHARS - used)),
        )
        with contextlib.suppress(TypeError):
            _turn_blob_budget[signal] = used + formatted.blob_chars
        return ToolResult(
            llm_content=formatted.parts or empty_resource_text(formatted, label),
            return_display=f"Read resource {label} \u2014 {summarize_resource(formatted)}",
            output_budget_applied=True,
        )


class ListMcpResourcesTool(_ResourceTool):
    """``list_mcp_resources``: the resources and templates of one server, or of every server."""

    def __init__(self, manager: McpManager, on_connect: Callable[[], object] | None = None) -> None:
        super().__init__(
            manager,
            LIST_NAME,
            "ListMcpResources",
            "Lists the resources (and resource templates) that the configured MCP servers offer, "
            "as JSON with each resource's server, uri, name, description and mimeType. Read one "
            "with read_mcp_resource. Give server_name to list only that server.",
            _LIST_SCHEMA,
            on_connect,
        )

    def create_invocation(self, params: dict[str, Any]) -> ToolInvocation[dict[str, Any]]:
        return _ListInvocation(self, params)


class _ListInvocation(BaseToolInvocation[dict[str, Any]]):
    def __init__(self, tool: ListMcpResourcesTool, params: dict[str, Any]) -> None:
        super().__init__(params)
        self.tool = tool

    def get_description(self) -> str:
        return str(self.params.get("server_name") or "all servers")

    async def execute(
        self, signal: AbortSignal, update_output: UpdateOutput | None = None
    ) -> ToolResult:
        from qwen_tools.mcp.listing import _all_pages as all_pages

        manager = self.tool.manager
        only = self.params.get("server_name")
        names = [only] if only else list(manager.server_names)
        if not only:
            fresh = [n for n in names if not manager.attempted(n)]
            if fresh:
                await manager.connect(fresh)
                if self.tool.on_connect is not None:
                    self.tool.on_connect()
        found: list[dict[str, Any]] = []
        for name in names:
            if only:
                connection = await self.tool.connection(name)
            elif manager.connection(name).connected:
                connection = manager.connection(name)
            else:
                continue

            async def listed(client: Any) -> list[Any]:
                resources = await all_pages(client.list_resources, "resources")
                templates = await all_pages(client.list_resource_templates, "resource_templates")
                return [*resources, *templates]

            items: list[Any] = []
            try:
                async with signal.cancel_scope():
                    items = await connection.request(listed)
                found.extend(
                    {"server": name, **i.model_dump(by_alias=True, exclude_none=True)}
                    for i in items
                )
            except ConnectionLost as lost:
                if only:
                    raise _failed(str(lost)) from lost
        if signal.aborted:
            raise AbortError("Tool call aborted")
        if not found:
            return ToolResult(llm_content=NO_RESOURCES, return_display=NO_RESOURCES)
        return ToolResult(
            llm_content=js_stringify(found),
            return_display=f"Listed {len(found)} MCP resource(s)",
        )
