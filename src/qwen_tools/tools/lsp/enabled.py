"""Whether a session offers the ``lsp`` tool, and its servers (cheap: no LSP library imported)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from qwen_tools.config.lsp_settings import lsp_settings
from qwen_tools.lsp.servers import LspServerConfig, load_server_configs

if TYPE_CHECKING:
    from qwen_tools.config.config import Config

__all__ = ["lsp_server_configs", "lsp_tool_enabled"]


def lsp_server_configs(config: Config) -> list[LspServerConfig]:
    """The servers of the session's workspace (``lspServers`` in settings, then ``.lsp.json``)."""
    servers = lsp_settings(config).servers
    return load_server_configs(
        config.target_dir,
        servers,
        trusted=config.settings.trusted,
        project_file=config.workspace_settings,
    )


def lsp_tool_enabled(config: Config) -> bool:
    """``lsp.enabled`` is true (or ``--experimental-lsp`` was given) and a server is configured."""
    return lsp_settings(config).enabled and bool(lsp_server_configs(config))
