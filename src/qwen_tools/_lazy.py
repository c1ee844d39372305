"""Lazy exports: a package's name is imported from its module when first asked for.

``qwen_tools``, ``qwen_tools.tools`` and ``qwen_tools.serve`` export names whose modules are
heavy (every tool, the MCP SDK); each gets its module ``__getattr__`` from :func:`lazy_exports`.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, exports: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: ``exports`` maps a name to its module, relative
    to ``package``; the value is kept in the package once imported."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f".{module}", package), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
