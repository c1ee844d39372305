"""Start ``qwen-tools serve`` over stdio (as Claude Desktop or Qwen Code do) and use it.

Run: ``python examples/mcp_serve/list_tools.py [WORKSPACE]`` (needs ``qwen-tools[mcp]``).
It lists the served tools with the MCP SDK's client and calls ``read_file`` once. The JSON files
beside this script are the client configurations (``claude_desktop_config.json`` for Claude
Desktop, ``qwen_code_settings.json`` for ``~/.qwen/settings.json`` of Qwen Code).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
from pathlib import Path

from mcp import Client
from mcp.client.stdio import StdioServerParameters


def server_command(workspace: Path) -> StdioServerParameters:
    """``qwen-tools serve`` (the installed script, or ``python -m qwen_tools`` beside us)."""
    exe = shutil.which("qwen-tools", path=str(Path(sys.executable).parent))
    argv = [exe] if exe else [sys.executable, "-m", "qwen_tools"]
    return StdioServerParameters(
        command=argv[0],
        args=[*argv[1:], "serve", "--cwd", str(workspace)],
        env=dict(os.environ),
        cwd=str(workspace),
    )


async def main(workspace: Path) -> None:
    (workspace / "notes.txt").write_text("served over MCP\n")
    async with Client(server_command(workspace)) as client:
        tools = (await client.list_tools()).tools
        for listed in sorted(tools, key=lambda t: t.name):
            hints = listed.annotations
            mode = "read-only" if hints and hints.read_only_hint else "may change things"
            print(f"{listed.name:24} {mode}")
        result = await client.call_tool(
            "read_file", {"absolute_path": str(workspace / "notes.txt")}
        )
        text = "".join(getattr(block, "text", "") for block in result.content)
        print("read_file:", "error" if result.is_error else "ok", text.strip())


if __name__ == "__main__":
    if len(sys.argv) > 1:
        asyncio.run(main(Path(sys.argv[1]).resolve()))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            asyncio.run(main(Path(tmp).resolve()))
