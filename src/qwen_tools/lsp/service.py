"""``LspService``: the operations of the ``lsp`` tool, asked of the right servers.

The tool gives positions and files already checked to lie inside the workspace; the service
reads those files (through :func:`~qwen_tools.fs.confined.read_confined_bytes`, within the
workspace roots only) to show them to the server before asking, and returns the answers in the
reference's shapes (:mod:`.normalize`). File operations go to the servers that handle the file's
extension (or the one named); workspace operations to every configured server. A server that
fails is reported by :class:`~.connection.LspServerError`; with several servers, one failing is
skipped while another answers.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable, Iterable
from functools import partial
from typing import Any, TypeVar
from urllib.parse import unquote, urlsplit

from qwen_tools.fs.confined import read_confined_bytes
from qwen_tools.lsp.call_items import StaleCallItemError, non_file_item_message, sign_item
from qwen_tools.lsp.connection import LspConnection, LspServerError, file_uri
from qwen_tools.lsp.manager import LspManager
from qwen_tools.lsp.normalize import (
    call_item_params,
    normalize_call,
    normalize_call_item,
    normalize_diagnostic,
    normalize_document_symbols,
    normalize_hover,
    normalize_location,
    normalize_symbol,
)

__all__ = ["LspService", "uri_to_path"]

T = TypeVar("T")
_SKIP_DIRS = frozenset({"node_modules", ".git", "dist", "build", "__pycache__", ".venv"})


def uri_to_path(uri: str) -> str | None:
    """The local path of a ``file://`` URI (``None`` for other schemes)."""
    parts = urlsplit(uri)
    if parts.scheme != "file":
        return None
    return unquote(parts.path)


class LspService:
    """The session's LSP operations over its :class:`LspManager`."""

    def __init__(self, manager: LspManager, roots: Iterable[str]) -> None:
        self.manager = manager
        self.roots = tuple(roots)

    # -- plumbing ------------------------------------------------------------------------

    def _read(self, path: str) -> str:
        try:
            return read_confined_bytes(path, self.roots).decode("utf-8", "replace")
        except OSError as exc:
            raise LspServerError(f"Cannot read {path}: {exc.strerror or exc}") from None

    async def _open(self, connection: LspConnection, path: str, language: str) -> str:
        uri = file_uri(path)
        await connection.sync_document(uri, language, self._read(path))
        return uri

    async def _on_file(
        self,
        path: str,
        server_name: str | None,
        ask: Callable[[str, LspConnection, str], Awaitable[list[T]]],
    ) -> list[T]:
        """``ask(name, connection, uri)`` of each server of ``path`` until one answers."""
        servers = self.manager.servers_for(path, server_name)
        if not servers:
            raise LspServerError(self.manager.no_server_message(path, server_name))
        first_error: LspServerError | None = None
        for name, language in servers:
            try:
                found = await self._retrying(
                    name, partial(self._ask_file, path=path, language=language, name=name, ask=ask)
                )
            except LspServerError as exc:
                first_error = first_error or exc
                continue
            if found:
                return found
        if first_error is not None and len(servers) == 1:
            raise first_error
        return []

    async def _ask_file(
        self,
        connection: LspConnection,
        path: str,
        language: str,
        name: str,
        ask: Callable[[str, LspConnection, str], Awaitable[list[T]]],
    ) -> list[T]:
        uri = await self._open(connection, path, language)
        return await ask(name, connection, uri)

    async def _retrying(self, name: str, work: Callable[[LspConnection], Awaitable[T]]) -> T:
        """``work`` on server ``name``; once more on a restarted server if it died meanwhile."""
        connection = await self.manager.connection(name)
        try:
            return await work(connection)
        except LspServerError:
            if connection.alive:
                raise
        return await work(await self.manager.connection(name))

    async def _on_all(
        self,
        server_name: str | None,
        ask: Callable[[str, LspConnection], Awaitable[list[T]]],
    ) -> list[T]:
        self.manager.check_server(server_name)
        names = [n for n in self.manager.server_names if not server_name or n == server_name]
        results: list[T] = []
        errors: list[LspServerError] = []
        for name in names:
            try:
                results.extend(
                    await self._retrying(name, partial(self._ask_all, name=name, ask=ask))
                )
            except LspServerError as exc:
                errors.append(exc)
        if errors and not results and len(errors) == len(names):
            raise errors[0]
        return results

    async def _ask_all(
        self,
        connection: LspConnection,
        name: str,
        ask: Callable[[str, LspConnection], Awaitable[list[T]]],
    ) -> list[T]:
        await self._warm_up(name, connection)
        return await ask(name, connection)

    async def _warm_up(self, name: str, connection: LspConnection) -> None:
        """Open one file of the server's languages when it has none open (tsserver needs a
        project before it answers workspace requests)."""
        if connection.tracked_uris():
            return
        config = connection.config
        extensions = {f".{ext}" for ext in config.extensions}
        for path in self._first_files(config.workspace_folder, extensions):
            language = config.language_for(path)
            if language is not None:
                await self._open(connection, path, language)
                return

    def _first_files(self, root: str, extensions: set[str]) -> Iterable[str]:
        for directory, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
            for file in sorted(files):
                if os.path.splitext(file)[1].lower() in extensions:
                    yield os.path.join(directory, file)
                    return

    @staticmethod
    def _position(uri: str, line: int, character: int) -> dict[str, Any]:
        return {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}

    @staticmethod
    def _list(response: Any) -> list[Any]:
        return response if isinstance(response, list) else [response] if response else []

    # -- operations ----------------------------------------------------------------------

    async def locations(
        self, method: str, path: str, line: int, character: int, server: str | None, limit: int,
        extra: dict[str, Any] | None = None,
    ) -> list[dict[str, Any]]:  # fmt: skip
        """``textDocument/definition``, ``/implementation`` or ``/references``."""

        async def ask(name: str, conn: LspConnection, uri: str) -> list[dict[str, Any]]:
            params = {**self._position(uri, line, character), **(extra or {})}
            response = await conn.request(method, params)
            found = [normalize_location(item, name) for item in self._list(response)]
            return [item for item in found if item is not None][:limit]

        return await self._on_file(path, server, ask)

    async def hover(self, path: str, line: int, character: int, server: str | None) -> list[str]:
        """The hover text (one item, or none)."""

        async def ask(name: str, conn: LspConnection, uri: str) -> list[str]:
            response = await conn.request(
                "textDocument/hover", self._position(uri, line, character)
            )
            text = normalize_hover(response)
            return [text] if text.strip() else []

        return await self._on_file(path, server, ask)

    async def document_symbols(
        self, path: str, server: str | None, limit: int
    ) -> list[dict[str, Any]]:
        """The file's symbols, flattened."""

        async def ask(name: str, conn: LspConnection, uri: str) -> list[dict[str, Any]]:
            response = await conn.request(
                "textDocument/documentSymbol", {"textDocument": {"uri": uri}}
            )
            return normalize_document_symbols(self._list(response), uri, name, limit)

        return await self._on_file(path, server, ask)

    async def workspace_symbols(self, query: str, limit: int) -> list[dict[str, Any]]:
        """Symbols matching ``query`` in every server's workspace."""

        async def ask(name: str, conn: LspConnection) -> list[dict[str, Any]]:
            response = await conn.request("workspace/symbol", {"query": query})
            found = [normalize_symbol(item, name) for item in self._list(response)]
            return [item for item in found if item is not None]

        return (await self._on_all(None, ask))[:limit]

    async def diagnostics(self, path: str, server: str | None) -> list[dict[str, Any]]:
        """The file's diagnostics, from every server of it."""
        servers = self.manager.servers_for(path, server)
        if not servers:
            raise LspServerError(self.manager.no_server_message(path, server))
        results: list[dict[str, Any]] = []
        errors: list[LspServerError] = []
        for name, language in servers:
            try:
                items = await self._retrying(
                    name, partial(self._diagnose, path=path, language=language)
                )
            except LspServerError as exc:
                errors.append(exc)
                continue
            results.extend(d for d in (normalize_diagnostic(i, name) for i in items) if d)
        if errors and len(errors) == len(servers):
            raise errors[0]
        return results

    async def _diagnose(self, connection: LspConnection, path: str, language: str) -> list[Any]:
        uri = await self._open(connection, path, language)
        return await connection.diagnostics(uri)

    async def workspace_diagnostics(self, server: str | None, limit: int) -> list[dict[str, Any]]:
        """Per file, the diagnostics of the documents the servers were shown."""

        async def ask(name: str, conn: LspConnection) -> list[dict[str, Any]]:
            for uri in conn.tracked_uris():
                path = uri_to_path(uri)
                language = conn.config.language_for(path or "")
                if path is not None and language is not None and os.path.isfile(path):
                    await conn.sync_document(uri, language, self._read(path))
            await asyncio.gather(*(conn.diagnostics(uri) for uri in conn.tracked_uris()))
            files = []
            for uri, items in conn.published_diagnostics().items():
                found = [d for d in (normalize_diagnostic(i, name) for i in items) if d]
                if found:
                    files.append({"uri": uri, "diagnostics": found, "serverName": name})
            return files

        return (await self._on_all(server, ask))[:limit]

    # -- call hierarchy ------------------------------------------------------------------

    def _sign(self, conn: LspConnection, name: str, item: dict[str, Any]) -> None:
        path = uri_to_path(item["uri"])
        if path is None or not any(_within(path, root) for root in self.roots):
            return  # items outside the workspace are shown, never read (and not traversable)
        try:
            text = read_confined_bytes(path, self.roots)
        except OSError:
            return
        item["documentRevision"] = sign_item(conn.secret, name, item, text)

    async def prepare_call_hierarchy(
        self, path: str, line: int, character: int, server: str | None, limit: int
    ) -> list[dict[str, Any]]:
        """The call hierarchy items at a position, signed."""

        async def ask(name: str, conn: LspConnection, uri: str) -> list[dict[str, Any]]:
            response = await conn.request(
                "textDocument/prepareCallHierarchy", self._position(uri, line, character)
            )
            items = [normalize_call_item(i, name) for i in self._list(response)]
            signed = [item for item in items if item is not None][:limit]
            for item in signed:
                self._sign(conn, name, item)
            return signed

        return await self._on_file(path, server, ask)

    async def calls(
        self, direction: str, item: dict[str, Any], server: str | None, limit: int
    ) -> list[dict[str, Any]]:
        """``incoming`` or ``outgoing`` calls of a signed item."""
        uri = str(item.get("uri") or "")
        path = uri_to_path(uri)
        if path is None:
            raise LspServerError(non_file_item_message(uri))
        name = server or item.get("serverName")
        if not isinstance(name, str) or name not in self.manager.server_names:
            raise StaleCallItemError()
        conn = await self.manager.connection(name)
        check = dict(item)
        revision = check.pop("documentRevision", None)
        self._sign(conn, name, check)
        if not revision or check.get("documentRevision") != revision:
            raise StaleCallItemError(uri)
        side = "from" if direction == "incoming" else "to"
        response = await conn.request(
            f"callHierarchy/{direction}Calls", {"item": call_item_params(item)}
        )
        calls = [normalize_call(c, name, side) for c in self._list(response)]
        found = [call for call in calls if call is not None][:limit]
        for call in found:
            self._sign(conn, name, call[side])
        return found


def _within(path: str, root: str) -> bool:
    real = os.path.realpath(path)
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)
