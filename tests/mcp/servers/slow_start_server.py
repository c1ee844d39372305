"""A Python-SDK stdio MCP server that waits before it reads ``initialize`` (for bench/mcp.py).

Usage: ``python slow_start_server.py [--delay SECONDS]`` (default 0.3). The SDK is imported
first, so the delay adds to a real server's start-up; the server offers one tool, ``ping``.
"""

from __future__ import annotations

import argparse
import time

from mcp.server.mcpserver import MCPServer


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--delay", type=float, default=0.3)
    args = parser.parse_args()
    server = MCPServer("slow-start")

    @server.tool()
    def ping() -> str:
        """Answer ``pong``."""
        return "pong"

    time.sleep(args.delay)
    server.run("stdio")


if __name__ == "__main__":
    main()
