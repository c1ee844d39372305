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

:class:`ToolServer`, ``serve_http`` and ``serve_stdio`` are exported here, each imported on first
use. The ``serve`` command itself is :mod:`qwen_tools.cli.serve_cmd`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from qwen_tools._lazy import lazy_exports

if TYPE_CHECKING:  # the static view of the lazy exports below
    from qwen_tools.serve.server import ToolServer as ToolServer
    from qwen_tools.serve.transports import serve_http as serve_http, serve_stdio as serve_stdio

_EXPORTS = {
    "ToolServer": "server",
    "serve_http": "transports",
    "serve_stdio": "transports",
}
__all__ = ["ToolServer", "serve_http", "serve_stdio"]


# imported on first use: the MCP SDK loads only when something is served
__getattr__ = lazy_exports(__name__, _EXPORTS)
