"""``ToolFactory``: a tool known by its name and built on first use.

A registry holds factories so that a session which calls one built-in imports only that tool's
module and engines.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from qwen_tools.contract.declarative import BaseDeclarativeTool


@dataclass(frozen=True, slots=True)
class ToolFactory:
    """A tool known by name and built on first use (never an MCP tool, no aliases)."""

    name: str
    build: Callable[[], BaseDeclarativeTool[Any]]
