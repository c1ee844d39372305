"""Building the session (``Config`` + ``ToolRegistry``) for a CLI command from its arguments.

MCP servers join a session in one of two ways: :func:`mcp_connected` connects them all before
the block (listing commands, the agent, which must declare every tool), :func:`mcp_on_demand`
connects a server only when a call asks for a tool the registry lacks (``call``: built-in and
discovered tools never wait for an MCP server).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .._config.config import Config
from .._config.settings import SettingsError
from .._config.tool_settings import ApprovalMode
from .._registry.defaults import build_registry
from .._registry.registry import ToolRegistry

if TYPE_CHECKING:
    from .._mcp.on_demand import McpOnDemand


@dataclass
class CliSession:
    """What a command works with."""

    config: Config
    registry: ToolRegistry
    mcp: McpOnDemand | None = None
    """Set inside :func:`mcp_on_demand`: connects MCP servers as their tools are asked for."""

    async def ensure_tool(self, name: str) -> None:
        """Make tool ``name`` available if an MCP server may offer it (no-op otherwise)."""
        if self.mcp is not None:
            await self.mcp.ensure_tool(name)


class CliConfigError(Exception):
    """Settings could not be loaded; the message is ready to print."""


def _include_dirs(args: argparse.Namespace) -> list[str]:
    dirs: list[str] = []
    for entry in getattr(args, "include_directories", None) or []:
        dirs.extend(d.strip() for d in entry.split(",") if d.strip())
    return dirs


def load_config(args: argparse.Namespace) -> Config:
    """Load the settings for ``--cwd`` (and ``--approval-mode``); raises :class:`CliConfigError`.

    The read tools may read the outputs saved by earlier calls (the project temp dir, a
    read-only root: :func:`~qwen_tools._execution.persisted_output.allow_reading_saved_output`).
    """
    mode = getattr(args, "approval_mode", None)
    try:
        config = Config.load(
            getattr(args, "cwd", None),
            include_directories=_include_dirs(args),
            approval_mode=ApprovalMode.parse(mode) if mode else None,
        )
    except SettingsError as exc:
        raise CliConfigError(str(exc)) from None
    except (OSError, ValueError) as exc:
        raise CliConfigError(f"Cannot open the workspace: {exc}") from None
    from .._execution.persisted_output import allow_reading_saved_output

    allow_reading_saved_output(config)
    return config


def open_session(args: argparse.Namespace, *, interactive: bool = True) -> CliSession:
    """Load settings for ``--cwd`` and register the tools; raises :class:`CliConfigError`.

    ``interactive``: whether a person can answer prompts (headless sessions do without the
    plan-mode tools, as Qwen Code's do). The tools of ``tools.discoveryCommand`` are discovered
    here too (problems are logged on stderr, never fatal).
    """
    config = load_config(args)
    config.interactive = interactive
    if config.settings.discovery_command:
        import asyncio

        from .._registry.defaults import build_registry_async

        return CliSession(config=config, registry=asyncio.run(build_registry_async(config)))
    return CliSession(config=config, registry=build_registry(config))


@asynccontextmanager
async def mcp_connected(session: CliSession) -> AsyncIterator[CliSession]:
    """Connect the configured MCP servers and register their tools for the duration of a block.

    Servers start in parallel; one that fails costs only its own tools (its reason is logged).
    Without ``mcpServers`` in the settings this does nothing (and imports nothing).
    """
    if not session.config.settings.mcp_servers:
        yield session
        return
    from .._mcp.manager import McpManager
    from .._mcp.registration import register_mcp_tools

    async with McpManager(session.config) as manager:
        await register_mcp_tools(session.registry, manager)
        yield session


@asynccontextmanager
async def mcp_on_demand(session: CliSession) -> AsyncIterator[CliSession]:
    """For the block, connect an MCP server only when a call needs one of its tools.

    :meth:`CliSession.ensure_tool` does the connecting; servers started are closed at the end.
    Without ``mcpServers`` in the settings this does nothing (and imports nothing).
    """
    if not session.config.settings.mcp_servers:
        yield session
        return
    from .._mcp.manager import McpManager
    from .._mcp.on_demand import McpOnDemand

    async with McpOnDemand(session.registry, McpManager(session.config)) as on_demand:
        session.mcp = on_demand
        try:
            yield session
        finally:
            session.mcp = None


def report_config_error(error: CliConfigError) -> None:
    """Print a settings problem without a traceback."""
    print(f"qwen-tools: {error}", file=sys.stderr)
