"""Our MCP client against ``@modelcontextprotocol/server-everything``; prints a JSON report.

``test_everything.py`` runs it inside a private network namespace (the server's SSE and
Streamable HTTP modes listen on every interface, and our client must reach them)::

    python everything_driver.py --transport stdio|sse|http --node NODE --server INDEX_JS \\
        --work DIR [--demo DEMO_SERVER_PY]

Everything goes the way a user's session goes: the server is an ``mcpServers`` entry of the
workspace's ``.qwen/settings.json``, ``Config.load`` reads it, ``McpManager`` connects it,
``register_mcp_tools`` puts its tools into the default registry, and every call runs through
``run_tool_call``. ``servers/wiretap.py`` sits between client and server and records the wire,
so the report can say what the server was sent and what it answered. ``--demo`` adds the
Python-SDK ``demo_server.py`` as a second server (both offer ``echo``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from qwen_tools import Config
from qwen_tools.contract.abort import AbortController, AbortSignal
from qwen_tools.contract.parts import content_to_json
from qwen_tools.execution.call_types import CompletedToolCall, ToolCallRequest
from qwen_tools.execution.tool_call import run_tool_call
from qwen_tools.mcp.manager import McpManager
from qwen_tools.mcp.registration import register_mcp_tools
from qwen_tools.mcp.tool import McpTool
from qwen_tools.registry.registry import ToolRegistry
from qwen_tools.session.default_registry import build_registry_async

sys.path.insert(0, str(Path(__file__).parent / "servers"))
import wiretap

TAP = Path(wiretap.__file__)
SERVER = "everything"
EXCLUDED = ("gzip-file-as-resource", "toggle-subscriber-updates")
"""``excludeTools`` of the entry (the first fetches URLs, the second starts a timer)."""
CANCEL_ARGS = {"duration": 1.2, "steps": 4}
"""The long-running call that is cancelled after its first progress notification."""
FOLLOW_ARGS = {"duration": 1.2, "steps": 1}
"""Started after the cancel, it ends after the cancelled call would have ended."""
CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "echo": ("echo", {"message": "hello from qwen-tools"}),
    "sum": ("get-sum", {"a": 2, "b": 3.5}),
    "image": ("get-tiny-image", {}),
    "textResource": ("get-resource-reference", {"resourceType": "Text", "resourceId": 2}),
    "blobResource": ("get-resource-reference", {"resourceType": "Blob", "resourceId": 1}),
    "links": ("get-resource-links", {"count": 3}),
    "structured": ("get-structured-content", {"location": "Chicago"}),
    "annotated": ("get-annotated-message", {"messageType": "success", "includeImage": True}),
    "roots": ("get-roots-list", {}),
    "toolError": ("get-resource-reference", {"resourceType": "Text", "resourceId": 0}),
    "schemaRejected": ("get-structured-content", {"location": "Atlantis"}),
    "taskRequired": ("simulate-research-query", {"topic": "tides"}),
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_port(port: int, process: subprocess.Popen[bytes], what: str) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{what} did not start listening on {port}") from None
            time.sleep(0.05)


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@contextlib.contextmanager
def remote_server(args: argparse.Namespace, taps: Path) -> Iterator[str]:
    """Start the server in its SSE or Streamable HTTP mode behind a tap; yield the URL."""
    mode, path = ("sse", "/sse") if args.transport == "sse" else ("streamableHttp", "/mcp")
    port, tap_port = free_port(), free_port()
    with open(args.work / "server.log", "wb") as log:
        server = subprocess.Popen(
            [str(args.node), str(args.server), mode],
            env={**os.environ, "PORT": str(port)},
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
        )
    tap: subprocess.Popen[bytes] | None = None
    try:
        wait_port(port, server, "server-everything")
        relay = ["--listen", str(tap_port), "--upstream", str(port)]
        tap = subprocess.Popen(
            [sys.executable, str(TAP), "tcp", "--log", str(taps), *relay],
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        wait_port(tap_port, tap, "the wire tap")
        yield f"http://127.0.0.1:{tap_port}{path}"
    finally:
        if tap is not None:
            _stop(tap)
        _stop(server)


def write_settings(args: argparse.Namespace, workspace: Path, entry: dict[str, Any]) -> None:
    entry = {**entry, "trust": True, "excludeTools": list(EXCLUDED), "discoveryTimeoutMs": 60000}
    servers: dict[str, Any] = {SERVER: entry}
    if args.demo is not None:
        servers["demo"] = {
            "command": sys.executable,
            "args": [str(args.demo), "--name", "demo"],
            "trust": True,
        }
    (workspace / ".qwen").mkdir(parents=True, exist_ok=True)
    settings = {"mcpServers": servers}
    (workspace / ".qwen" / "settings.json").write_text(json.dumps(settings, indent=2))


def completed_json(done: CompletedToolCall, progress: list[Any]) -> dict[str, Any]:
    result = done.result
    return {
        "status": done.status,
        "responseText": done.response_text,
        "response": done.response.to_dict(),
        "llmContent": content_to_json(result.llm_content) if result is not None else None,
        "display": done.display if isinstance(done.display, str | None) else repr(done.display),
        "errorType": done.error_type.value if done.error_type is not None else None,
        "progress": progress,
    }


async def call(
    registry: ToolRegistry,
    config: Config,
    tool: str,
    arguments: dict[str, Any],
    *,
    signal: AbortSignal | None = None,
    on_progress: Any = None,
) -> dict[str, Any]:
    progress: list[Any] = []

    def update(output: Any) -> None:
        progress.append(output.to_dict() if hasattr(output, "to_dict") else repr(output))
        if on_progress is not None:
            on_progress(progress)

    request = ToolCallRequest(f"{SERVER}__{tool}", arguments, f"call_{tool}")
    done = await run_tool_call(registry, config, request, signal, update_output=update)
    return completed_json(done, progress)


async def cancel_scenario(registry: ToolRegistry, config: Config, taps: Path) -> dict[str, Any]:
    """Cancel a long-running call at its first progress; then look at the wire."""
    controller = AbortController()
    loop = asyncio.get_running_loop()

    def on_progress(progress: list[Any]) -> None:
        if len(progress) == 1:
            loop.call_soon(controller.abort)

    name = "trigger-long-running-operation"
    cancelled = await call(
        registry, config, name, CANCEL_ARGS, signal=controller.signal, on_progress=on_progress
    )
    follow_up = await call(registry, config, name, FOLLOW_ARGS)
    sent = wiretap.messages(taps, "in")
    answered = wiretap.messages(taps, "out")

    def request_id(arguments: dict[str, Any]) -> Any:
        ids = [
            m["id"]
            for m in sent
            if m.get("method") == "tools/call" and m["params"].get("arguments") == arguments
        ]
        return ids[0] if len(ids) == 1 else ids

    def answers(request: Any) -> list[Any]:
        return [m for m in answered if m.get("id") == request and "method" not in m]

    cancelled_id, follow_id = request_id(CANCEL_ARGS), request_id(FOLLOW_ARGS)
    return {
        "cancelled": cancelled,
        "followUp": follow_up,
        "cancelledId": cancelled_id,
        "cancelNotifications": [
            m.get("params") for m in sent if m.get("method") == "notifications/cancelled"
        ],
        "answersToCancelled": answers(cancelled_id),
        "answersToFollowUp": answers(follow_id),
        "progressSentForCancelled": [
            m["params"]
            for m in answered
            if m.get("method") == "notifications/progress"
            and m["params"].get("progressToken") is not None
            and m["params"].get("total") == CANCEL_ARGS["steps"]
        ],
    }


def tool_json(tool: McpTool) -> dict[str, Any]:
    return {
        "name": tool.name,
        "displayName": tool.display_name,
        "description": tool.description,
        "kind": tool.kind.value,
        "aliases": list(tool.aliases),
        "parameters": tool.schema.parameters_json_schema,
    }


async def scenario(args: argparse.Namespace, workspace: Path, taps: Path) -> dict[str, Any]:
    env = {
        **os.environ,
        "QWEN_HOME": str(args.work / "home"),
        "QWEN_CODE_SYSTEM_SETTINGS_PATH": str(args.work / "no-system-settings.json"),
        "QWEN_CODE_SYSTEM_DEFAULTS_PATH": str(args.work / "no-system-defaults.json"),
    }
    config = Config.load(workspace, env=env)
    registry = await build_registry_async(config)
    report: dict[str, Any] = {"workspace": workspace.resolve().as_uri()}
    async with McpManager(config) as manager:
        registered = await register_mcp_tools(registry, manager)
        report["statuses"] = {name: status.value for name, status in manager.statuses().items()}
        report["errors"] = {name: manager.last_error(name) for name in manager.server_names}
        report["listed"] = [info.name for info in manager.connection(SERVER).tools]
        report["registered"] = [t.name for t in registered]
        report["instructions"] = manager.instructions(SERVER)
        report["tools"] = {t.name: tool_json(t) for t in registered}
        report["calls"] = {
            key: await call(registry, config, tool, arguments)
            for key, (tool, arguments) in CALLS.items()
        }
        steps = {"duration": 0.3, "steps": 3}
        report["calls"]["progress"] = await call(
            registry, config, "trigger-long-running-operation", steps
        )
        if args.demo is not None:
            request = ToolCallRequest("demo__echo", {"text": "from the Python SDK"})
            done = await run_tool_call(registry, config, request)
            report["calls"]["demoEcho"] = completed_json(done, [])
        report["cancel"] = await cancel_scenario(registry, config, taps)
        unknown = ToolCallRequest(f"{SERVER}__gzip-file-as-resource", {})
        report["calls"]["excluded"] = completed_json(
            await run_tool_call(registry, config, unknown), []
        )
    return report


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--transport", choices=["stdio", "sse", "http"], required=True)
    parser.add_argument("--node", type=Path, required=True)
    parser.add_argument("--server", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--demo", type=Path)
    args = parser.parse_args()
    for key in ("node", "server", "work", "demo"):
        if getattr(args, key) is not None:
            setattr(args, key, getattr(args, key).resolve())
    workspace, taps = args.work / "ws", args.work / "tap"
    workspace.mkdir(parents=True, exist_ok=True)
    with contextlib.ExitStack() as stack:
        if args.transport == "stdio":
            command = [str(args.node), str(args.server), "stdio"]
            tap = [str(TAP), "pipe", "--log", str(taps), "--", *command]
            entry: dict[str, Any] = {"command": sys.executable, "args": tap}
        else:
            url = stack.enter_context(remote_server(args, taps))
            entry = {"url": url} if args.transport == "sse" else {"httpUrl": url}
        write_settings(args, workspace, entry)
        report = asyncio.run(scenario(args, workspace, taps))
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
