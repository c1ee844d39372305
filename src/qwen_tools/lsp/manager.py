"""``LspManager``: the session's language servers, started on first use and kept for the session.

A server starts when a call first needs it (a file of one of its extensions, or a workspace-wide
operation), stays for the session, and is restarted when it has died (at most ``maxRestarts``
times, unless ``restartOnCrash`` is false). A server that cannot start (missing command, exits
at once, does not initialize in ``startupTimeout``) costs only its own language: the calls that
need it get :class:`~.connection.LspServerError` with the reason, the other servers go on.
:meth:`LspManager.aclose` shuts every server down and ends its process tree.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from qwen_tools.lsp.connection import LspConnection, LspServerError
from qwen_tools.lsp.servers import LspServerConfig

__all__ = ["LspManager"]


class _Slot:
    """One configured server: its connection (when running) and how its starts went."""

    def __init__(self, config: LspServerConfig) -> None:
        self.config = config
        self.connection: LspConnection | None = None
        self.lock = asyncio.Lock()
        self.starts = 0
        self.error: str | None = None


class LspManager:
    """The configured servers of one workspace."""

    def __init__(
        self,
        workspace_root: str | os.PathLike[str],
        configs: Sequence[LspServerConfig],
        *,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.workspace_root = os.path.realpath(os.fspath(workspace_root))
        self._slots = {config.name: _Slot(config) for config in configs}
        self._env = dict(os.environ if env is None else env)
        self._closed = False

    @property
    def configs(self) -> list[LspServerConfig]:
        """The configured servers."""
        return [slot.config for slot in self._slots.values()]

    @property
    def server_names(self) -> list[str]:
        """Their names."""
        return list(self._slots)

    def running(self) -> dict[str, LspConnection]:
        """The servers started and still running, by name."""
        return {
            name: slot.connection
            for name, slot in self._slots.items()
            if slot.connection is not None and slot.connection.alive
        }

    def servers_for(self, path: str, server_name: str | None = None) -> list[tuple[str, str]]:
        """``(server name, language id)`` of the servers that handle ``path``."""
        found = []
        for name, slot in self._slots.items():
            if server_name and name != server_name:
                continue
            language = slot.config.language_for(path)
            if language is not None:
                found.append((name, language))
        return found

    def no_server_message(self, path: str, server_name: str | None = None) -> str:
        """Why no server handles ``path`` (model-facing)."""
        if server_name and server_name not in self._slots:
            return (
                f"No LSP server named {server_name} is configured "
                f"(configured: {', '.join(self._slots) or 'none'})."
            )
        suffix = Path(path).suffix or Path(path).name
        return (
            f'No LSP server is configured for "{suffix}" files '
            f"(configured: {', '.join(self._slots) or 'none'})."
        )

    def check_server(self, server_name: str | None) -> None:
        """Raise :class:`LspServerError` when ``server_name`` is given but not configured."""
        if server_name and server_name not in self._slots:
            raise LspServerError(self.no_server_message("", server_name))

    async def connection(self, name: str) -> LspConnection:
        """The running server ``name``, started (or restarted) now if needed."""
        slot = self._slots[name]
        current = slot.connection
        if current is not None and current.alive:
            return current
        async with slot.lock:
            if self._closed:
                raise LspServerError("The session's LSP servers were shut down")
            current = slot.connection
            if current is not None and current.alive:
                return current
            config = slot.config
            if slot.starts > 0:
                if current is not None:
                    await current.aclose()
                    slot.error = current_error = f"{_exit_text(current)}"
                else:
                    current_error = slot.error or f"LSP server {name} is not running"
                slot.connection = None
                if not config.restart_on_crash or slot.starts > config.max_restarts:
                    raise LspServerError(
                        f"{current_error}; not restarted "
                        f"(restarted {max(slot.starts - 1, 0)} of {config.max_restarts} times)"
                    )
            slot.starts += 1
            try:
                slot.connection = await LspConnection.start(config, self._env)
            except LspServerError as exc:
                slot.error = str(exc)
                raise
            slot.error = None
            return slot.connection

    async def aclose(self) -> None:
        """Shut every server down and end its process tree (safe to call again)."""
        self._closed = True
        connections = [s.connection for s in self._slots.values() if s.connection is not None]
        for slot in self._slots.values():
            slot.connection = None
        if connections:
            await asyncio.gather(*(c.aclose() for c in connections), return_exceptions=True)


def _exit_text(connection: LspConnection) -> str:
    return connection._exit_reason()
