"""The result → FunctionResponse conversion, as the reference builds it."""

from __future__ import annotations

from qwen_tools import (
    FileDataPart,
    FunctionResponse,
    InlineDataPart,
    TextPart,
    ToolError,
    ToolErrorType,
    ToolResult,
    convert_to_function_response,
    function_response_for_result,
    part_from_dict,
    response_text,
)

PNG = InlineDataPart("image/png", "iVBORw0KGgo=")


def test_string_becomes_output() -> None:
    r = convert_to_function_response("read_file", "c1", "hello")
    assert r.to_dict() == {
        "functionResponse": {"id": "c1", "name": "read_file", "response": {"output": "hello"}}
    }


def test_single_element_list_is_unwrapped() -> None:
    assert convert_to_function_response("t", "c", ["only"]).response == {"output": "only"}
    assert convert_to_function_response("t", "c", [TextPart("x")]).response == {"output": "x"}


def test_text_parts_are_joined_with_newlines_and_media_kept() -> None:
    r = convert_to_function_response("t", "c", ["a", TextPart("b"), PNG])
    assert r.response == {"output": "a\nb"}
    assert r.parts == (PNG,)


def test_list_without_text_says_succeeded() -> None:
    file_part = FileDataPart("application/pdf", "file:///x.pdf")
    r = convert_to_function_response("t", "c", [PNG, file_part])
    assert r.response == {"output": "Tool execution succeeded."}
    assert r.parts == (PNG, file_part)


def test_single_media_part_has_empty_output() -> None:
    r = convert_to_function_response("t", "c", PNG)
    assert r.response == {"output": ""}
    assert r.parts == (PNG,)


def test_function_response_content_is_concatenated() -> None:
    inner = FunctionResponse("mcp", {"content": [{"text": "a"}, {"text": "b"}]})
    assert convert_to_function_response("t", "c", inner).response == {"output": "ab"}
    passthrough = FunctionResponse("mcp", {"foo": 1})
    assert convert_to_function_response("t", "c", passthrough) is passthrough


def test_errors_send_the_message_not_llm_content() -> None:
    result = ToolResult(
        llm_content="Could not read file because no file was found at the specified path.",
        error=ToolError("File not found: /w/x", ToolErrorType.FILE_NOT_FOUND),
    )
    r = function_response_for_result("read_file", "c9", result)
    assert r.response == {"error": "File not found: /w/x"}
    assert response_text(r) == "File not found: /w/x"


def test_failed_result_keeps_its_images() -> None:
    result = ToolResult(
        llm_content=["boom", PNG], error=ToolError("bad", ToolErrorType.MCP_TOOL_ERROR)
    )
    r = function_response_for_result("t", "c", result)
    assert r.response == {"error": "bad"} and r.parts == (PNG,)


def test_empty_output_placeholder() -> None:
    for empty in ("", "   \n", [], [TextPart("")]):
        r = function_response_for_result("read_file", "c", ToolResult(llm_content=empty))
        assert response_text(r) == "(read_file completed with no output)"
    with_image = function_response_for_result("t", "c", ToolResult(llm_content=[PNG]))
    assert response_text(with_image) == ""


def test_response_text_falls_back_to_json() -> None:
    assert response_text(FunctionResponse("t", {"weird": [1]})) == '{"weird":[1]}'


def test_parts_round_trip_through_json() -> None:
    for part in (
        TextPart("x"),
        PNG,
        FileDataPart("a/b", "u", "n"),
        FunctionResponse("t", {"output": "o"}, "i", (PNG,)),
    ):
        assert part_from_dict(part.to_dict()) == part
