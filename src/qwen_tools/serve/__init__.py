"""``qwen-tools serve``: every registered tool, offered to MCP clients.

The package needs the optional ``mcp`` extra (``pip install 'qwen-tools[mcp]'``); nothing here is
imported by ``import qwen_tools`` or by the CLI until ``serve`` runs.

* :mod:`.server` builds the MCP server (``tools/list`` and ``tools/call``) from a
  :class:`~qwen_tools.ToolRegistry` and a :class:`~qwen_tools.Config`;
* :mod:`.content` turns a finished call into an MCP ``CallToolResult``;
* :mod:`.transports` serves it over stdio or streamable HTTP;
* :mod:`.cli` is the ``serve`` command.
"""
