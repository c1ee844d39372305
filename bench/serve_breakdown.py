"""Where a served ``read_file`` spends its CPU, in process (no HTTP): session, call, tool.

Run: ``.venv/bin/python bench/serve_breakdown.py [--calls N]``.

``bench/serve.py`` measures the whole server against the SDK's floor; this splits our own part
of one call, on the same 4 KB file, with the server's own objects (``ToolServer`` with the
client-session opener ``serve`` uses, :class:`~qwen_tools.session.template.SessionTemplate`):

* **open** a client session (what every request costs over the session-less protocol or
  ``--stateless``), **close** it;
* the **first call** on a fresh session (its tool is built, its ignore files read) and a
  **second call** on the same session (what a handshake-mode client pays per call);
* below that, on a warm session: the scheduler's batch (``schedule``), the tool alone
  (``build`` + ``execute``) and the MCP result built from the completed call.

Times are CPU time per iteration (``time.process_time``), microseconds, best of ``--rounds``.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]

import argparse  # noqa: E402
import asyncio  # noqa: E402
import os  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Awaitable, Callable  # noqa: E402
from typing import Any  # noqa: E402


async def measure(workspace: Path, calls: int, rounds: int) -> dict[str, float]:
    from qwen_tools.cli.serve_cmd import session_factory
    from qwen_tools.contract.abort import AbortSignal
    from qwen_tools.execution.call_types import ToolCallRequest
    from qwen_tools.serve.content import call_result
    from qwen_tools.serve.server import ToolServer
    from qwen_tools.serve.wire_text import well_formed_result

    args = argparse.Namespace(cwd=str(workspace), approval_mode=None, experimental_lsp=False)
    arguments = {"file_path": str(workspace / "sample.txt")}
    base = session_factory(args, "on_demand")(None)
    best: dict[str, float] = {}
    async with base:
        app = ToolServer(
            base.registry, base.config, open_session=session_factory(args, "on_demand", base.config)
        )
        warm = await app._enter_client(None)
        tool = warm[0].registry.get_tool("read_file")
        assert tool is not None

        async def session_steps() -> list[float]:
            t0 = time.process_time()
            session, scheduler = await app._enter_client(None)
            t1 = time.process_time()
            await app.call("read_file", arguments, scheduler=scheduler)
            t2 = time.process_time()
            await app.call("read_file", arguments, scheduler=scheduler)
            t3 = time.process_time()
            app.client_sessions.discard(session)
            await session.aclose()
            t4 = time.process_time()
            return [t1 - t0, t2 - t1, t3 - t2, t4 - t3]

        async def schedule() -> None:
            await warm[1].schedule([ToolCallRequest("read_file", dict(arguments), "c1")])

        async def convert() -> None:
            (done,) = await warm[1].schedule([ToolCallRequest("read_file", dict(arguments), "c")])
            well_formed_result(call_result(done))

        async def tool_alone() -> None:
            await tool.build(dict(arguments)).execute(AbortSignal.never())

        parts: dict[str, Callable[[], Awaitable[Any]]] = {
            "warm: schedule": schedule,
            "warm: schedule + MCP result": convert,
            "warm: tool build + execute": tool_alone,
        }
        for _ in range(rounds):
            sums = [0.0] * 4
            for _ in range(calls):
                for i, t in enumerate(await session_steps()):
                    sums[i] += t
            labels = ["open", "first call", "second call", "close"]
            for label, total in zip(labels, sums, strict=True):
                best[label] = min(best.get(label, 1e9), total / calls * 1e6)
            for label, part in parts.items():
                started = time.process_time()
                for _ in range(calls):
                    await part()
                spent = (time.process_time() - started) / calls * 1e6
                best[label] = min(best.get(label, 1e9), spent)
        app.client_sessions.discard(warm[0])
        await warm[0].aclose()
        await app.shutdown()
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="qwen-tools-bench-breakdown-") as tmp:
        workspace = Path(os.path.realpath(tmp))
        (workspace / "sample.txt").write_text(
            "".join(
                f"line {i:03d}: the quick brown fox jumps over the lazy dog\n" for i in range(64)
            )
        )
        best = asyncio.run(measure(workspace, options.calls, options.rounds))
    print(f"read_file of a 4 KB file, in process, CPU per step (best of {options.rounds})")
    for label, value in best.items():
        print(f"  {label:<30}{value:8.1f} us")


if __name__ == "__main__":
    main()
