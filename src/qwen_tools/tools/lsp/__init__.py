"""``lsp``: code intelligence from the project's language servers (Qwen Code 0.24.4's ``lsp``).

* :mod:`.params` — the typed params (``LspParams``, the reference's names);
* :mod:`.schema` — the schema, our description, and the reference's validation messages;
* :mod:`.tool` — :class:`~.tool.LspTool` and its invocation: each operation asked of
  :class:`qwen_tools.lsp.service.LspService` and answered in the reference's texts;
* :mod:`.format` — locations, symbols, calls and diagnostics as the reference prints them;
* :mod:`.enabled` — whether the tool is offered: ``lsp.enabled`` (or ``--experimental-lsp``)
  and at least one configured server.
"""
