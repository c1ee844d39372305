"""Language servers for the ``lsp`` tool: their configuration, one connection each, the manager.

* :mod:`.servers` — the servers configured as Qwen Code 0.24.4 reads them: the workspace's
  ``.lsp.json`` and ``lspServers`` in settings (``{"python": {"command": "pylsp",
  "extensionToLanguage": {".py": "python"}}}``);
* :mod:`.connection` — one running server: its process tree (ended whole), the LSP client
  (``pygls``'s ``LanguageClient`` with ``lsprotocol`` types), the documents it was shown and the
  diagnostics it published;
* :mod:`.manager` — :class:`~.manager.LspManager`: starts a server on first use per language,
  keeps it for the session, restarts it when it died, shuts them all down with the session;
* :mod:`.client_setup` — what our client tells a server about itself, and how it answers the
  server's requests;
* :mod:`.service` — :class:`~.service.LspService`: the ``lsp`` tool's operations, asked of the
  right servers;
* :mod:`.normalize` — server answers turned into the reference's plain shapes (locations,
  symbols, call hierarchy items, diagnostics with their labels);
* :mod:`.call_items` — call hierarchy items handed to the model signed, so a stale or forged
  one is refused.

``pygls`` is imported only when a server is started (``pip install 'qwen-tools[lsp]'``).
"""
