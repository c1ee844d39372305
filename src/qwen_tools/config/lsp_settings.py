"""The LSP settings: ``lsp.enabled`` and ``lspServers`` (see :mod:`qwen_tools.lsp.servers`).

Qwen Code 0.24.4 turns LSP on with ``--experimental-lsp`` only and takes servers from the
workspace's ``.lsp.json`` and from extensions' ``lspServers``; here ``lsp.enabled: true`` in
settings turns it on too (as do ``run``/``chat``'s ``--experimental-lsp`` and
``Session(experimental_lsp=True)``, through :meth:`~.services.LspAccess.enable`), and
``lspServers`` may sit in settings (an object keyed by language, or the path of a JSON file).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from qwen_tools.config.config import Config

__all__ = ["LspSettings", "lsp_enabled", "lsp_settings"]


@dataclass(frozen=True)
class LspSettings:
    """Whether the ``lsp`` tool is on, and the servers settings declare."""

    enabled: bool = False
    servers: Any = None
    """``lspServers`` as written (object or path); ``.lsp.json`` is read when the tool is built."""


def lsp_settings(config: Config) -> LspSettings:
    """``lsp.enabled`` (JavaScript truthiness, or the flag) and ``lspServers`` of ``config``."""
    loaded = config.loaded_settings
    enabled = loaded.get("lsp.enabled") if loaded is not None else None
    servers = loaded.get("lspServers") if loaded is not None else None
    return LspSettings(
        enabled=config.services.lsp.enabled or enabled not in (None, False, 0, ""),
        servers=servers if isinstance(servers, dict | str) else None,
    )


def lsp_enabled(config: Config) -> bool:
    """Whether LSP is on for ``config`` (servers are looked for only then)."""
    return lsp_settings(config).enabled
