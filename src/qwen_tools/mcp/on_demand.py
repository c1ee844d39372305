"""MCP servers connected only when one of their tools is asked for (``qwen-tools call``).

```python
async with McpOnDemand(registry, McpManager(config)) as mcp:
    await mcp.ensure_tool("read_file")      # registered already: no server is started
    await mcp.ensure_tool("github__search") # connects 'github' (only), registers its tools
```

A built-in or discovered tool never waits for any MCP server: servers are started only for
a name the registry does not know. The servers whose names the tool name may carry
(:func:`~.naming.may_name_a_tool_of`) are connected first, each within its own discovery cap;
only when they all connected and still offer no such tool are the remaining servers tried
(a name may carry a collision hash, or belong to a long-named server). A name without the
shape of an MCP tool's (no ``__``) starts nothing. Each server is tried once per session: a
later call of a failed server's tool is answered at once with the server's name and reason
(:func:`~.registration.unavailable_server_note`).
"""

from __future__ import annotations

import asyncio
from types import TracebackType
from typing import TYPE_CHECKING

from qwen_tools.mcp.connection import McpServerStatus
from qwen_tools.mcp.naming import may_be_mcp_tool_name, may_name_a_tool_of
from qwen_tools.mcp.registration import sync_mcp_tools

if TYPE_CHECKING:
    from qwen_tools.mcp.manager import McpManager
    from qwen_tools.registry.registry import ToolRegistry


class McpOnDemand:
    """Connects a session's MCP servers lazily, for the tool names asked for."""

    def __init__(self, registry: ToolRegistry, manager: McpManager) -> None:
        self.registry = registry
        self.manager = manager
        self._lock = asyncio.Lock()

    async def __aenter__(self) -> McpOnDemand:
        sync_mcp_tools(self.registry, self.manager)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.manager.aclose()

    async def ensure_tool(self, name: str) -> None:
        """Connect what may offer tool ``name`` unless the registry already has it."""
        if self.registry.get_tool(name) is not None or not may_be_mcp_tool_name(name):
            return
        async with self._lock:
            pending = [s for s in self.manager.server_names if not self.manager.attempted(s)]
            first = [s for s in pending if may_name_a_tool_of(name, s)]
            if first:
                await self._connect(first)
                failed = any(self.manager.status(s) is not McpServerStatus.CONNECTED for s in first)
                if failed or self.registry.get_tool(name) is not None:
                    return
            rest = [s for s in pending if s not in first]
            if rest:
                await self._connect(rest)

    async def _connect(self, servers: list[str]) -> None:
        await self.manager.connect(servers)
        sync_mcp_tools(self.registry, self.manager)
