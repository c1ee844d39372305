"""One running language server: its process tree, its LSP client, its documents and diagnostics.

The protocol is ``pygls``'s :class:`~pygls.lsp.client.LanguageClient` with ``lsprotocol``'s
types (requests are built as typed params; answers are turned back into plain JSON with the
same converter, so :mod:`.normalize` reads them as the reference reads its raw answers).

The server is spawned in its own session through :mod:`qwen_tools.process.supervisor` (as the
shell spawns commands): :meth:`LspConnection.aclose` ends its whole tree, whatever it started.
Its stderr is drained into a short tail, quoted when it dies. Documents are opened (or changed,
with their full text) from disk before each request that names them; diagnostics are pulled
(``textDocument/diagnostic``) from servers that offer it and otherwise taken from what the
server published for the version last sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from qwen_tools.lsp.servers import LspServerConfig
from qwen_tools.process import supervisor

if TYPE_CHECKING:
    from pygls.lsp.client import LanguageClient

    from qwen_tools.process.tree import ProcessTree

__all__ = ["LspConnection", "LspServerError", "file_uri"]

REQUEST_TIMEOUT_S = 15.0
DIAGNOSTICS_WAIT_S = 15.0
UNVERSIONED_WAIT_S = 3.0
SETTLE_S = 0.3
_STDERR_TAIL = 4096


class LspServerError(Exception):
    """A server could not be started, died, or failed a request; the message is model-facing."""


def _language_client() -> LanguageClient:
    try:
        from pygls.lsp.client import LanguageClient
    except ImportError as exc:  # the optional dependency
        raise LspServerError(
            "LSP support needs the 'lsp' extra (pip install 'qwen-tools[lsp]'): "
            f"{exc.name or exc} is not installed"
        ) from None
    from qwen_tools._version import __version__

    return LanguageClient("qwen-tools", __version__)


class _Document:
    __slots__ = ("published", "publishes", "text", "unversioned", "version")

    def __init__(self, text: str) -> None:
        self.text = text
        self.version = 1
        self.published: asyncio.Event = asyncio.Event()
        self.unversioned = False
        """The server publishes without versions (typescript-language-server): it may not
        publish again when nothing changed, or publish more than once for one change, so after
        a change its publishes are waited for briefly, until they settle."""
        self.publishes = 0


class LspConnection:
    """A started server; build it with :meth:`start`."""

    def __init__(self, config: LspServerConfig, client: LanguageClient) -> None:
        self.config = config
        self.client = client
        self.capabilities: dict[str, Any] = {}
        self._tree: ProcessTree | None = None
        self._documents: dict[str, _Document] = {}
        self._diagnostics: dict[str, tuple[int | None, list[Any]]] = {}
        self._stderr = bytearray()
        self._tasks: list[asyncio.Task[Any]] = []
        self._sync_lock = asyncio.Lock()
        self._closed = False
        from pygls.protocol import default_converter

        make_converter: Any = default_converter  # untyped in pygls
        self._converter = make_converter()
        self.secret = os.urandom(32)
        """Signs the call hierarchy items this connection gave (see :mod:`.call_items`)."""

    # -- starting ------------------------------------------------------------------------

    @classmethod
    async def start(cls, config: LspServerConfig, env: Mapping[str, str]) -> LspConnection:
        """Spawn and initialize the server; raises :class:`LspServerError` with the reason."""
        if config.transport != "stdio":
            raise LspServerError(
                f"LSP server {config.name} uses the {config.transport} transport, "
                "which is not supported (use stdio)"
            )
        client = _language_client()
        connection = cls(config, client)
        connection._register_handlers()
        launch = supervisor.prepare()
        full_env = {**env, **config.env}
        try:
            await client.start_io(
                str(config.command),
                *config.args,
                cwd=config.workspace_folder,
                env=launch.environment(full_env),
                start_new_session=True,
                preexec_fn=launch.preexec,
            )
        except FileNotFoundError:
            launch.abandon()
            raise LspServerError(
                f"LSP server {config.name} could not start: command not found: {config.command}"
            ) from None
        except OSError as exc:
            launch.abandon()
            raise LspServerError(
                f"LSP server {config.name} could not start: {exc.strerror or exc}"
            ) from None
        process = connection._process
        assert process is not None
        connection._tree = launch.started(process.pid)
        connection._tasks.append(asyncio.ensure_future(connection._drain_stderr()))
        try:
            await connection._initialize(config.startup_timeout_ms / 1000)
        except BaseException:
            await connection.aclose()
            raise
        return connection

    @property
    def _process(self) -> asyncio.subprocess.Process | None:
        return self.client._server

    @property
    def pid(self) -> int | None:
        """The server's process id."""
        process = self._process
        return process.pid if process is not None else None

    @property
    def alive(self) -> bool:
        """Whether the server process still runs (and we did not close it)."""
        process = self._process
        return not self._closed and process is not None and process.returncode is None

    def _register_handlers(self) -> None:
        from qwen_tools.lsp.client_setup import register_handlers

        register_handlers(self.client, self._published, self.config.settings)

    def _published(self, uri: str, version: int | None, diagnostics: list[Any]) -> None:
        self._diagnostics[uri] = (version, diagnostics)
        document = self._documents.get(uri)
        if document is not None and version in (None, document.version):
            document.unversioned = document.unversioned or version is None
            document.publishes += 1
            document.published.set()

    async def _drain_stderr(self) -> None:
        process = self._process
        stream = process.stderr if process is not None else None
        if stream is None:
            return
        while chunk := await stream.read(65536):
            self._stderr += chunk
            del self._stderr[:-_STDERR_TAIL]

    def _exit_reason(self) -> str:
        process = self._process
        code = process.returncode if process is not None else None
        reason = f"LSP server {self.config.name} exited"
        if code is not None:
            reason += f" (exit code {code})" if code >= 0 else f" (signal {-code})"
        tail = self._stderr.decode("utf-8", "replace").strip().splitlines()[-3:]
        return reason + (": " + " | ".join(tail) if tail else "")

    async def _initialize(self, timeout_s: float) -> None:
        from lsprotocol import types

        from qwen_tools.lsp.client_setup import initialize_params

        params = initialize_params(self.config, file_uri(self.config.workspace_folder))
        request = asyncio.ensure_future(self.client.initialize_async(params))
        exited = asyncio.ensure_future(self._wait_exit())
        try:
            done, _ = await asyncio.wait(
                {request, exited}, timeout=timeout_s, return_when="FIRST_COMPLETED"
            )
        finally:
            exited.cancel()
        if request not in done:
            request.cancel()
            if exited in done:
                await self._exited_soon()
                raise LspServerError(f"{self._exit_reason()} during startup")
            raise LspServerError(
                f"LSP server {self.config.name} did not initialize within {timeout_s * 1000:g} ms"
            )
        try:
            result = request.result()
        except Exception as exc:
            if await self._exited_soon():
                raise LspServerError(f"{self._exit_reason()} during startup") from None
            raise LspServerError(
                f"LSP server {self.config.name} failed to initialize: {exc}"
            ) from None
        self.capabilities = self._converter.unstructure(result.capabilities) or {}
        self.client.initialized(types.InitializedParams())
        if self.config.settings:
            self.client.workspace_did_change_configuration(
                types.DidChangeConfigurationParams(settings=dict(self.config.settings))
            )

    async def _exited_soon(self, wait_s: float = 1.0) -> bool:
        """Whether the process has exited (or does within ``wait_s``); then let the last of
        its stderr arrive."""
        process = self._process
        if process is None:
            return True
        if process.returncode is None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(process.wait()), wait_s)
        if process.returncode is None:
            return False
        for task in self._tasks:  # the stderr drain ends at EOF
            with contextlib.suppress(TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(task), 0.5)
        return True

    async def _wait_exit(self) -> None:
        process = self._process
        if process is not None:
            await process.wait()

    # -- requests ------------------------------------------------------------------------

    def supports(self, capability: str) -> bool:
        """Whether the server declared ``capability`` (``callHierarchyProvider``...)."""
        value = self.capabilities.get(capability)
        return value is not None and value is not False

    async def request(self, method: str, params: Any, timeout_s: float = REQUEST_TIMEOUT_S) -> Any:
        """Send one request; its answer as plain JSON. Raises :class:`LspServerError`."""
        if not self.alive:
            raise LspServerError(self._exit_reason())
        from pygls.exceptions import JsonRpcMethodNotFound

        if isinstance(params, dict):
            params = self._typed_params(method, params)
        future = self.client.protocol.send_request_async(method, params)
        try:
            result = await asyncio.wait_for(future, timeout_s)
        except JsonRpcMethodNotFound:
            raise LspServerError(
                f"LSP server {self.config.name} does not support {method}"
            ) from None
        except TimeoutError:
            raise LspServerError(
                f"LSP server {self.config.name} did not answer {method} within {timeout_s:g} s"
            ) from None
        except Exception as exc:
            if await self._exited_soon():
                raise LspServerError(self._exit_reason()) from None
            raise LspServerError(f"{method}: {exc}") from None
        return self._converter.unstructure(result)

    def _typed_params(self, method: str, params: dict[str, Any]) -> Any:
        """``params`` as the ``lsprotocol`` type of ``method``'s params (pygls sends those)."""
        from lsprotocol.types import METHOD_TO_TYPES

        params_type = METHOD_TO_TYPES[method][2]
        try:
            return self._converter.structure(params, params_type)
        except Exception as exc:
            raise LspServerError(f"{method}: invalid request parameters ({exc})") from None

    async def sync_document(self, uri: str, language_id: str, text: str) -> bool:
        """Show the server the document's current ``text`` (open, or change); whether it was
        opened now."""
        from lsprotocol import types

        async with self._sync_lock:
            document = self._documents.get(uri)
            if document is None:
                self._documents[uri] = _Document(text)
                self.client.text_document_did_open(
                    types.DidOpenTextDocumentParams(
                        text_document=types.TextDocumentItem(
                            uri=uri, language_id=language_id, version=1, text=text
                        )
                    )
                )
                return True
            if document.text != text:
                document.text = text
                document.version += 1
                document.published = asyncio.Event()
                self.client.text_document_did_change(
                    types.DidChangeTextDocumentParams(
                        text_document=types.VersionedTextDocumentIdentifier(
                            uri=uri, version=document.version
                        ),
                        content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
                    )
                )
            return False

    def tracked_uris(self) -> list[str]:
        """The documents this server was shown."""
        return list(self._documents)

    async def diagnostics(self, uri: str, wait_s: float = DIAGNOSTICS_WAIT_S) -> list[Any]:
        """The document's diagnostics (raw LSP JSON): pulled, or as last published."""
        from lsprotocol import types

        if self.supports("diagnosticProvider"):
            result = await self.request(
                types.TEXT_DOCUMENT_DIAGNOSTIC,
                types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri)),
            )
            items = result.get("items") if isinstance(result, dict) else None
            return list(items) if isinstance(items, list) else []
        document = self._documents.get(uri)
        if document is not None and not document.published.is_set():
            if document.unversioned:
                wait_s = min(wait_s, UNVERSIONED_WAIT_S)
            waiter = asyncio.ensure_future(document.published.wait())
            exited = asyncio.ensure_future(self._wait_exit())
            try:
                await asyncio.wait({waiter, exited}, timeout=wait_s, return_when="FIRST_COMPLETED")
            finally:
                waiter.cancel()
                exited.cancel()
            if not self.alive:
                raise LspServerError(self._exit_reason())
            if document.unversioned:
                await self._settle(document, wait_s)
        return list(self._diagnostics.get(uri, (None, []))[1])

    async def _settle(self, document: _Document, wait_s: float) -> None:
        """Wait (at most ``wait_s``) until no new publish came for ``SETTLE_S``."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait_s
        while self.alive and loop.time() < deadline:
            seen = document.publishes
            await asyncio.sleep(SETTLE_S)
            if document.publishes == seen:
                return

    def published_diagnostics(self) -> dict[str, list[Any]]:
        """Every document's last published diagnostics."""
        return {uri: list(items) for uri, (_v, items) in self._diagnostics.items()}

    # -- closing -------------------------------------------------------------------------

    async def aclose(self) -> None:
        """``shutdown`` and ``exit`` (bounded by ``shutdownTimeout``), then end the whole tree."""
        if self._closed:
            return
        process = self._process
        timeout_s = self.config.shutdown_timeout_ms / 1000
        # (a server that never initialized is not asked to shut down: it is ended)
        if process is not None and process.returncode is None and self.capabilities:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.client.shutdown_async(None), timeout_s)
                self.client.exit(None)
                await asyncio.wait_for(process.wait(), min(timeout_s, 1.0))
        self._closed = True
        tree = self._tree
        if tree is not None:
            exited = asyncio.ensure_future(process.wait()) if process is not None else None
            await tree.terminate(exited)
            if exited is not None and not exited.done():
                exited.cancel()
            supervisor.settle(tree)
        elif process is not None and process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, 9)
        if process is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(process.wait(), 5)
        with contextlib.suppress(Exception):
            stop: Any = self.client.stop  # untyped in pygls
            await asyncio.wait_for(stop(), 2)
        for task in self._tasks:
            task.cancel()


def file_uri(path: str) -> str:
    """The ``file://`` URI of an absolute path."""
    return Path(path).as_uri()
