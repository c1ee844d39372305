"""CallToolResult → parts, display and errors; schemas; JavaScript-compatible JSON."""

from __future__ import annotations

from typing import Any

import pytest

from qwen_tools.contract.errors import ToolErrorType
from qwen_tools.contract.parts import InlineDataPart, TextPart
from qwen_tools.jscompat.jsjson import js_stringify
from qwen_tools.mcp.results import PARSE_ERROR_TEXT, call_result_to_tool_result
from qwen_tools.mcp.schema import model_input_schema


def convert(result: Any, tool: str = "t", args: Any = None) -> Any:
    return call_result_to_tool_result(tool, {} if args is None else args, result)


def test_text_blocks_become_text_parts_and_display() -> None:
    done = convert({"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]})
    assert done.error is None
    assert done.llm_content == [TextPart("a"), TextPart("b")]
    assert done.return_display == "a\nb"


@pytest.mark.parametrize("kind", ["image", "audio"])
def test_media_blocks(kind: str) -> None:
    block = {"type": kind, "data": "QUJD", "mimeType": f"{kind}/x-test"}
    done = convert({"content": [block]}, tool="snap")
    assert done.llm_content == [
        TextPart(f"[Tool 'snap' provided the following {kind} data with mime-type: {kind}/x-test]"),
        InlineDataPart(mime_type=f"{kind}/x-test", data="QUJD"),
    ]
    assert done.return_display == (
        f"[Tool 'snap' provided the following {kind} data with mime-type: {kind}/x-test]\n"
        f"[{kind}/x-test]"
    )


def test_embedded_resources() -> None:
    content = [
        {"type": "resource", "resource": {"uri": "file:///a", "text": "alpha"}},
        {"type": "resource", "resource": {"uri": "file:///b", "blob": "AAEC"}},
        {"type": "resource", "resource": {"uri": "file:///c", "blob": "AA", "mimeType": "x/y"}},
        {"type": "resource", "resource": {"uri": "file:///d", "text": ""}},
    ]
    parts = convert({"content": content}, tool="r").llm_content
    assert parts == [
        TextPart("alpha"),
        TextPart(
            "[Tool 'r' provided the following embedded resource with mime-type: "
            "application/octet-stream]"
        ),
        InlineDataPart(mime_type="application/octet-stream", data="AAEC"),
        TextPart("[Tool 'r' provided the following embedded resource with mime-type: x/y]"),
        InlineDataPart(mime_type="x/y", data="AA"),
    ]


def test_resource_links_and_unknown_blocks() -> None:
    content = [
        {"type": "resource_link", "name": "n", "title": "Title", "uri": "file:///x"},
        {"type": "resource_link", "name": "n", "title": "", "uri": "file:///y"},
        {"type": "tool_use", "name": "x", "id": "1", "input": {}},
    ]
    assert convert({"content": content}).llm_content == [
        TextPart("Resource Link: Title at file:///x"),
        TextPart("Resource Link: n at file:///y"),
    ]


def test_structured_content_is_prepended_unless_a_text_equals_it() -> None:
    done = convert(
        {
            "content": [{"type": "text", "text": "Echo: hi"}],
            "structuredContent": {"result": "Echo: hi"},
        }
    )
    assert done.llm_content == [TextPart('{"result":"Echo: hi"}'), TextPart("Echo: hi")]
    assert done.return_display == '{"result":"Echo: hi"}\nEcho: hi'
    same = convert(
        {"content": [{"type": "text", "text": '{"a":1.0}'}], "structuredContent": {"a": 1.0}}
    )
    assert same.llm_content == [TextPart('{"a":1}'), TextPart('{"a":1.0}')]
    exact = convert(
        {"content": [{"type": "text", "text": '{"a":1}'}], "structuredContent": {"a": 1}}
    )
    assert exact.llm_content == [TextPart('{"a":1}')]


def test_unparseable_content() -> None:
    assert convert({"content": "oops"}).llm_content == [TextPart(PARSE_ERROR_TEXT)]
    assert convert({}).llm_content == [TextPart("[Error: Could not parse tool response]")]
    assert convert({"structuredContent": {"x": [1, 2]}}).llm_content == [TextPart('{"x":[1,2]}')]


def test_is_error_message_quotes_call_and_raw_response() -> None:
    wire = {
        "isError": True,
        "content": [{"text": "boom", "type": "text"}],
        "_meta": {"k": "v"},
        "extra": 1,
    }
    done = convert(wire, tool="fail", args={"reason": "x", "n": 2.0})
    expected = (
        "MCP tool 'fail' reported tool error for function call: "
        '{"name":"fail","args":{"reason":"x","n":2}} with response: '
        '[{"functionResponse":{"name":"fail","response":{"error":{"_meta":{"k":"v"},'
        '"content":[{"type":"text","text":"boom"}],"isError":true,"extra":1},'
        '"content":[{"type":"text","text":"boom"}]}}}]'
    )
    assert done.error is not None
    assert done.error.message == expected
    assert done.error.type is ToolErrorType.MCP_TOOL_ERROR
    assert done.llm_content == expected
    assert done.return_display == "Error: MCP tool 'fail' reported an error."
    assert convert({"isError": "true", "content": []}).is_error


def test_is_error_with_an_image_keeps_the_parts() -> None:
    wire = {
        "isError": True,
        "content": [
            {"type": "text", "text": "bad frame"},
            {"type": "image", "data": "QUJD", "mimeType": "image/png"},
        ],
    }
    done = convert(wire, tool="cam")
    display = "Error: MCP tool 'cam' reported an error."
    assert done.return_display == display
    assert done.error is not None
    assert done.error.message == (
        "MCP tool 'cam' reported tool error for function call: "
        '{"name":"cam","args":{}} with response: bad frame\n'
        "[Tool 'cam' provided the following image data with mime-type: image/png]\n[image/png]"
    )
    assert done.llm_content[-1] == InlineDataPart(mime_type="image/png", data="QUJD")


def test_pydantic_results_are_dumped_as_sent() -> None:
    import mcp_types as types

    result = types.CallToolResult(
        content=[types.TextContent(type="text", text="boom")], is_error=True
    )
    done = convert(result, tool="f")
    assert done.error is not None
    assert done.error.message.endswith(
        '"response":{"error":{"content":[{"type":"text","text":"boom"}],"isError":true},'
        '"content":[{"type":"text","text":"boom"}]}}}]'
    )


def test_js_stringify_matches_javascript() -> None:
    # expected strings produced by node's JSON.stringify
    value = [1.0, 0.5, 1e21, 1e-7, 1.5e-6, 123.456, -0.0001, 2**53, 1e300, "\u2028\ud800", "\x01"]
    assert js_stringify(value) == (
        "[1,0.5,1e+21,1e-7,0.0000015,123.456,-0.0001,9007199254740992,1e+300,"
        '"\u2028\\ud800","\\u0001"]'
    )
    assert js_stringify({"a": None, "b": True, "c": float("nan")}) == '{"a":null,"b":true,"c":null}'


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (None, {"type": "object", "properties": {}}),
        ({}, {"type": "object", "properties": {}}),
        ("nope", {"type": "object", "properties": {}}),
        (
            {"properties": {"a": {"type": "string"}}},
            {"type": "object", "properties": {"a": {"type": "string"}}},
        ),
        ({"type": "string"}, {"type": "object", "properties": {}}),
        (
            {"type": "object", "title": "T", "$schema": "x", "properties": {"a": {"default": 1}}},
            {"type": "object", "title": "T", "$schema": "x", "properties": {"a": {"default": 1}}},
        ),
    ],
)
def test_model_input_schema(raw: Any, expected: dict[str, Any]) -> None:
    assert model_input_schema(raw) == expected
