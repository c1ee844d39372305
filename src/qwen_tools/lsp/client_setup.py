"""What our LSP client tells a server about itself, and how it answers the server.

:func:`initialize_params` is the ``initialize`` request (the workspace folder as root, the
client capabilities the ``lsp`` tool relies on, the server's ``initializationOptions``);
:func:`register_handlers` answers what servers ask of a client (``workspace/configuration``
from the server's ``settings``, progress and capability registrations accepted), keeps what
they publish (diagnostics, handed to ``on_published``) and quietly drops their log messages.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from qwen_tools.lsp.servers import LspServerConfig

if TYPE_CHECKING:
    from lsprotocol import types as lsp_types
    from pygls.lsp.client import LanguageClient

__all__ = ["initialize_params", "register_handlers"]


def initialize_params(config: LspServerConfig, root_uri: str) -> lsp_types.InitializeParams:
    """The ``initialize`` request for ``config``'s server."""
    from lsprotocol import types

    folder = config.workspace_folder
    # as 0.24.4 declares them (no link support, flat document symbols: its texts show
    # Location ranges and SymbolInformation), plus what our diagnostics and call hierarchy use
    text = types.TextDocumentClientCapabilities(
        synchronization=types.TextDocumentSyncClientCapabilities(),
        hover=types.HoverClientCapabilities(dynamic_registration=True),
        definition=types.DefinitionClientCapabilities(dynamic_registration=True),
        references=types.ReferenceClientCapabilities(dynamic_registration=True),
        document_symbol=types.DocumentSymbolClientCapabilities(dynamic_registration=True),
        call_hierarchy=types.CallHierarchyClientCapabilities(),
        publish_diagnostics=types.PublishDiagnosticsClientCapabilities(version_support=True),
        diagnostic=types.DiagnosticClientCapabilities(),
    )
    return types.InitializeParams(
        process_id=os.getpid(),
        root_uri=root_uri,
        root_path=folder,
        workspace_folders=[
            types.WorkspaceFolder(uri=root_uri, name=os.path.basename(folder) or folder)
        ],
        capabilities=types.ClientCapabilities(
            text_document=text,
            workspace=types.WorkspaceClientCapabilities(
                workspace_folders=True,
                configuration=True,
                symbol=types.WorkspaceSymbolClientCapabilities(),
            ),
        ),
        initialization_options=config.initialization_options,
    )


def register_handlers(
    client: LanguageClient,
    on_published: Callable[[str, int | None, list[Any]], None],
    settings: Mapping[str, Any] | None,
) -> None:
    """Answer the server's requests and take its notifications (see the module docstring)."""
    from lsprotocol import types
    from pygls.protocol import default_converter

    make_converter: Any = default_converter  # untyped in pygls
    converter = make_converter()
    feature: Any = client.feature  # an untyped decorator in pygls: called, not applied

    def published(params: types.PublishDiagnosticsParams) -> None:
        raw = converter.unstructure(params)
        on_published(params.uri, params.version, list(raw.get("diagnostics") or []))

    def configuration(params: types.ConfigurationParams) -> list[Any]:
        out: list[Any] = []
        for item in params.items:
            value: Any = dict(settings or {})
            for part in item.section.split(".") if item.section else []:
                value = value.get(part) if isinstance(value, dict) else None
            out.append(value)
        return out

    def accepted(params: Any) -> None:
        return None

    for method in (
        types.WINDOW_LOG_MESSAGE,
        types.WINDOW_SHOW_MESSAGE,
        types.PROGRESS,
        types.TELEMETRY_EVENT,
        "$/typescriptVersion",  # typescript-language-server's own notification
        types.WINDOW_WORK_DONE_PROGRESS_CREATE,
        types.CLIENT_REGISTER_CAPABILITY,
    ):
        feature(method)(accepted)
    feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)(published)
    feature(types.WORKSPACE_CONFIGURATION)(configuration)
