"""Fixtures for ``qwen-tools serve``: a temp workspace and home, servers spawned as subprocesses.

Every test runs with a unique ``QWEN_TOOLS_TEST_MARK`` in the environment, which the server and
everything it starts inherit; any marked process still alive after the test is killed and the test
fails. HTTP servers are always terminated (SIGTERM, then SIGKILL).
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from support.cli_env import isolated_env
from support.leftovers import die_with_parent
from support.processes import MARK_VAR, process_guard

EXE = Path(sys.executable).with_name("qwen-tools")
PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"
    b"\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99"
    b"=\x1d\x00\x00\x00\x00IEND\xaeB`\x82"
)


@pytest.fixture(autouse=True)
def process_mark(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A unique mark for this test's processes; fails the test if any of them survives it."""
    yield from process_guard(monkeypatch, timeout=5.0)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A realpath-resolved workspace with a text file and an image."""
    root = Path(os.path.realpath(tmp_path)) / "ws"
    root.mkdir()
    (root / "notes.txt").write_text("line 1\nline 2\nline 3\n")
    (root / "pixel.png").write_bytes(PNG)
    return root


@pytest.fixture
def env(tmp_path: Path, process_mark: str) -> dict[str, str]:
    """A clean environment: temp HOME/QWEN_HOME, system settings paths inside tmp."""
    return isolated_env(Path(os.path.realpath(tmp_path)), **{MARK_VAR: process_mark})


def free_port() -> int:
    """A TCP port on 127.0.0.1 nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class HttpServer:
    """A running ``qwen-tools serve --transport http``."""

    process: subprocess.Popen[str]
    port: int
    log: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def stderr(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 15.0) -> int:
        """Send ``sig`` and wait; SIGKILL if it does not exit in time. The exit code."""
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                return self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
                pytest.fail(f"server ignored signal {sig}: {self.stderr()}")
        return int(self.process.returncode)


def start_http(ws: Path, env: dict[str, str], log: Path, *extra: str) -> HttpServer:
    """Spawn the HTTP server on a free port and wait until it accepts connections."""
    port = free_port()
    with log.open("w") as err:
        process = subprocess.Popen(
            [
                str(EXE),
                "serve",
                "--transport",
                "http",
                "--port",
                str(port),
                "--cwd",
                str(ws),
                *extra,
            ],
            env=env,
            cwd=ws,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
            preexec_fn=die_with_parent,  # even if pytest itself is killed
        )
    server = HttpServer(process, port, log)
    try:
        deadline = time.monotonic() + 30
        while not re.search(r"serving MCP over streamable HTTP at http://\S+", server.stderr()):
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the HTTP server did not start: {server.stderr()}")
            time.sleep(0.05)
        with contextlib.closing(socket.create_connection(("127.0.0.1", port), timeout=5)):
            pass
    except BaseException:  # a failure or an interruption: the server must not stay behind
        server.stop(signal.SIGKILL)
        raise
    return server


@pytest.fixture
def http_server(ws: Path, env: dict[str, str], tmp_path: Path) -> Iterator[HttpServer]:
    """The HTTP server in the default approval mode, terminated after the test."""
    server = start_http(ws, env, tmp_path / "server.log")
    try:
        yield server
    finally:
        server.stop()
