"""MCP resources through a session: ``list_mcp_resources``, ``read_mcp_resource`` (0.24.4's
parameters, frame, limits and errors), resource links readable, confirmation, pending servers."""

from __future__ import annotations

import json
import re
from typing import Any

from qwen_tools import Session
from qwen_tools.contract.confirmation import ToolConfirmationOutcome
from qwen_tools.contract.parts import InlineDataPart, TextPart

FRAME = re.compile(r"\n--- Content from MCP resource (.+) \[([0-9a-f]{8})\] ---\n")


def _parts(call: Any) -> list[Any]:
    content = call.result.llm_content
    return list(content) if isinstance(content, list) else [content]


async def test_list_then_read_text_blob_and_a_linked_resource(
    config_for: Any, servers: Any
) -> None:
    config = config_for({"demo": servers.stdio("demo", trust=True)})
    async with Session(config=config) as session:  # on demand: nothing connected yet
        listed = await session.call("list_mcp_resources", {})
        assert listed.status == "success", listed.response_text
        items = json.loads(listed.response_text)
        uris = {i["uri"]: i for i in items if "uri" in i}
        assert (
            uris["file:///r.md"].items()
            >= {
                "server": "demo",
                "name": "readme",
                "title": "The README",
                "uri": "file:///r.md",
                "mimeType": "text/markdown",
            }.items()
        )
        assert any(i.get("uriTemplate") == "demo://item/{item_id}" for i in items)
        # listing connected the server: its tools are registered now
        assert session.registry.get_tool("demo__echo") is not None

        read = await session.call(
            "read_mcp_resource", {"server_name": "demo", "uri": "file:///r.md"}
        )
        assert read.status == "success", read.response_text
        parts = _parts(read)
        assert isinstance(parts[0], TextPart)
        head = FRAME.fullmatch(parts[0].text)
        assert head is not None and head.group(1) == "demo:file:///r.md"
        assert parts[1] == TextPart("# Read me\nHello from the demo server.")
        assert (
            parts[2].text == f"\n--- End of MCP resource demo:file:///r.md [{head.group(2)}] ---\n"
        )
        assert read.result.return_display == (
            "Read resource demo:file:///r.md \u2014 Injected 37 chars"
        )

        blob = await session.call(
            "read_mcp_resource", {"server_name": "demo", "uri": "file:///b.bin"}
        )
        inline = _parts(blob)[1]
        assert inline == InlineDataPart(mime_type="application/x-demo", data="AAEC")
        assert blob.result.return_display.endswith("Injected 1 attachment")

        # the link tool's result names a URI; that URI is readable with read_mcp_resource
        link = await session.call("demo__link", {})
        assert "Resource Link: The README at file:///r.md" in link.response_text
        templated = await session.call(
            "read_mcp_resource", {"server_name": "demo", "uri": "demo://item/42"}
        )
        assert _parts(templated)[1] == TextPart("item 42")


async def _proceed(request: Any, details: Any) -> tuple[ToolConfirmationOutcome, None]:
    return ToolConfirmationOutcome.PROCEED_ONCE, None


async def test_limits_frame_and_errors(config_for: Any, servers: Any) -> None:
    config = config_for({"demo": servers.stdio("demo", trust=True)})
    async with Session(config=config, mcp="connect", confirm=_proceed) as session:
        big = await session.call("read_mcp_resource", {"server_name": "demo", "uri": "demo://big"})
        parts = _parts(big)
        assert len(parts[1].text) == 100_000
        assert parts[2].text.startswith(
            "\n[Content truncated \u2014 part of this resource exceeded size limits and was omitted.]"
        )
        assert big.result.return_display.endswith("Injected 100000 chars (truncated)")

        # a resource cannot end its own frame: the real delimiter carries an unguessable nonce
        fake = await session.call(
            "read_mcp_resource", {"server_name": "demo", "uri": "demo://fake-end"}
        )
        nonce = FRAME.fullmatch(_parts(fake)[0].text).group(2)  # type: ignore[union-attr]
        assert nonce != "00000000" and _parts(fake)[2].text.endswith(f"[{nonce}] ---\n")

        missing = await session.call(
            "read_mcp_resource", {"server_name": "nope", "uri": "file:///r.md"}
        )
        assert missing.status == "error"
        assert "MCP server 'nope' is not configured." in missing.response_text
        unknown = await session.call(
            "read_mcp_resource", {"server_name": "demo", "uri": "demo://nothing"}
        )
        assert unknown.status == "error" and "demo://nothing" in unknown.response_text
        empty = await session.call("read_mcp_resource", {"server_name": "demo", "uri": ""})
        assert empty.status == "error"
        extra = await session.call(
            "read_mcp_resource", {"server_name": "demo", "uri": "file:///r.md", "x": 1}
        )
        assert extra.status == "error"


async def test_reading_asks_unless_the_server_is_trusted(config_for: Any, servers: Any) -> None:
    config = config_for({"demo": servers.stdio("demo")})
    async with Session(config=config) as session:
        refused = await session.call(
            "read_mcp_resource", {"server_name": "demo", "uri": "file:///r.md"}
        )
        assert refused.status == "error"
        assert "declined" in refused.response_text
    asked: list[Any] = []

    async def confirm(request: Any, details: Any) -> tuple[ToolConfirmationOutcome, None]:
        asked.append(details)
        return ToolConfirmationOutcome.PROCEED_ONCE, None

    config = config_for({"demo": servers.stdio("demo")})
    async with Session(config=config, confirm=confirm) as session:
        done = await session.call(
            "read_mcp_resource", {"server_name": "demo", "uri": "file:///r.md"}
        )
        assert done.status == "success"
    assert asked[0].type == "info" and asked[0].title == "Confirm MCP Resource Read"
    assert asked[0].prompt == 'Read resource file:///r.md from MCP server "demo"'
