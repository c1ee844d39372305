"""``McpManager``: every admitted ``mcpServers`` entry, connected in parallel, and their tools.

```python
async with McpManager(config) as manager:     # start() on enter, aclose() on exit
    await register_mcp_tools(registry, manager)
    manager.status("github")                  # McpServerStatus.CONNECTED
```

A server that fails, hangs past its discovery cap (stdio 30 s, remote 5 s, or its
``discoveryTimeoutMs``) or dies later costs only itself: its status is ``disconnected`` and
:meth:`McpManager.last_error` keeps the reason. An entry that settings could not use (no
transport, a field of the wrong type: :attr:`McpServerConfig.error`) is never started; it is
``disconnected`` from the start, with that error as its reason (logged once). A gated server
(a project's ``.mcp.json``) that is not approved is not started at all
(:attr:`McpManager.pending`). Roots offered to servers are the workspace directories.

:meth:`McpManager.connect` connects only some servers (``qwen-tools call`` connects a server
when one of its tools is first asked for, so built-in calls never wait for any server);
:meth:`McpManager.attempted` tells which were tried.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from qwen_tools.mcp.admission import admitted_servers, is_tool_enabled, pending_servers
from qwen_tools.mcp.connection import McpConnection, McpServerStatus
from qwen_tools.mcp.failures import failure_text
from qwen_tools.mcp.naming import assign_tool_names, tool_aliases
from qwen_tools.mcp.tool import McpTool

if TYPE_CHECKING:
    from qwen_tools.config.config import Config
    from qwen_tools.config.mcp_approvals import ApprovalState

logger = logging.getLogger("qwen_tools.mcp")


class McpManager:
    """The MCP servers of one session.

    ``discovery_timeout`` (seconds) overrides every server's discovery cap;
    ``tool_idle_timeout_ms`` overrides the idle timeout of tool calls (``0`` disables it).
    """

    def __init__(
        self,
        config: Config,
        *,
        discovery_timeout: float | None = None,
        tool_idle_timeout_ms: int | None = None,
    ) -> None:
        self.config = config
        self.tool_idle_timeout_ms = tool_idle_timeout_ms
        self.pending: dict[str, ApprovalState] = pending_servers(config)
        """Gated servers awaiting approval (``pending``) or ``rejected``: never started."""
        self._connections: dict[str, McpConnection] = {
            name: McpConnection(
                name,
                server,
                default_cwd=config.target_dir,
                roots=self._roots,
                discovery_timeout=discovery_timeout,
            )
            for name, server in admitted_servers(config.settings).items()
            if name not in self.pending
        }
        self.started = False
        """Whether :meth:`start` has run."""
        self._attempted: set[str] = set()

    def _roots(self) -> list[Path]:
        return [Path(d) for d in self.config.workspace.directories]

    async def __aenter__(self) -> McpManager:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    # -- servers ------------------------------------------------------------------------------

    @property
    def server_names(self) -> list[str]:
        """The admitted servers (``mcp.allowed`` / ``mcp.excluded`` applied), in config order."""
        return list(self._connections)

    def connection(self, name: str) -> McpConnection:
        """The connection of server ``name``; raises ``KeyError`` for a server not admitted."""
        return self._connections[name]

    def status(self, name: str) -> McpServerStatus:
        """``connecting``, ``connected`` or ``disconnected``."""
        connection = self._connections[name]
        if connection.status is McpServerStatus.CONNECTED and not connection.connected:
            return McpServerStatus.DISCONNECTED
        return connection.status

    def last_error(self, name: str) -> str | None:
        """Why server ``name`` is (or last was) disconnected."""
        return self._connections[name].error

    def statuses(self) -> dict[str, McpServerStatus]:
        """Every admitted server's status."""
        return {name: self.status(name) for name in self._connections}

    def instructions(self, name: str) -> str | None:
        """The instructions the server sent when it connected."""
        return self._connections[name].instructions

    def attempted(self, name: str) -> bool:
        """Whether server ``name`` was connected (or tried) by :meth:`start` or :meth:`connect`."""
        return name in self._attempted

    async def start(self) -> None:
        """Connect every admitted server in parallel; returns when each is settled."""
        self.started = True
        await self.connect(self._connections)

    async def connect(self, names: Iterable[str]) -> None:
        """Connect the servers ``names`` in parallel; returns when each is settled.

        Each waits at most its own discovery cap; a failure costs only that server.
        """
        usable: list[McpConnection] = []
        for name in dict.fromkeys(names):
            connection = self._connections[name]
            self._attempted.add(name)
            if connection.config.error is None:
                usable.append(connection)
            else:
                self._reject(connection, connection.config.error)
        await asyncio.gather(*(c.connect() for c in usable))

    @staticmethod
    def _reject(connection: McpConnection, reason: str) -> None:
        """Mark a server whose settings entry is unusable as disconnected, with the reason."""
        if connection.error != reason:
            logger.warning("%s", failure_text(connection.name, reason))
        connection.status = McpServerStatus.DISCONNECTED
        connection.error = reason

    async def reconnect(self, name: str) -> bool:
        """Reconnect server ``name`` now; whether it is connected afterwards."""
        connection = self._connections[name]
        if connection.config.error is not None:
            self._reject(connection, connection.config.error)
            return False
        return await connection.reconnect()

    async def aclose(self) -> None:
        """Disconnect every server and wait for their tasks and processes to end."""
        results = await asyncio.gather(
            *(c.aclose() for c in self._connections.values()), return_exceptions=True
        )
        for name, result in zip(self._connections, results, strict=True):
            if isinstance(result, BaseException):
                logger.warning("MCP server '%s' did not close cleanly: %s", name, result)

    # -- tools --------------------------------------------------------------------------------

    def tools(self) -> list[McpTool]:
        """The tools of the connected servers, filtered by ``includeTools``/``excludeTools``.

        Names are ``server__tool`` (see :mod:`qwen_tools.mcp.naming`); the order is the
        servers' order, then each server's listing order.
        """
        offered = [
            (connection, info)
            for connection in self._connections.values()
            if connection.connected
            for info in connection.tools
            if is_tool_enabled(info.name, connection.config)
        ]
        names = assign_tool_names((c.name, info.name) for c, info in offered)
        tools: list[McpTool] = []
        for connection, info in offered:
            name = names[(connection.name, info.name)]
            tools.append(
                McpTool(
                    connection,
                    info,
                    name=name,
                    aliases=tool_aliases(connection.name, info.name, name),
                    config=self.config,
                    idle_timeout_ms=self.tool_idle_timeout_ms,
                )
            )
        return tools
