"""MCP: our server's ``tools/call`` round trip, and our client's discovery start-up.

Run: ``.venv/bin/python bench/mcp.py [--calls N] [--runs N] [--servers N] [--delay S]``.

* **Round trip over stdio.** One Python-SDK client per server, all open at once: ``qwen-tools
  serve`` answering ``read_file`` and ``@modelcontextprotocol/server-filesystem@2026.8.31``
  (Node 22) answering ``read_text_file``, on the same 4 KB file. After a warm-up, the calls
  alternate between the two; the script prints the median µs per call and the ratio. A
  Python-SDK server's trivial ``ping`` is timed alongside: the SDKs' own floor.
* **Discovery start-up.** ``--servers`` Python-SDK stdio servers
  (``tests/mcp/servers/slow_start_server.py``) that wait ``--delay`` seconds before reading
  ``initialize``: one :class:`McpManager` connecting them all (in parallel) against one manager
  per server started one after the other (in series), with one server alone for reference.
  Only the connecting is timed; the managers are closed afterwards. The runs alternate;
  medians and the speed-up are printed.

The npm peer is installed on first use into the test cache (``tests/support/npm_peers.py``).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# This file is called mcp.py: keep its directory off the path so ``import mcp`` finds the SDK.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
sys.path.append(str(ROOT / "tests"))

import argparse  # noqa: E402
import asyncio  # noqa: E402
import os  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from contextlib import AsyncExitStack  # noqa: E402
from typing import Any  # noqa: E402

from qwen_tools import Config, McpServerConfig, ToolSettings  # noqa: E402
from qwen_tools.mcp.connection import McpServerStatus  # noqa: E402
from qwen_tools.mcp.manager import McpManager  # noqa: E402
from support.npm_peers import node22, npm_module  # noqa: E402

FILESYSTEM = "@modelcontextprotocol/server-filesystem@2026.8.31"
SLOW_SERVER = ROOT / "tests" / "mcp" / "servers" / "slow_start_server.py"
WARM_UP = 10
OURS = "qwen-tools serve  read_file"
THEIRS = "server-filesystem read_text_file"
FLOOR = "Python-SDK server ping (floor)"


def _qwen_tools() -> str:
    exe = Path(sys.executable).parent / "qwen-tools"
    return str(exe) if exe.exists() else "qwen-tools"


def _text_of(result: Any) -> str:
    if result.is_error:
        raise RuntimeError(f"tool error: {result.content!r}"[:300])
    return "".join(getattr(block, "text", "") for block in result.content)


async def round_trips(calls: int, directory: Path) -> dict[str, list[float]]:
    """``calls`` alternating ``tools/call`` round trips to each server; seconds per call."""
    from mcp.client import Client
    from mcp.client.stdio import StdioServerParameters, stdio_client

    target = directory / "sample.txt"
    body = "".join(
        f"line {i:03d}: the quick brown fox jumps over the lazy dog\n" for i in range(64)
    )
    target.write_text(body)
    filesystem = npm_module(FILESYSTEM) / "dist" / "index.js"
    servers = {
        OURS: (
            StdioServerParameters(
                command=_qwen_tools(), args=["serve", "--cwd", str(directory)], cwd=directory
            ),
            "read_file",
            {"file_path": str(target)},
        ),
        THEIRS: (
            StdioServerParameters(
                command=str(node22()),
                args=[str(filesystem), str(directory)],
                cwd=directory,
            ),
            "read_text_file",
            {"path": str(target)},
        ),
    }
    servers[FLOOR] = (
        StdioServerParameters(command=sys.executable, args=[str(SLOW_SERVER), "--delay", "0"]),
        "ping",
        {},
    )
    samples: dict[str, list[float]] = {name: [] for name in servers}
    async with AsyncExitStack() as stack:
        devnull = stack.enter_context(open(os.devnull, "w"))  # noqa: SIM115 - their banners
        clients = {
            name: await stack.enter_async_context(
                Client(stdio_client(params, errlog=devnull), mode="legacy", cache=None)
            )
            for name, (params, _tool, _args) in servers.items()
        }
        for name, (_params, tool, arguments) in servers.items():
            for _ in range(WARM_UP):
                text = _text_of(await clients[name].call_tool(tool, arguments))
            if tool != "ping" and body.rstrip("\n") not in text:
                raise RuntimeError(f"{name} did not return the file: {text[:200]!r}")
        for _ in range(calls):  # interleaved, so load from elsewhere hits both alike
            for name, (_params, tool, arguments) in servers.items():
                started = time.perf_counter()
                await clients[name].call_tool(tool, arguments)
                samples[name].append(time.perf_counter() - started)
    return samples


def _slow_servers(count: int, delay: float) -> dict[str, McpServerConfig]:
    args = (str(SLOW_SERVER), "--delay", str(delay))
    return {f"s{i}": McpServerConfig(command=sys.executable, args=args) for i in range(count)}


async def _parallel(root: Path, servers: dict[str, McpServerConfig]) -> float:
    manager = McpManager(Config(root, settings=ToolSettings(mcp_servers=servers)))
    started = time.perf_counter()
    await manager.start()
    elapsed = time.perf_counter() - started
    try:
        _check_connected([manager])
    finally:
        await manager.aclose()
    return elapsed


async def _series(root: Path, servers: dict[str, McpServerConfig]) -> float:
    managers = [
        McpManager(Config(root, settings=ToolSettings(mcp_servers={name: server})))
        for name, server in servers.items()
    ]
    started = time.perf_counter()
    for manager in managers:
        await manager.start()
    elapsed = time.perf_counter() - started
    try:
        _check_connected(managers)
    finally:
        await asyncio.gather(*(manager.aclose() for manager in managers))
    return elapsed


def _check_connected(managers: list[McpManager]) -> None:
    for manager in managers:
        for name, status in manager.statuses().items():
            if status is not McpServerStatus.CONNECTED:
                raise RuntimeError(f"server {name} did not connect: {manager.last_error(name)}")


async def discovery(runs: int, count: int, delay: float, root: Path) -> dict[str, list[float]]:
    servers = _slow_servers(count, delay)
    samples: dict[str, list[float]] = {"single": [], "parallel": [], "series": []}
    one = dict(list(servers.items())[:1])
    await _parallel(root, servers)  # warm the file cache
    for _ in range(runs):
        samples["single"].append(await _parallel(root, one))
        samples["parallel"].append(await _parallel(root, servers))
        samples["series"].append(await _series(root, servers))
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--servers", type=int, default=5)
    parser.add_argument("--delay", type=float, default=0.3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="qwen-tools-bench-mcp-") as tmp:
        root = Path(os.path.realpath(tmp))
        trips = asyncio.run(round_trips(args.calls, root))
        starts = asyncio.run(discovery(args.runs, args.servers, args.delay, root))
    micros = {name: statistics.median(values) * 1e6 for name, values in trips.items()}
    ours, theirs = micros[OURS], micros[THEIRS]
    print(f"tools/call round trip over stdio, median of {args.calls} calls ({os.cpu_count()} CPUs)")
    for name, value in micros.items():
        print(f"  {name:<34}: {value:8.1f} µs")
    print(f"  {'ratio qwen-tools / filesystem':<34}: {ours / theirs:8.2f}x")
    millis = {name: statistics.median(values) * 1000 for name, values in starts.items()}
    print(
        f"discovery of {args.servers} stdio servers waiting {args.delay} s before initialize, "
        f"median of {args.runs} runs"
    )
    print(f"  {'one server alone':<34}: {millis['single']:8.1f} ms")
    print(f"  {'one McpManager (parallel)':<34}: {millis['parallel']:8.1f} ms")
    print(f"  {'one manager per server (series)':<34}: {millis['series']:8.1f} ms")
    print(f"  {'speed-up series / parallel':<34}: {millis['series'] / millis['parallel']:8.2f}x")


if __name__ == "__main__":
    main()
