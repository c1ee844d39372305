"""The LSP settings: ``lsp.enabled`` and ``lspServers`` (see :mod:`qwen_tools.lsp.servers`).

Qwen Code 0.24.4 turns LSP on with ``--experimental-lsp`` only and takes servers from the
workspace's ``.lsp.json`` and from extensions' ``lspServers``; here ``lsp.enabled: true`` in the
user's (or system) settings turns it on too, never the workspace's own ``.qwen/settings.json`` (as do ``run``/``chat``'s ``--experimental-lsp`` and
``Session(experimental_lsp=True)``, through :meth:`~.services.LspAccess.enable`), and
``lspServers`` may sit in settings (an object keyed by language, or the path of a JSON file).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from qwen_tools.config.settings import LoadedSettings, SettingScope

if TYPE_CHECKING:
    from qwen_tools.config.config import Config

__all__ = ["LspSettings", "lsp_enabled", "lsp_settings"]


@dataclass(frozen=True)
class LspSettings:
    """Whether the ``lsp`` tool is on, and the servers settings declare."""

    enabled: bool = False
    servers: Any = None
    """``lspServers`` as written (object or path); ``.lsp.json`` is read when the tool is built."""


_ENABLED = "lsp.enabled"


def _enabled_outside_workspace(loaded: LoadedSettings) -> Any:
    """``lsp.enabled`` from the user and system files only: a project's own settings never turn
    on the programs its ``.lsp.json`` names (0.24.4 needs the user's ``--experimental-lsp``)."""
    for settings_file in reversed(loaded.files):
        if settings_file.scope is SettingScope.WORKSPACE:
            continue
        section, key = _ENABLED.split(".")  # the settings key, not the tool's name
        found = settings_file.data.get(section)
        if isinstance(found, dict) and key in found:
            return found[key]
    return None


def lsp_settings(config: Config) -> LspSettings:
    """``lsp.enabled`` (JavaScript truthiness, or the flag) and ``lspServers`` of ``config``."""
    loaded = config.loaded_settings
    enabled = _enabled_outside_workspace(loaded) if loaded is not None else None
    servers = loaded.get("lspServers") if loaded is not None else None
    return LspSettings(
        enabled=config.services.lsp.enabled or enabled not in (None, False, 0, ""),
        servers=servers if isinstance(servers, dict | str) else None,
    )


def lsp_enabled(config: Config) -> bool:
    """Whether LSP is on for ``config`` (servers are looked for only then)."""
    return lsp_settings(config).enabled
