"""The default registry: built-in tools (each built on first use), then the discovered tools.

Both are filtered by ``tools.core`` and by whole-tool deny rules (``permissions.deny`` and
``tools.exclude`` entries without a specifier, aliases such as ``Bash``/``Read``/``WebFetch``
included); the registry keeps that filter, so MCP tools a deny rule names (``mcp__server``,
``mcp__server__tool``) are refused when they register. Discovered tools
(``tools.discoveryCommand``, see :mod:`qwen_tools.discovery`) come after the built-ins; one
whose name is already taken is skipped with a logged warning and never replaces the tool that
holds the name.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Collection, Iterable
from typing import TYPE_CHECKING

from qwen_tools.registry.registry import ToolRegistry

if TYPE_CHECKING:
    from qwen_tools.config.config import Config
    from qwen_tools.config.tool_settings import ToolSettings
    from qwen_tools.discovery.shared import SharedDiscovery

_SPECIFIER = re.compile(r"\(.*\)\s*$")

logger = logging.getLogger("qwen_tools.discovery")


def whole_tool_deny(
    settings: ToolSettings, name: str, aliases: Iterable[str] = (), server: str | None = None
) -> str | None:
    """:func:`~qwen_tools.execution.permission_rules.whole_tool_deny`, imported (with its
    shell parser) only when some deny rule exists."""
    if not settings.permissions_deny and not settings.exclude:
        return None
    from qwen_tools.execution.permission_rules import whole_tool_deny as deny

    return deny(settings, name, aliases, server)


def _tool_part(entry: str) -> str:
    """``run_shell_command(git status)`` → ``run_shell_command``."""
    return _SPECIFIER.sub("", entry).strip()


def is_tool_enabled(config: Config, name: str) -> bool:
    """Whether settings allow registering the tool ``name`` at all."""
    core = config.settings.core
    if core and name not in {_tool_part(e) for e in core}:
        return False
    return whole_tool_deny(config.settings, name) is None


def _builtin_registry(config: Config, exclude: Collection[str] = ()) -> ToolRegistry:
    from qwen_tools.tools import builtin_tool_factories

    registry = ToolRegistry()
    settings = config.settings
    registry.deny_rule = lambda name, aliases, server: whole_tool_deny(
        settings, name, aliases, server
    )
    for factory in builtin_tool_factories(config):
        if factory.name not in exclude and is_tool_enabled(config, factory.name):
            # declared by name: the tool's module is imported when it is first asked for
            registry.register_factory(factory)
    return registry


async def register_discovered_tools(
    config: Config, registry: ToolRegistry, shared: SharedDiscovery | None = None
) -> list[str]:
    """Run ``tools.discoveryCommand`` and register what it declares; the problems met.

    A discovered tool disabled by ``tools.core``/``tools.exclude`` is left out; one whose name
    is taken is skipped (and reported) instead of overwriting. ``shared``: the declarations
    of one run shared by many sessions (a template's), instead of a run of the command.
    """
    from qwen_tools.discovery.command_discovery import discover_command_tools

    report = await (shared.report(config) if shared else discover_command_tools(config))
    problems = list(report.problems)
    for tool in report.tools:
        if not is_tool_enabled(config, tool.name):
            logger.info("Discovered tool %r is disabled by tools.core / tools.exclude.", tool.name)
            continue
        if tool.name in registry.get_all_tool_names():
            problem = (
                f'Discovered tool "{tool.name}" was skipped: '
                "a tool with that name is already registered."
            )
            logger.warning("%s", problem)
            problems.append(problem)
            continue
        registry.register_tool(tool)
    return problems


async def build_registry_async(
    config: Config, exclude: Collection[str] = (), shared: SharedDiscovery | None = None
) -> ToolRegistry:
    """A registry with every enabled built-in tool, then the discovered tools of the project.

    The built-ins named in ``exclude`` are left out (never built); ``shared``: see
    :func:`register_discovered_tools`.
    """
    registry = _builtin_registry(config, exclude)
    if config.settings.discovery_command:
        await register_discovered_tools(config, registry, shared)
    return registry


def build_registry(config: Config) -> ToolRegistry:
    """Like :func:`build_registry_async`, for code that is not running an event loop.

    Discovery runs through ``asyncio.run``; called from inside a running event loop, it is
    skipped with a warning (await :func:`build_registry_async` there instead).
    """
    registry = _builtin_registry(config)
    if not config.settings.discovery_command:
        return registry
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        asyncio.run(register_discovered_tools(config, registry))
    else:
        logger.warning(
            "build_registry() was called inside a running event loop, so tools.discoveryCommand "
            "was not run; use 'await build_registry_async(config)' to get the discovered tools."
        )
    return registry
