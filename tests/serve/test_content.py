"""Results as MCP content, and the server in-process (schemas verbatim, progress, shutdown)."""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp import Client

from qwen_tools import (
    BaseToolInvocation,
    Config,
    FileDataPart,
    FunctionResponse,
    InlineDataPart,
    Kind,
    McpToolProgressDisplay,
    ModelDeclarativeTool,
    ToolCallRequest,
    ToolRegistry,
    ToolResult,
    tool,
)
from qwen_tools.contract.abort import AbortSignal
from qwen_tools.contract.declarative import BaseDeclarativeTool
from qwen_tools.contract.invocation import ToolInvocation, UpdateOutput
from qwen_tools.execution.call_types import CompletedToolCall
from qwen_tools.serve.content import call_result
from qwen_tools.serve.server import ToolServer, _tail

DATA = base64.b64encode(b"\x00\x01binary").decode()


def completed(
    text: str, parts: tuple[InlineDataPart | FileDataPart, ...] = (), *, ok: bool = True
) -> CompletedToolCall:
    key = "output" if ok else "error"
    response = FunctionResponse("t", {key: text}, id="call 1", parts=parts)
    return CompletedToolCall(
        ToolCallRequest("t", {}, "call 1"), "success" if ok else "error", response
    )


def test_media_parts_become_content_blocks() -> None:
    parts = (
        InlineDataPart("image/png", DATA, "a.png"),
        InlineDataPart("audio/mpeg", DATA, "b.mp3"),
        InlineDataPart("application/pdf", DATA, "c d.pdf"),
        InlineDataPart("video/mp4", DATA),
        FileDataPart("text/plain", "file:///tmp/x.txt"),
    )
    result = call_result(completed("", parts))
    image, audio, pdf, video, link = result.content
    assert isinstance(image, types.ImageContent) and image.mime_type == "image/png"
    assert image.data == DATA
    assert isinstance(audio, types.AudioContent) and audio.mime_type == "audio/mpeg"
    assert isinstance(pdf, types.EmbeddedResource)
    assert isinstance(pdf.resource, types.BlobResourceContents)
    assert pdf.resource.blob == DATA and pdf.resource.mime_type == "application/pdf"
    assert pdf.resource.uri == "attachment://call%201/c%20d.pdf"
    assert isinstance(video, types.EmbeddedResource)
    assert video.resource.uri == "attachment://call%201/part-3"
    assert isinstance(link, types.ResourceLink)
    assert link.uri == "file:///tmp/x.txt" and link.name == "x.txt"
    assert result.is_error is False and result.structured_content is None


def test_text_errors_and_empty_output() -> None:
    ok = call_result(completed("hello"))
    assert [b.model_dump() for b in ok.content] == [types.TextContent(text="hello").model_dump()]
    failed = call_result(completed("boom", (InlineDataPart("image/gif", DATA),), ok=False))
    text, image = failed.content
    assert failed.is_error and isinstance(text, types.TextContent) and text.text == "boom"
    assert isinstance(image, types.ImageContent)
    empty = call_result(completed(""))
    assert [b.model_dump() for b in empty.content] == [types.TextContent(text="").model_dump()]


def test_progress_messages_are_tails() -> None:
    assert _tail("short") == "short"
    long = "".join(f"line {i}\n" for i in range(1000))
    tail = _tail(long, 100)
    assert len(tail) <= 100 and tail.startswith("line ") and long.endswith(tail)


class _Ticks(BaseToolInvocation[dict[str, Any]]):
    def get_description(self) -> str:
        return "ticks"

    async def execute(
        self, signal: AbortSignal, update_output: UpdateOutput | None = None
    ) -> ToolResult:
        for i in range(1, 4):
            if update_output is not None:
                update_output(McpToolProgressDisplay(progress=i * 10, total=30, message=f"{i}"))
            await asyncio.sleep(0.05)
        if self.params.get("wait"):
            await signal.wait()
            return ToolResult("stopped")
        return ToolResult("done")


class TicksTool(BaseDeclarativeTool[dict[str, Any]]):
    def __init__(self) -> None:
        schema = {
            "type": "object",
            "properties": {"wait": {"type": ["boolean", "null"], "default": None}},
            "$defs": {"unused": {"const": None}},
        }
        super().__init__("ticks", "Ticks", "Ticks.", Kind.THINK, schema, can_update_output=True)

    def create_invocation(self, params: dict[str, Any]) -> ToolInvocation[dict[str, Any]]:
        return _Ticks(params)


class ArrayRoot(BaseDeclarativeTool[dict[str, Any]]):
    def __init__(self) -> None:
        super().__init__("bad_root", "Bad", "Not an object.", Kind.READ, {"type": "array"})

    def create_invocation(self, params: dict[str, Any]) -> ToolInvocation[dict[str, Any]]:
        raise AssertionError("never called")


@tool(kind=Kind.READ)
def shout(text: str) -> str:
    """Shout.

    Args:
        text: What to shout.
    """
    return text.upper()


def _server(tmp_path: Path) -> ToolServer:
    registry = ToolRegistry([TicksTool(), ArrayRoot(), shout])
    return ToolServer(registry, Config(tmp_path, home_dir=tmp_path / "home"))


async def test_schemas_verbatim_and_progress_in_process(tmp_path: Path) -> None:
    app = _server(tmp_path)
    assert isinstance(shout, ModelDeclarativeTool)
    updates: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        updates.append((progress, total, message))

    with anyio.fail_after(30):
        async with Client(app.server, mode="legacy") as mcp:
            tools = {t.name: t for t in (await mcp.list_tools()).tools}
            result = await mcp.call_tool("ticks", {}, progress_callback=on_progress)
            shouted = await mcp.call_tool("shout", {"text": "hi"})
    assert set(tools) == {"ticks", "shout"}  # the array-rooted schema cannot be offered
    assert tools["ticks"].input_schema == TicksTool().parameter_schema
    assert tools["ticks"].title == "Ticks"
    assert tools["shout"].input_schema == shout.parameter_schema
    assert result.content[0].model_dump()["text"] == "done"
    assert updates and updates[-1][1] == 30 and all(p in (10, 20, 30) for p, _, _ in updates)
    assert shouted.content[0].model_dump()["text"] == "HI"


async def test_shutdown_aborts_calls_in_flight(tmp_path: Path) -> None:
    app = _server(tmp_path)
    with anyio.fail_after(30):
        call = asyncio.ensure_future(app.call("ticks", {"wait": True}))
        while not app._running:
            await asyncio.sleep(0.01)
        await app.shutdown()
        done = await call
    assert done.status == "cancelled"
    assert "[Operation Cancelled]" in done.response_text
