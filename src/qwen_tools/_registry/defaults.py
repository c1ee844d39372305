"""The default registry: built-in tools, filtered by ``tools.core`` and ``tools.exclude``."""

from __future__ import annotations

import re

from .._config.config import Config
from .registry import ToolRegistry

_SPECIFIER = re.compile(r"\(.*\)\s*$")


def _tool_part(entry: str) -> str:
    """``run_shell_command(git status)`` → ``run_shell_command``."""
    return _SPECIFIER.sub("", entry).strip()


def is_tool_enabled(config: Config, name: str) -> bool:
    """Whether settings allow registering the tool ``name`` at all."""
    core = config.settings.core
    if core and name not in {_tool_part(e) for e in core}:
        return False
    return name not in {_tool_part(e) for e in config.settings.exclude if "(" not in e}


def build_registry(config: Config) -> ToolRegistry:
    """A registry with every enabled built-in tool of this session."""
    from ..builtin import create_builtin_tools

    registry = ToolRegistry()
    for tool in create_builtin_tools(config):
        if is_tool_enabled(config, tool.name):
            registry.register_tool(tool)
    return registry
