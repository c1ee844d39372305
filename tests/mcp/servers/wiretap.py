"""A transparent tap between an MCP client and a server that records the bytes each way.

Usage:

* ``python wiretap.py pipe --log DIR -- COMMAND ARGS...`` — runs ``COMMAND`` (a stdio server)
  with our stdin/stdout relayed to it; what the client sends goes to ``DIR/in-0``, what the
  server answers to ``DIR/out-0``. Ends when the server ends (its exit code), closes the
  server's stdin when ours ends, and passes SIGTERM on.
* ``python wiretap.py tcp --log DIR --listen PORT --upstream PORT`` — a TCP relay on
  ``127.0.0.1:PORT`` to ``127.0.0.1:UPSTREAM`` (SSE and Streamable HTTP); connection ``n``
  is recorded in ``DIR/in-n`` and ``DIR/out-n``. Runs until SIGTERM.

:func:`messages` reads a recording back as the JSON-RPC messages it contains (newline-delimited
for stdio, HTTP bodies and SSE ``data:`` lines for the remote transports).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

CHUNK = 65536


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _pump(source: int, sink: int, log: BinaryIO, on_eof: Callable[[], None] | None = None) -> None:
    """Copy ``source`` to ``sink`` (and the log) until end of file."""
    while True:
        try:
            data = os.read(source, CHUNK)
            if not data:
                break
            log.write(data)
            log.flush()
            _write_all(sink, data)
        except OSError:
            break
    if on_eof is not None:
        on_eof()


def run_pipe(log_dir: Path, argv: list[str]) -> int:
    log_dir.mkdir(parents=True, exist_ok=True)
    child = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert child.stdin is not None and child.stdout is not None
    signal.signal(signal.SIGTERM, lambda *_: child.terminate())
    with open(log_dir / "in-0", "ab") as log_in, open(log_dir / "out-0", "ab") as log_out:
        to_child = threading.Thread(
            target=_pump,
            args=(sys.stdin.fileno(), child.stdin.fileno(), log_in, child.stdin.close),
            daemon=True,
        )
        to_client = threading.Thread(
            target=_pump, args=(child.stdout.fileno(), sys.stdout.fileno(), log_out), daemon=True
        )
        to_child.start()
        to_client.start()
        code = child.wait()
        to_client.join()
    return code


async def _relay(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, log: BinaryIO) -> None:
    try:
        while data := await reader.read(CHUNK):
            log.write(data)
            log.flush()
            writer.write(data)
            await writer.drain()
    except OSError:
        pass
    finally:
        writer.close()


async def run_tcp(log_dir: Path, listen: int, upstream: int) -> None:
    log_dir.mkdir(parents=True, exist_ok=True)
    counter = itertools.count()

    async def handle(client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        number = next(counter)
        try:
            server_r, server_w = await asyncio.open_connection("127.0.0.1", upstream)
        except OSError:
            client_w.close()
            return
        with (
            open(log_dir / f"in-{number}", "ab") as log_in,
            open(log_dir / f"out-{number}", "ab") as log_out,
            contextlib.suppress(asyncio.CancelledError),  # the tap is stopping
        ):
            await asyncio.gather(
                _relay(client_r, server_w, log_in), _relay(server_r, client_w, log_out)
            )

    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    server = await asyncio.start_server(handle, "127.0.0.1", listen)
    async with server:
        await stop.wait()


def _json_objects(text: str) -> list[Any]:
    """Every JSON object embedded in ``text`` (HTTP headers and SSE framing are skipped)."""
    decoder = json.JSONDecoder()
    found: list[Any] = []
    position = text.find("{")
    while position != -1:
        try:
            value, end = decoder.raw_decode(text, position)
        except ValueError:
            position = text.find("{", position + 1)
            continue
        found.append(value)
        position = text.find("{", end)
    return found


def messages(log_dir: Path, direction: str) -> list[dict[str, Any]]:
    """The JSON-RPC messages recorded in ``direction`` (``in`` or ``out``), per connection."""
    found: list[dict[str, Any]] = []
    files = sorted(log_dir.glob(f"{direction}-*"), key=lambda p: int(p.name.split("-")[1]))
    for path in files:
        text = path.read_bytes().decode("utf-8", "replace")
        for value in _json_objects(text):
            batch = value if isinstance(value, list) else [value]
            found.extend(v for v in batch if isinstance(v, dict) and v.get("jsonrpc") == "2.0")
    return found


def main() -> None:
    argv = sys.argv[1:]
    command: list[str] = []
    if "--" in argv:
        split = argv.index("--")
        argv, command = argv[:split], argv[split + 1 :]
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["pipe", "tcp"])
    parser.add_argument("--log", type=Path, required=True)
    parser.add_argument("--listen", type=int, default=0)
    parser.add_argument("--upstream", type=int, default=0)
    args = parser.parse_args(argv)
    if args.mode == "pipe":
        sys.exit(run_pipe(args.log, command))
    asyncio.run(run_tcp(args.log, args.listen, args.upstream))


if __name__ == "__main__":
    main()
