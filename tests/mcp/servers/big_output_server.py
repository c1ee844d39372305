"""A stdio MCP server whose one tool, ``big``, answers with ``chars`` characters of text.

Usage: ``python big_output_server.py``. The text is ``line <n>`` lines, so its head and tail
can be told apart; the last line is ``END-OF-BIG-OUTPUT``.
"""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

server = MCPServer("big")


@server.tool(structured_output=False)
def big(chars: int) -> str:
    """Return about ``chars`` characters of numbered lines."""
    lines: list[str] = []
    size = 0
    number = 0
    while size < chars:
        line = f"line {number:09d} " + "x" * 48
        lines.append(line)
        size += len(line) + 1
        number += 1
    lines.append("END-OF-BIG-OUTPUT")
    return "\n".join(lines)


if __name__ == "__main__":
    server.run("stdio")
