"""Turn a tool's result into the ``FunctionResponse`` the model receives, as the reference does.

* Success: ``llm_content`` becomes ``response.output`` (text parts joined with ``\\n``) and media
  parts ride along in ``parts``. Empty text with no media becomes
  ``(<tool> completed with no output)``.
* Failure: the model gets ``response.error = error.message``; ``llm_content`` is dropped
  (media parts of a failed result are still attached).
* Cancellation: ``response.error = "[Operation Cancelled] Reason: <reason>"``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from qwen_tools.contract.parts import (
    FileDataPart,
    FunctionResponse,
    InlineDataPart,
    Part,
    PartListUnion,
    TextPart,
    to_parts,
)
from qwen_tools.contract.results import ToolResult

SUCCESS_WITHOUT_TEXT = "Tool execution succeeded."


def empty_output_text(tool_name: str) -> str:
    """The placeholder for a successful call that produced no text."""
    return f"({tool_name} completed with no output)"


def _media(parts: Sequence[Part]) -> tuple[InlineDataPart | FileDataPart, ...]:
    return tuple(p for p in parts if isinstance(p, InlineDataPart | FileDataPart))


def convert_to_function_response(
    tool_name: str, call_id: str | None, llm_content: PartListUnion
) -> FunctionResponse:
    """Wrap successful ``llm_content`` in a ``FunctionResponse`` (the reference's rules)."""
    content: PartListUnion = llm_content
    if isinstance(content, Sequence) and not isinstance(content, str) and len(content) == 1:
        content = content[0]
    if isinstance(content, str):
        return FunctionResponse(tool_name, {"output": content}, id=call_id)
    if isinstance(content, Sequence):
        parts = to_parts(content)
        texts = [p.text for p in parts if isinstance(p, TextPart)]
        output = "\n".join(texts) if texts else SUCCESS_WITHOUT_TEXT
        return FunctionResponse(tool_name, {"output": output}, id=call_id, parts=_media(parts))
    if isinstance(content, FunctionResponse):
        inner = content.response.get("content")
        if isinstance(inner, list):
            text = "".join(str(p.get("text", "")) for p in inner if isinstance(p, dict))
            return FunctionResponse(tool_name, {"output": text}, id=call_id)
        return content
    if isinstance(content, InlineDataPart | FileDataPart):
        return FunctionResponse(tool_name, {"output": ""}, id=call_id, parts=(content,))
    if isinstance(content, TextPart):
        return FunctionResponse(tool_name, {"output": content.text}, id=call_id)
    return FunctionResponse(tool_name, {"output": SUCCESS_WITHOUT_TEXT}, id=call_id)


def is_empty_content(llm_content: PartListUnion) -> bool:
    """True when the content has no media and its text is blank."""
    parts = to_parts(llm_content)
    if _media(parts):
        return False
    return "".join(p.text for p in parts if isinstance(p, TextPart)).strip() == ""


def error_response(
    tool_name: str, call_id: str | None, message: str, llm_content: PartListUnion | None = None
) -> FunctionResponse:
    """A failure: the model sees ``message``; media from ``llm_content`` is attached."""
    media = _media(to_parts(llm_content)) if llm_content is not None else ()
    return FunctionResponse(tool_name, {"error": message}, id=call_id, parts=media)


def cancelled_response(tool_name: str, call_id: str | None, reason: str) -> FunctionResponse:
    """A cancelled call, as the model is told about it."""
    return FunctionResponse(
        tool_name, {"error": f"[Operation Cancelled] Reason: {reason}"}, id=call_id
    )


def function_response_for_result(
    tool_name: str, call_id: str | None, result: ToolResult
) -> FunctionResponse:
    """The one function from a ``ToolResult`` to what the model receives."""
    if result.error is not None:
        return error_response(tool_name, call_id, result.error.message, result.llm_content)
    content = result.llm_content
    if is_empty_content(content):
        content = empty_output_text(tool_name)
    return convert_to_function_response(tool_name, call_id, content)


def response_text(response: FunctionResponse) -> str:
    """The text of the OpenAI ``tool`` message for this response (output, else error, else JSON)."""
    output = response.response.get("output")
    if isinstance(output, str):
        return output
    error = response.response.get("error")
    if isinstance(error, str):
        return error
    return json.dumps(response.response, ensure_ascii=False, separators=(",", ":"))
