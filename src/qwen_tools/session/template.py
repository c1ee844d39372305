"""``SessionTemplate``: many sessions opened cheaply on one base session's settings (serve's clients).

``serve`` opens a :class:`~qwen_tools.Session` per MCP client, and over the session-less protocol
(or ``--stateless``) one per *request*, so opening one must cost little next to a call. A
template is made once from the server's own :class:`~qwen_tools.config.config.Config`; each
:meth:`SessionTemplate.open` then builds only what a session must own:

Shared (read or resolved once, when the template is made; never changed by a session)
    the parsed settings (``settings.json`` is read once for the whole server), the project
    directory and home, the resolved workspace layout (``--include-directories`` and the
    saved-output directory, checked and created once), the git work tree of the project, the
    approval mode the sessions start in.
Fresh in every session
    the mutable state (:class:`~qwen_tools.config.session.SessionState`: "always allow" answers
    for tools, shell roots, MCP servers and memory files, files read, per-file locks, background
    shells), the session id (which names its todo list), the approval mode itself, the
    workspace object (a copy), the services (language servers, the lent model), the parsed
    ignore files (read again on first use), the registry and its tools (built on first use,
    bound to this session) and the MCP connections.

A client with accepted roots gets a session on those directories, built the ordinary way (its
workspace, file discovery and saved-output directory are those of its first root).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from qwen_tools.config.config import Config
from qwen_tools.discovery.shared import SharedDiscovery
from qwen_tools.session.session import Session

if TYPE_CHECKING:
    from pathlib import Path

    from qwen_tools.session.session import McpMode

__all__ = ["SessionTemplate"]


class SessionTemplate:
    """Opens sessions on ``base``'s settings and workspace, each with state of its own."""

    def __init__(
        self,
        base: Config,
        *,
        mcp: McpMode = "on_demand",
        exclude_tools: Iterable[str] = (),
    ) -> None:
        """``base``: a session's config (its current workspace, approval mode and whether LSP
        is on are taken now); ``mcp`` and ``exclude_tools``: as :class:`Session` takes them."""
        self._base = base
        self._workspace = base.workspace.copy()
        self._files = base.file_service
        self._mode = base.approval_mode
        self._lsp = base.services.lsp.enabled
        self._mcp: McpMode = mcp
        self._exclude = tuple(exclude_tools)
        self._discovery = SharedDiscovery()

    def open(self, roots: Sequence[Path] | None = None) -> Session:
        """A new session (not entered); on ``roots`` (already accepted) when given."""
        base = self._base
        if roots:
            from qwen_tools.config.workspace import WorkspaceContext

            config = Config(
                base.target_dir,
                settings=base.settings,
                loaded_settings=base.loaded_settings,
                approval_mode=self._mode,
                home_dir=base.home_dir,
                interactive=base.interactive,
                workspace=WorkspaceContext(roots[0], roots[1:]),
            )
            return Session(
                config=config, mcp=self._mcp, exclude_tools=self._exclude, discovery=self._discovery
            )
        config = Config(
            base.target_dir,
            settings=base.settings,
            loaded_settings=base.loaded_settings,
            approval_mode=self._mode,
            home_dir=base.home_dir,
            interactive=base.interactive,
            workspace=self._workspace.copy(),
            file_service=self._files.fresh(),
        )
        return Session(
            config=config,
            mcp=self._mcp,
            exclude_tools=self._exclude,
            experimental_lsp=self._lsp,
            read_saved_output=False,  # the workspace copy has the saved-output directory already
            discovery=self._discovery,
        )
