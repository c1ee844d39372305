"""Fixtures for the MCP tests: real servers (``servers/demo_server.py``) over stdio, SSE, HTTP.

Every server process carries a unique ``QWEN_TOOLS_TEST_MARK`` in its environment; after each
test (or module, for the shared manager) no marked process may remain.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from qwen_tools import Config, McpServerConfig, ToolSettings
from qwen_tools.mcp.manager import McpManager
from support.leftovers import die_with_parent
from support.processes import MARK_VAR, kill_marked, wait_until_gone

SERVER = Path(__file__).parent / "servers" / "demo_server.py"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Servers:
    """Makes server configs (and starts remote servers) that all carry one test mark."""

    mark: str
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def stdio(self, name: str = "demo", mode: str = "normal", **fields: Any) -> McpServerConfig:
        env = {MARK_VAR: self.mark, **fields.pop("env", {})}
        return McpServerConfig(
            command=sys.executable,
            args=(str(SERVER), "--name", name, "--mode", mode),
            env=env,
            **fields,
        )

    def start_remote(
        self, kind: str, port: int | None = None
    ) -> tuple[int, subprocess.Popen[bytes]]:
        """Start ``demo_server.py`` over ``sse`` or ``http`` and wait until it accepts."""
        port = port or _free_port()
        process = subprocess.Popen(
            [sys.executable, str(SERVER), "--transport", kind, "--port", str(port)],
            env={**os.environ, MARK_VAR: self.mark},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            preexec_fn=die_with_parent,  # even if pytest itself is killed
        )
        self.processes.append(process)
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                return port, process
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the {kind} test server did not start") from None
                time.sleep(0.05)

    def remote(self, kind: str, **fields: Any) -> McpServerConfig:
        port, _process = self.start_remote(kind)
        if kind == "sse":
            return McpServerConfig(url=f"http://127.0.0.1:{port}/sse", **fields)
        return McpServerConfig(http_url=f"http://127.0.0.1:{port}/mcp", **fields)

    def close(self) -> list[int]:
        """Kill every server (and its group), then whatever else carries the mark."""
        for process in self.processes:
            if process.poll() is None:  # (a reaped pid may already be someone else's)
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        left = wait_until_gone(self.mark, timeout=10)
        kill_marked(self.mark)
        return left


@pytest.fixture
def servers() -> Iterator[Servers]:
    made = Servers(uuid.uuid4().hex)
    try:
        yield made
    finally:
        left = made.close()
    assert left == [], "MCP test servers were left running"


def make_config(root: Path, servers: dict[str, McpServerConfig], **settings: Any) -> Config:
    return Config(root, settings=ToolSettings(mcp_servers=servers, **settings))


@pytest.fixture
def config_for(tmp_path: Path) -> Any:
    def build(servers: dict[str, McpServerConfig], **settings: Any) -> Config:
        return make_config(tmp_path, servers, **settings)

    return build


# -- one manager shared by a module's read-only tests ----------------------------------------


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def shared(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[McpManager]:
    """A manager with servers ``demo`` (stdio) and ``trusted`` (stdio, ``trust: true``)."""
    made = Servers(uuid.uuid4().hex)
    root = tmp_path_factory.mktemp("mcp-shared")
    config = make_config(
        root,
        {"demo": made.stdio("demo"), "trusted": made.stdio("trusted", trust=True, timeout=2000)},
    )
    manager = McpManager(config)
    try:
        await manager.start()
        yield manager
    finally:
        await manager.aclose()
        assert made.close() == []
