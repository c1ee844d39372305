"""Function responses in Gemini, OpenAI and Anthropic message shapes (as Qwen Code 0.24.4 sends them)."""

from __future__ import annotations

from qwen_tools.contract.function_response import cancelled_response, error_response
from qwen_tools.contract.parts import FileDataPart, FunctionResponse, InlineDataPart
from qwen_tools.execution.provider_messages import (
    to_anthropic_tool_results,
    to_gemini_content,
    to_gemini_parts,
    to_openai_tool_messages,
)

PNG = InlineDataPart("image/png", "iVBORw0KGgo=")
WAV = InlineDataPart("audio/wav", "UklGRg==", display_name="hello.wav")
PDF = InlineDataPart("application/pdf", "JVBERi0=", display_name="spec.pdf")
PNG_DATA_URL = "data:image/png;base64,iVBORw0KGgo="


def ok(
    output: str, call_id: str = "call_1", *media: InlineDataPart | FileDataPart
) -> FunctionResponse:
    return FunctionResponse("read_file", {"output": output}, id=call_id, parts=media)


# -- Gemini -----------------------------------------------------------------------------------


def test_gemini_parts_keep_media_in_function_response() -> None:
    response = ok("the image", "call_1", PNG)
    assert to_gemini_parts([response]) == [
        {
            "functionResponse": {
                "id": "call_1",
                "name": "read_file",
                "response": {"output": "the image"},
                "parts": [{"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}],
            }
        }
    ]
    assert to_gemini_content([response, ok("x", "call_2")]) == {
        "role": "user",
        "parts": to_gemini_parts([response, ok("x", "call_2")]),
    }


# -- OpenAI -----------------------------------------------------------------------------------


def test_openai_text_and_image() -> None:
    assert to_openai_tool_messages([ok("the image", "call_1", PNG)]) == [
        {
            "role": "tool",
            "tool_call_id": "call_1",
            "content": [
                {"type": "text", "text": "the image"},
                {"type": "image_url", "image_url": {"url": PNG_DATA_URL}},
            ],
        }
    ]


def test_openai_placeholders_when_a_modality_is_off() -> None:
    [message] = to_openai_tool_messages([ok("", "c", WAV, PNG, PDF)], image_input=False)
    assert message["content"] == [
        {
            "type": "text",
            "text": '[Unsupported audio file: "hello.wav". This model does not support audio input. '
            "The read_file tool cannot process this type of file either. To handle this file, "
            "try using skills if applicable, or any tools installed at system wide, or let the "
            "user know you cannot process this type of file.]",
        },
        {
            "type": "text",
            "text": '[Unsupported image file: "image/png". This model does not support image input. '
            "The read_file tool cannot process this type of file either. To handle this file, "
            "try using skills if applicable, or any tools installed at system wide, or let the "
            "user know you cannot process this type of file.]",
        },
        {
            "type": "text",
            "text": '[Unsupported pdf file: "spec.pdf". This model does not support PDF input '
            "directly. The read_file tool cannot extract PDF content either. To extract text "
            "from the PDF file, try using skills if applicable, or guide user to install pdf "
            "skill by running this slash command:\n/extensions install "
            "https://github.com/anthropics/skills:document-skills]",
        },
    ]


def test_openai_audio_pdf_and_unknown_media_when_enabled() -> None:
    zip_part = InlineDataPart("application/zip", "UEsDBA==")
    remote = FileDataPart("image/jpeg", "https://example.com/a.jpg", display_name="a.jpg")
    [message] = to_openai_tool_messages(
        [ok("files", "c", WAV, PDF, zip_part, remote)], audio_input=True, pdf_input=True
    )
    assert message["content"][1:] == [
        {
            "type": "input_audio",
            "input_audio": {"data": "data:audio/wav;base64,UklGRg==", "format": "wav"},
        },
        {
            "type": "file",
            "file": {"filename": "spec.pdf", "file_data": "data:application/pdf;base64,JVBERi0="},
        },
        {
            "type": "text",
            "text": "Unsupported inline media type: application/zip (application/zip).",
        },
        {"type": "image_url", "image_url": {"url": "https://example.com/a.jpg"}},
    ]


def test_openai_string_format_for_text_only_content() -> None:
    messages = to_openai_tool_messages(
        [ok("plain", "a"), ok("with image", "b", PNG), ok("", "c", WAV)],
        content_format="string",
    )
    assert messages[0]["content"] == "plain"
    assert isinstance(messages[1]["content"], list)  # media keep the parts form
    assert isinstance(messages[2]["content"], str)  # a placeholder is text
    assert messages[2]["content"].startswith('[Unsupported audio file: "hello.wav".')


def test_openai_split_media_moves_it_to_a_user_message() -> None:
    messages = to_openai_tool_messages(
        [ok("", "a", PNG), ok("caption", "b", PNG), ok("text only", "c")], split_media=True
    )
    assert messages == [
        {
            "role": "tool",
            "tool_call_id": "a",
            "content": "[media attached in following user message]",
        },
        {"role": "tool", "tool_call_id": "b", "content": "caption"},
        {"role": "tool", "tool_call_id": "c", "content": [{"type": "text", "text": "text only"}]},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "(attached media from previous tool call)"},
                {"type": "image_url", "image_url": {"url": PNG_DATA_URL}},
                {"type": "image_url", "image_url": {"url": PNG_DATA_URL}},
            ],
        },
    ]


def test_openai_errors_cancellations_and_empty_results() -> None:
    messages = to_openai_tool_messages(
        [
            error_response("edit", "e1", "File not found: /x"),
            cancelled_response("run_shell_command", "e2", "User did not allow tool call"),
            ok("", "e3"),
            FunctionResponse("t", {"answer": 42, "note": "é"}, id="e4"),
            FunctionResponse("t", {"output": "no id"}),
        ],
        content_format="string",
    )
    assert [m["content"] for m in messages] == [
        "File not found: /x",
        "[Operation Cancelled] Reason: User did not allow tool call",
        "",
        '{"answer":42,"note":"é"}',
        "no id",
    ]
    assert messages[4]["tool_call_id"] == ""


def test_openai_skips_a_response_id_already_sent() -> None:
    messages = to_openai_tool_messages([ok("first", "dup"), ok("second", "dup")])
    assert len(messages) == 1 and messages[0]["content"][0]["text"] == "first"


# -- Anthropic --------------------------------------------------------------------------------


def test_anthropic_tool_results() -> None:
    message = to_anthropic_tool_results(
        [
            ok("plain", "toolu_1"),
            ok("the image", "toolu_2", PNG, PDF),
            error_response("edit", "call:3", "Edit failed"),
            ok("", "toolu_4", PNG),
        ]
    )
    assert message == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "plain"},
            {
                "type": "tool_result",
                "tool_use_id": "toolu_2",
                "content": [
                    {"type": "text", "text": "the image"},
                    {
                        "type": "image",
                        "source": {
                            "type": "base64",
                            "media_type": "image/png",
                            "data": "iVBORw0KGgo=",
                        },
                    },
                    {
                        "type": "document",
                        "source": {
                            "type": "base64",
                            "media_type": "application/pdf",
                            "data": "JVBERi0=",
                        },
                    },
                ],
            },
            {
                "type": "tool_result",
                "tool_use_id": "call_3",
                "content": "Edit failed",
                "is_error": True,
            },
            {
                "type": "tool_result",
                "tool_use_id": "toolu_4",
                "content": [
                    {
                        "type": "image",
                        "source": {
                            "type": "base64",
                            "media_type": "image/png",
                            "data": "iVBORw0KGgo=",
                        },
                    }
                ],
            },
        ],
    }


def test_anthropic_ids_are_wire_safe_and_unique() -> None:
    message = to_anthropic_tool_results(
        [ok("a", "a.b"), ok("b", "a_b"), FunctionResponse("t", {"output": "c"}), ok("d", "a.b")]
    )
    assert [b["tool_use_id"] for b in message["content"]] == ["a_b", "a_b_1", "tool_0", "a_b"]


def test_anthropic_cancelled_is_an_error() -> None:
    message = to_anthropic_tool_results(
        [cancelled_response("t", "c1", "Tool call cancelled by user.")]
    )
    assert message["content"][0] == {
        "type": "tool_result",
        "tool_use_id": "c1",
        "content": "[Operation Cancelled] Reason: Tool call cancelled by user.",
        "is_error": True,
    }
