"""``qwen-tools serve --transport http`` under concurrent MCP clients, against the SDK's floor.

Run: ``.venv/bin/python bench/serve.py [--calls N] [--levels 1,10,50] [--procs P]
[--mode legacy|auto] [--rounds R] [--http="--stateless --json-response"] [--serve-args "..."]``
(``--http=`` with ``=``: its value starts with ``--``). The three protocols of a served call are
three runs: ``--mode legacy`` (handshake, per-client sessions), ``--mode legacy
--http=--stateless`` and ``--mode auto`` (session-less: a session per request).

Two servers run side by side on 127.0.0.1, both over streamable HTTP with uvicorn:

* **ours**: ``qwen-tools serve --transport http`` on a temp workspace, answering ``read_file``
  of a 4 KB file (and, with ``--tools``, ``grep_search`` and ``glob`` too);
* **floor**: a Python-SDK low-level ``Server`` (this file, ``--floor-server``) whose one tool
  returns a constant text: what the protocol itself costs on this machine ("ok"; with
  ``--floor-text``, also a line for a constant text as long as the file ours reads, to tell the
  cost of carrying the text from ours).

For each concurrency level (total client sessions), each server gets ``--procs`` client
processes (this file, ``--client``; fewer when the level is smaller), each holding its share
of real ``mcp.Client`` sessions over streamable HTTP, all opened before the clock starts. On
"go" every session makes ``--calls`` / level calls one after the other (all sessions at once).
The server's CPU time (user + system, from ``/proc/<pid>/stat``) is read before and after;
CPU per call = delta / calls. Latency is each call's round trip as the client sees it (p50,
p99). The servers are measured one after the other at each level, in alternating order per
round (``--rounds``), so load from elsewhere on the machine hits both alike; compare the
ratio within one run. ``bench/serve_breakdown.py`` splits our own part of a call (session open
and close, first and later calls, scheduler, tool) in process.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]

import argparse  # noqa: E402
import asyncio  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import shlex  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from typing import Any  # noqa: E402

FLOOR_TEXT = "ok"
TICK = os.sysconf("SC_CLK_TCK")


# -- the floor server -------------------------------------------------------------------


def floor_server(port: int, flags: list[str]) -> None:
    """A Python-SDK server over streamable HTTP whose ``constant`` tool returns a constant."""
    import mcp_types as types
    import uvicorn
    from mcp.server.lowlevel import Server

    tool = types.Tool(
        name="constant",
        description="Returns a constant.",
        input_schema={"type": "object", "properties": {"size": {"type": "integer"}}},
    )

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[tool])

    async def call_tool(ctx: Any, params: Any) -> types.CallToolResult:
        size = int((params.arguments or {}).get("size", 0))
        text = "x" * size if size else FLOOR_TEXT
        return types.CallToolResult(content=[types.TextContent(text=text)])

    server: Server[Any] = Server("floor", on_list_tools=list_tools, on_call_tool=call_tool)
    app = server.streamable_http_app(
        host="127.0.0.1",
        max_sessions=None,
        stateless_http="--stateless" in flags,
        json_response="--json-response" in flags,
    )
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_config=None, access_log=False)
    uvicorn.Server(config).run()


# -- a client process -------------------------------------------------------------------


async def client_main(url: str, sessions: int, calls: int, tool: str, args: str, mode: str) -> None:
    """Open ``sessions`` sessions, say ready, wait for go, make the calls, print latencies."""
    from contextlib import AsyncExitStack

    from mcp import Client

    arguments = json.loads(args)
    async with AsyncExitStack() as stack:
        clients = [
            await stack.enter_async_context(Client(url, mode=mode, cache=None))  # type: ignore[arg-type]
            for _ in range(sessions)
        ]
        for client in clients:  # warm-up: the session (and its tool) is open on the server
            await client.call_tool(tool, arguments)
        print("ready", flush=True)
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, sys.stdin.readline)
        latencies: list[float] = []
        errors = 0

        async def run(client: Any, count: int) -> None:
            nonlocal errors
            for _ in range(count):
                started = time.perf_counter()
                result = await client.call_tool(tool, arguments)
                latencies.append(time.perf_counter() - started)
                errors += bool(result.is_error)

        share = [calls // sessions + (i < calls % sessions) for i in range(sessions)]
        await asyncio.gather(*(run(c, n) for c, n in zip(clients, share, strict=True)))
        print(json.dumps({"latencies": latencies, "errors": errors}), flush=True)


# -- the driver -------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    """User + system CPU of ``pid`` (and its waited-for children), seconds."""
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return sum(int(v) for v in fields[11:15]) / TICK


def wait_listening(port: int, process: subprocess.Popen[bytes], timeout: float = 60) -> None:
    """Wait until ``process`` listens on ``port``; stop it and raise if it never does."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    stop(process)
    raise RuntimeError("server did not listen")


def start_ours(
    workspace: Path, extra: list[str], src: str | None = None
) -> tuple[subprocess.Popen[bytes], str]:
    """Our serve; ``src``: another source tree of the package (e.g. an older commit's)."""
    port = free_port()
    exe = Path(sys.executable).with_name("qwen-tools")
    command = [str(exe), "serve", "--transport", "http", "--port", str(port)]
    command += ["--cwd", str(workspace), "--max-sessions", "1000", *extra]
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = os.pathsep.join([src, env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    process = subprocess.Popen(command, cwd=workspace, stderr=subprocess.DEVNULL, env=env)
    wait_listening(port, process)
    return process, f"http://127.0.0.1:{port}/mcp"


def start_floor(flags: list[str]) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    command = [sys.executable, __file__, "--floor-server", str(port), *flags]
    process = subprocess.Popen(command, stderr=subprocess.DEVNULL)
    wait_listening(port, process)
    return process, f"http://127.0.0.1:{port}/mcp"


def measure(
    pid: int,
    url: str,
    tool: str,
    args: dict[str, Any],
    level: int,
    calls: int,
    procs: int,
    mode: str,
) -> dict[str, float]:
    """One level on one server: CPU per call (ms), p50/p99 (ms), calls/s, errors."""
    count = min(procs, level)
    sessions = [level // count + (i < level % count) for i in range(count)]
    per_call = [calls * s // level for s in sessions]
    clients = [
        subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--client",
                url,
                str(s),
                str(c),
                tool,
                json.dumps(args),
                mode,
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for s, c in zip(sessions, per_call, strict=True)
    ]
    for client in clients:
        assert client.stdout is not None
        if client.stdout.readline().strip() != "ready":
            raise RuntimeError("a client did not get ready")
    before = cpu_seconds(pid)
    started = time.perf_counter()
    for client in clients:
        assert client.stdin is not None
        client.stdin.write("go\n")
        client.stdin.flush()
    latencies: list[float] = []
    errors = 0
    for client in clients:
        out, _ = client.communicate()
        report = json.loads(out.strip().splitlines()[-1])
        latencies += report["latencies"]
        errors += report["errors"]
    elapsed = time.perf_counter() - started
    used = cpu_seconds(pid) - before
    latencies.sort()
    done = len(latencies)
    return {
        "cpu_ms": used / done * 1000,
        "p50_ms": statistics.median(latencies) * 1000,
        "p99_ms": latencies[min(done - 1, int(done * 0.99))] * 1000,
        "rate": done / elapsed,
        "errors": errors,
    }


def sample_text(workspace: Path) -> str:
    """The sample file's text (about what ``read_file`` answers for it)."""
    return (workspace / "sample.txt").read_text()


def workload(workspace: Path, tools: bool) -> dict[str, tuple[str, dict[str, Any]]]:
    sample = workspace / "sample.txt"
    sample.write_text(
        "".join(f"line {i:03d}: the quick brown fox jumps over the lazy dog\n" for i in range(64))
    )
    for i in range(20):
        (workspace / "src").mkdir(exist_ok=True)
        (workspace / "src" / f"mod{i}.py").write_text(f"def f{i}():\n    return {i}\n")
    loads = {"read_file 4 KB": ("read_file", {"file_path": str(sample)})}
    if tools:
        loads["grep_search"] = ("grep_search", {"pattern": "return 1"})
        loads["glob"] = ("glob", {"pattern": "src/*.py"})
    return loads


def stop(process: subprocess.Popen[bytes]) -> None:
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=1000, help="calls per level and server")
    parser.add_argument("--levels", default="1,10,50")
    parser.add_argument("--procs", type=int, default=2, help="client processes per level")
    parser.add_argument("--mode", default="legacy", help="the clients' mode: legacy or auto")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--tools", action="store_true", help="also grep_search and glob")
    parser.add_argument(
        "--floor-text", action="store_true", help="also the floor with a 4 KB constant text"
    )
    parser.add_argument("--serve-args", default="", help="extra arguments to our serve")
    parser.add_argument(
        "--before-src",
        help="also serve from this source tree (an older commit's src/) in the same run",
    )
    parser.add_argument(
        "--http",
        default="",
        help="HTTP modes for both servers: '--stateless' and/or '--json-response'",
    )
    args = parser.parse_args()
    levels = [int(v) for v in args.levels.split(",")]
    with tempfile.TemporaryDirectory(prefix="qwen-tools-bench-serve-") as tmp:
        workspace = Path(os.path.realpath(tmp))
        loads = workload(workspace, args.tools)
        flags = shlex.split(args.http)
        servers: dict[str, tuple[subprocess.Popen[bytes], str]] = {}
        try:
            servers["floor"] = start_floor(flags)
            servers["ours"] = start_ours(workspace, [*flags, *shlex.split(args.serve_args)])
            if args.before_src:
                before_args = [*flags, *shlex.split(args.serve_args)]
                servers["before"] = start_ours(workspace, before_args, args.before_src)
            print(
                f"serve over streamable HTTP, {args.calls} calls per line, clients in "
                f"{args.procs} processes (mode {args.mode}), {os.cpu_count()} CPUs"
                + (f", both servers {args.http}" if args.http else "")
            )
            print(
                f"{'server / tool':<28}{'clients':>8}{'CPU/call':>11}{'p50':>9}{'p99':>9}"
                f"{'calls/s':>9}{'ratio':>7}"
            )
            for round_ in range(args.rounds):
                for level in levels:
                    rows: dict[str, dict[str, float]] = {}
                    order = [("floor", "floor constant", "constant", {})]
                    if args.floor_text:
                        size = {"size": len(sample_text(workspace))}
                        order.append(("floor", "floor constant 4 KB", "constant", size))
                    for name, (tool, arguments) in loads.items():
                        order += [
                            (who, f"{who} {name}", tool, arguments)
                            for who in servers
                            if who != "floor"
                        ]
                    if round_ % 2:
                        order.reverse()
                    for who, label, tool, arguments in order:
                        process, url = servers[who]
                        rows[label] = measure(
                            process.pid,
                            url,
                            tool,
                            arguments,
                            level,
                            args.calls,
                            args.procs,
                            args.mode,
                        )
                    base = rows["floor constant"]["cpu_ms"]
                    for name, row in sorted(rows.items(), key=lambda kv: kv[0] != "floor constant"):
                        print(
                            f"{name:<28}{level:>8}{row['cpu_ms']:>9.2f}ms{row['p50_ms']:>7.1f}ms"
                            f"{row['p99_ms']:>7.1f}ms{row['rate']:>9.0f}{row['cpu_ms'] / base:>6.2f}x"
                            + (f"  {int(row['errors'])} errors" if row["errors"] else ""),
                            flush=True,
                        )
        finally:
            for process, _url in servers.values():
                stop(process)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--floor-server":
        floor_server(int(sys.argv[2]), sys.argv[3:])
    elif len(sys.argv) > 1 and sys.argv[1] == "--client":
        url, sessions, calls, tool, tool_args, mode = sys.argv[2:8]
        asyncio.run(client_main(url, int(sessions), int(calls), tool, tool_args, mode))
    else:
        main()
