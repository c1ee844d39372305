"""Latency of the ``lsp`` tool: the first call (server start) and warm calls, against the
server's own round trip measured directly with the same client.

Run: ``.venv/bin/python bench/lsp.py [--calls N] [--server pylsp|tsls]``. On a temp workspace
(isolated home, ``.lsp.json`` with pylsp, or with typescript-language-server when it is in the
tests' npm cache), in one process:

* first call — opening the session and one ``goToDefinition`` through ``Session.call`` (the
  server is spawned, initialized, shown the file, asked); reported with the direct
  ``initialize`` time of the connection, measured inside;
* warm calls — N rounds, interleaved: (a) ``Session.call("lsp", goToDefinition)`` (scheduler,
  validation, path check, document sync, request, normalising, formatting), (b) the tool's
  invocation alone (``build_and_execute``: what the tool itself adds), (c) the same request sent
  directly on the same ``pygls`` client (``send_request_async``, the server's own round trip).

The medians are reported, and the overheads (a)-(c) and (b)-(c) per call (target: the tool's
overhead under 1 ms per call).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

_HERE = os.path.dirname(os.path.realpath(__file__))
sys.path[:] = [p for p in sys.path if os.path.realpath(p or os.curdir) != _HERE]

PY_A = "from b import helper\n\n\ndef caller():\n    return helper(1) + helper(2)\n"
PY_B = 'def helper(n):\n    """Double n."""\n    return n * 2\n'
TS_A = 'import { helper } from "./b";\nexport function caller() {\n  return helper(1) + helper(2);\n}\n'
TS_B = "export function helper(n: number): number {\n  return n * 2;\n}\n"
TSLS_CACHE = "npm/typescript-language-server_5.1.3_typescript_5.9.3/node_modules/.bin"


def _workspace(root: Path, server: str) -> tuple[str, dict[str, Any]]:
    bin_dir = str(Path(sys.executable).parent)
    if server == "tsls":
        cache = Path(
            os.environ.get("QWEN_TOOLS_TEST_CACHE") or Path.home() / ".cache/qwen-tools-tests"
        )
        tsls = cache / TSLS_CACHE
        if not (tsls / "typescript-language-server").exists():
            raise SystemExit(
                f"typescript-language-server is not installed under {tsls} (run the tests)"
            )
        (root / "a.ts").write_text(TS_A)
        (root / "b.ts").write_text(TS_B)
        (root / "tsconfig.json").write_text("{}")
        spec = {"typescript": {"command": "typescript-language-server", "args": ["--stdio"],
                               "extensionToLanguage": {".ts": "typescript"},
                               "env": {"PATH": f"{tsls}:{bin_dir}:{os.environ['PATH']}"}}}  # fmt: skip
        args = {"operation": "goToDefinition", "filePath": "a.ts", "line": 3, "character": 10}
    else:
        (root / "a.py").write_text(PY_A)
        (root / "b.py").write_text(PY_B)
        spec = {"python": {"command": "pylsp", "extensionToLanguage": {".py": "python"},
                           "env": {"PATH": f"{bin_dir}:{os.environ['PATH']}"}}}  # fmt: skip
        args = {"operation": "goToDefinition", "filePath": "a.py", "line": 5, "character": 12}
    (root / ".lsp.json").write_text(json.dumps(spec))
    return next(iter(spec.values()))["command"], args


def _ms(seconds: list[float]) -> float:
    return statistics.median(seconds) * 1000


async def measure(root: Path, home: Path, server: str, calls: int) -> dict[str, Any]:
    from qwen_tools.contract.abort import AbortSignal
    from qwen_tools.session.session import Session

    name, args = _workspace(root, server)
    (home / "settings.json").write_text(json.dumps({"lsp": {"enabled": True}}))  # user settings
    env = {**os.environ, "QWEN_HOME": str(home), "HOME": str(home)}
    start = time.perf_counter()
    async with Session(root, env=env) as session:
        first = await session.call("lsp", args)
        first_s = time.perf_counter() - start
        assert "Definitions for" in first.response_text, first.response_text
        service = session.config.services.lsp.active
        assert service is not None
        connection = service.manager.running()[name]
        uri = (root / args["filePath"]).as_uri()
        position = {"line": args["line"] - 1, "character": args["character"] - 1}
        typed = connection._typed_params(
            "textDocument/definition", {"textDocument": {"uri": uri}, "position": position}
        )
        tool = session.registry.get_tool("lsp")
        assert tool is not None
        signal = AbortSignal()
        via_session: list[float] = []
        via_tool: list[float] = []
        direct: list[float] = []
        for _ in range(calls):
            t = time.perf_counter()
            await session.call("lsp", args)
            via_session.append(time.perf_counter() - t)
            t = time.perf_counter()
            await tool.build_and_execute(dict(args), signal)
            via_tool.append(time.perf_counter() - t)
            t = time.perf_counter()
            await connection.client.protocol.send_request_async("textDocument/definition", typed)
            direct.append(time.perf_counter() - t)
    return {
        "server": name,
        "calls": calls,
        "first_call_ms": round(first_s * 1000, 1),
        "warm_session_call_ms": round(_ms(via_session), 3),
        "warm_tool_ms": round(_ms(via_tool), 3),
        "direct_request_ms": round(_ms(direct), 3),
        "overhead_session_ms": round(_ms(via_session) - _ms(direct), 3),
        "overhead_tool_ms": round(_ms(via_tool) - _ms(direct), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--server", choices=("pylsp", "tsls"), default="pylsp")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root, home = Path(tmp, "ws"), Path(tmp, "home")
        root.mkdir()
        home.mkdir()
        result = asyncio.run(measure(root, home, options.server, options.calls))
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
