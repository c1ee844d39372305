"""``qwen-tools serve``: every registered tool, offered to MCP clients.

The package needs the optional ``mcp`` extra (``pip install 'qwen-tools[mcp]'``); nothing here is
imported by ``import qwen_tools`` or by the CLI until ``serve`` runs.

* :mod:`.server` — :class:`ToolServer`: the MCP server (``tools/list`` and ``tools/call``) over a
  :class:`~qwen_tools.ToolRegistry`, each HTTP client in a :class:`~qwen_tools.Session` of its own;
* :mod:`.tool_list` — the ``tools/list`` entries, exported once per tool version;
* :mod:`.content` — a finished call as an MCP ``CallToolResult``;
* :mod:`.transports` — serving over stdio or streamable HTTP, and stopping cleanly;
* :mod:`.roots` — a client's MCP roots, narrowed to the server's workspace;
* :mod:`.self_guard` — a server never connects to itself, directly or through other servers;
* :mod:`.wire_text` — text the SDK's JSON layer cannot take, on the way in and on the way out.

The ``serve`` command itself is :mod:`qwen_tools.cli.serve_cmd`.
"""
