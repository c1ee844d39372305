"""Memory of an idle client session of ``qwen-tools serve`` (HTTP gives each MCP client one).

Run: ``.venv/bin/python bench/session_memory.py [--sessions N]``. In one process, on a temp
workspace with an isolated home: the server's own session and :class:`ToolServer` are opened
and one client session is opened and closed (the imports and the shared caches are warm); then,
under ``tracemalloc``, N client sessions are opened exactly as the server opens them on a
client's first request (``serve``'s session factory, entered, with its scheduler) and kept open.
Reported: the traced Python allocations still held per session (target under 2 MB), and the same
after each session served one ``read_file`` call (its read cache holds one entry). The
shared caches (modules, the settings schema, compiled tool schemas) are excluded by the warm-up.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import tracemalloc
from pathlib import Path
from typing import Any

# bench/mcp.py would shadow the MCP SDK: this script's folder is not an import root
_HERE = os.path.dirname(os.path.realpath(__file__))
sys.path[:] = [p for p in sys.path if os.path.realpath(p or os.curdir) != _HERE]


async def measure(workspace: Path, count: int) -> dict[str, Any]:
    from qwen_tools.cli.serve_cmd import session_factory
    from qwen_tools.execution.call_types import ToolCallRequest
    from qwen_tools.serve.server import ToolServer

    args = argparse.Namespace(cwd=str(workspace), approval_mode=None, include_directories=[])
    base = session_factory(args)()
    async with base:
        server = ToolServer(base.registry, base.config, open_session=session_factory(args))
        warm, _ = await server._enter_client()  # imports and shared caches
        await warm.aclose()
        server.client_sessions.clear()
        notes = str(workspace / "notes.txt")
        tracemalloc.start()
        before, _ = tracemalloc.get_traced_memory()
        opened = [await server._enter_client() for _ in range(count)]
        idle, _ = tracemalloc.get_traced_memory()
        for index, (_, scheduler) in enumerate(opened):
            request = ToolCallRequest("read_file", {"file_path": notes}, f"c{index}")
            (done,) = await scheduler.schedule([request], None)
            assert done.status == "success", done
        used, _ = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        await server.shutdown()
    return {
        "sessions": count,
        "idle_kib_per_session": round((idle - before) / count / 1024, 1),
        "after_one_read_kib_per_session": round((used - before) / count / 1024, 1),
        "target_kib": 2048,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=50)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(os.path.realpath(tmp))
        os.environ["HOME"] = os.environ["QWEN_HOME"] = str(root / "home")
        workspace = root / "ws"
        workspace.mkdir()
        (workspace / "notes.txt").write_text("line 1\nline 2\n")
        result = asyncio.run(measure(workspace, options.sessions))
    json.dump(result, sys.stdout, indent=2)
    print()
    return 0 if result["idle_kib_per_session"] < result["target_kib"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
