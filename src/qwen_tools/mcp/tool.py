"""``McpTool``: one tool of an MCP server, declared to the model and called through the server.

As Qwen Code 0.24.4's ``DiscoveredMCPTool``: display name ``<tool> (<server> MCP Server)``; kind
``read`` when the server annotates ``readOnlyHint: true``, else ``other``; live progress; an
output budget of 500,000 characters; ``get_description()`` is the params as compact JSON;
confirmation ``Confirm MCP Tool Execution`` unless the server is trusted (``trust: true`` in a
trusted folder) or the session always-allows the server or the tool.

Execution: ``tools/call`` with the server's ``timeout`` (default 600,000 ms) and an idle timeout
(default 300,000 ms, reset by every progress notification). An abort cancels the request (the
SDK sends ``notifications/cancelled``). A server found disconnected is reconnected once before
the call; a connection lost *during* the call is reconnected and the call replayed only when
that is safe (a trusted server whose annotations say idempotent or read-only), otherwise the
reference's "may have completed" error is returned.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

import anyio

from qwen_tools.contract.abort import AbortError, AbortSignal
from qwen_tools.contract.confirmation import McpConfirmationDetails, ToolCallConfirmationDetails
from qwen_tools.contract.declarative import BaseDeclarativeTool
from qwen_tools.contract.display import McpToolProgressDisplay
from qwen_tools.contract.errors import StructuredToolError, ToolErrorType
from qwen_tools.contract.invocation import BaseToolInvocation, ToolInvocation, UpdateOutput
from qwen_tools.contract.kinds import Kind
from qwen_tools.contract.results import ToolResult
from qwen_tools.jscompat.jsjson import js_stringify
from qwen_tools.mcp.connection import McpConnection
from qwen_tools.mcp.failures import ConnectionLost
from qwen_tools.mcp.listing import McpToolInfo
from qwen_tools.mcp.results import call_result_to_tool_result
from qwen_tools.mcp.schema import model_input_schema

if TYPE_CHECKING:
    from qwen_tools.config.config import Config

DEFAULT_TOOL_TIMEOUT_MS = 600_000
DEFAULT_IDLE_TIMEOUT_MS = 300_000
IDLE_TIMEOUT_ENV = "QWEN_CODE_MCP_TOOL_IDLE_TIMEOUT_MS"
MCP_MAX_OUTPUT_CHARS = 500_000
CONFIRM_TITLE = "Confirm MCP Tool Execution"
ABORTED_MESSAGE = "Tool call aborted"
TIMED_OUT_MESSAGE = "Request timed out"
UNSAFE_REPLAY_MESSAGE = (
    "MCP tool execution may have completed before the connection failed. Automatic replay was "
    "skipped because the call could not be verified as safe to replay. Do not retry "
    "automatically; verify the outcome before trying again."
)
_REQUEST_TIMEOUT = -32001


def default_idle_timeout_ms() -> int:
    """``$QWEN_CODE_MCP_TOOL_IDLE_TIMEOUT_MS`` when set to a number, else 300,000."""
    raw = os.environ.get(IDLE_TIMEOUT_ENV, "")
    try:
        return int(raw) if raw.strip() else DEFAULT_IDLE_TIMEOUT_MS
    except ValueError:
        return DEFAULT_IDLE_TIMEOUT_MS


def can_safely_replay(trusted: bool, annotations: Mapping[str, Any]) -> bool:
    """Whether a call lost with its connection may be sent again (Qwen Code's rule)."""
    if not trusted or not annotations:
        return False
    read_only = annotations.get("readOnlyHint") is True
    idempotent = annotations.get("idempotentHint")
    if read_only and (annotations.get("destructiveHint") is True or idempotent is False):
        return False
    return idempotent is True or read_only


class McpTool(BaseDeclarativeTool[dict[str, Any]]):
    """A tool offered by an MCP server."""

    max_output_chars = float(MCP_MAX_OUTPUT_CHARS)

    def __init__(
        self,
        connection: McpConnection,
        info: McpToolInfo,
        *,
        name: str,
        aliases: tuple[str, ...] = (),
        config: Config | None = None,
        idle_timeout_ms: int | None = None,
    ) -> None:
        server = connection.name
        read_only = info.annotations.get("readOnlyHint") is True
        super().__init__(
            name,
            f"{info.name} ({server} MCP Server)",
            info.description,
            Kind.READ if read_only else Kind.OTHER,
            model_input_schema(info.input_schema, where=f"'{info.name}' of '{server}'"),
            is_output_markdown=True,
            can_update_output=True,
        )
        self.server_name = server
        self.server_tool_name = info.name
        self.aliases = aliases
        """Other names that reach this tool: Qwen Code 0.24.4's ``mcp__server__tool`` names."""
        self.annotations = dict(info.annotations)
        self.connection = connection
        self.config = config
        folder_trusted = config.settings.trusted if config is not None else True
        self.trusted = connection.config.trust and folder_trusted
        timeout = connection.config.timeout
        self.timeout_ms = DEFAULT_TOOL_TIMEOUT_MS if timeout is None else timeout
        self.idle_timeout_ms = (
            default_idle_timeout_ms() if idle_timeout_ms is None else idle_timeout_ms
        )

    def create_invocation(self, params: dict[str, Any]) -> ToolInvocation[dict[str, Any]]:
        return McpToolInvocation(self, params)


class McpToolInvocation(BaseToolInvocation[dict[str, Any]]):
    """One call of an :class:`McpTool`."""

    def __init__(self, tool: McpTool, params: dict[str, Any]) -> None:
        super().__init__(params)
        self.tool = tool

    def get_description(self) -> str:
        return js_stringify(self.params)

    async def should_confirm_execute(
        self, signal: AbortSignal
    ) -> ToolCallConfirmationDetails | Literal[False]:
        tool = self.tool
        if tool.trusted:
            return False
        if tool.config is not None:
            session = tool.config.session
            if tool.server_name in session.always_allowed_mcp_servers:
                return False
            if tool.name in session.always_allowed_tools:
                return False
        return McpConfirmationDetails(
            title=CONFIRM_TITLE,
            server_name=tool.connection.name,
            tool_name=tool.server_tool_name,
            tool_display_name=tool.display_name,
        )

    async def execute(
        self, signal: AbortSignal, update_output: UpdateOutput | None = None
    ) -> ToolResult:
        tool = self.tool
        connection = tool.connection
        if signal.aborted:
            raise AbortError(ABORTED_MESSAGE)
        generation = connection.generation
        if not connection.connected:
            if not await self._reconnect(signal, generation):
                raise StructuredToolError(self._down_message(), ToolErrorType.EXECUTION_FAILED)
            generation = connection.generation
        try:
            return await self._call(signal, update_output)
        except ConnectionLost as lost:
            safe = not lost.sent or can_safely_replay(tool.trusted, tool.annotations)
            if signal.aborted:
                raise AbortError(ABORTED_MESSAGE) from lost
            reconnected = await self._reconnect(signal, generation)
            if not safe:
                raise StructuredToolError(
                    UNSAFE_REPLAY_MESSAGE, ToolErrorType.EXECUTION_FAILED
                ) from lost
            if not reconnected:
                raise StructuredToolError(
                    self._down_message(), ToolErrorType.EXECUTION_FAILED
                ) from lost
        try:
            return await self._call(signal, update_output)
        except ConnectionLost as lost:
            raise StructuredToolError(
                self._down_message(), ToolErrorType.EXECUTION_FAILED
            ) from lost

    async def _reconnect(self, signal: AbortSignal, generation: int) -> bool:
        """Reconnect the server unless someone did since ``generation``; abortable."""
        async with signal.cancel_scope():
            return await self.tool.connection.reconnect(generation)
        raise AbortError(ABORTED_MESSAGE)  # reached only when the signal fired

    def _down_message(self) -> str:
        connection = self.tool.connection
        reason = connection.error or "not connected"
        return f"MCP server '{connection.name}' is {connection.status.value}: {reason}"

    async def _call(self, signal: AbortSignal, update_output: UpdateOutput | None) -> ToolResult:
        from mcp.shared.exceptions import MCPError

        tool = self.tool
        idle = tool.idle_timeout_ms / 1000 if tool.idle_timeout_ms > 0 else math.inf
        idle_scope = anyio.CancelScope(deadline=anyio.current_time() + idle)

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            if idle != math.inf:
                idle_scope.deadline = anyio.current_time() + idle
            if update_output is not None:
                update_output(McpToolProgressDisplay(progress, total, message))

        result: Any = None
        async with signal.cancel_scope() as abort_scope:
            with idle_scope:
                try:
                    result = await tool.connection.call_tool(
                        tool.server_tool_name,
                        self.params,
                        timeout=tool.timeout_ms / 1000 if tool.timeout_ms > 0 else None,
                        progress=on_progress,
                    )
                except MCPError as exc:
                    if exc.code == _REQUEST_TIMEOUT:
                        raise StructuredToolError(
                            TIMED_OUT_MESSAGE, ToolErrorType.EXECUTION_TIMEOUT
                        ) from exc
                    raise
        if abort_scope.cancelled_caught or signal.aborted:
            raise AbortError(ABORTED_MESSAGE)
        if idle_scope.cancelled_caught:
            raise StructuredToolError(
                f"MCP tool '{tool.server_tool_name}' on server '{tool.server_name}' did not "
                f"respond within {tool.idle_timeout_ms}ms idle timeout",
                ToolErrorType.EXECUTION_TIMEOUT,
            )
        return call_result_to_tool_result(tool.server_tool_name, self.params, result)
