"""MCP client side: servers from ``mcpServers`` become tools of the registry.

* :mod:`.naming` — model-facing tool names (``server__tool``) and the 0.24.4 aliases;
* :mod:`.schema` — input schemas as the model sees them;
* :mod:`.results` — ``CallToolResult`` → parts, display and errors, as Qwen Code 0.24.4;
* :mod:`.admission` — ``mcp.allowed``/``mcp.excluded``, ``includeTools``/``excludeTools``, caps;
* :mod:`.transport` — stdio / SSE / Streamable HTTP transports from an ``mcpServers`` entry;
* :mod:`.connection` — one server: its session task, status, tools and calls;
* :mod:`.listing` — what a connected server lists: the tools the model may see;
* :mod:`.failures` — connection failures told apart from call failures, and worded;
* :mod:`.manager` — every admitted server, started in parallel; the tools they offer;
* :mod:`.tool` — :class:`McpTool`, the declarative tool wrapping one server tool;
* :mod:`.registration` — putting those tools into a :class:`~qwen_tools.ToolRegistry`;
* :mod:`.on_demand` — servers connected only when one of their tools is asked for;
* :mod:`.resource_tools`, :mod:`.resource_content` — ``read_mcp_resource`` and
  ``list_mcp_resources``: a server's resources, as the model reads them;
* :mod:`.deferred_tools`, :mod:`.tool_bridge` — MCP tools kept out of the declarations and
  reached through ``tool_search`` / ``tool_call``, as 0.24.4 offers them;
* :mod:`.oauth`, :mod:`.oauth_login`, :mod:`.oauth_store` — OAuth 2.1 for remote servers (the SDK's provider): the
  ``mcp auth`` login, and the tokens (0600) sessions send and refresh;
* :mod:`.sdk_logs` — the SDK's tracebacks moved to the debug log.

Nothing here imports the ``mcp`` SDK at import time (it is the optional ``mcp`` extra); the
SDK is loaded when a server is first connected.
"""

from __future__ import annotations
