"""``CallToolResult`` → what the model and the user get, exactly as Qwen Code 0.24.4 builds it.

The input is the result's wire form (a JSON object with camelCase keys; a pydantic model from
the SDK is dumped first). Content blocks become parts:

===================  ===========================================================================
``text``             the text
``image``/``audio``  ``[Tool '<tool>' provided the following <image|audio> data with mime-type:
                     <mime>]`` and the inline data
``resource``         its ``text``; or, for a ``blob``, ``[Tool '<tool>' provided the following
                     embedded resource with mime-type: <mime>]`` and the inline data
``resource_link``    ``Resource Link: <title or name> at <uri>``
===================  ===========================================================================

``structuredContent`` is prepended as compact JSON unless a text part already equals it. An
``isError`` result becomes a failure whose message quotes the call and the raw response.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from qwen_tools.contract.errors import ToolErrorType
from qwen_tools.contract.parts import InlineDataPart, Part, TextPart
from qwen_tools.contract.results import ToolResult
from qwen_tools.jscompat.jsjson import js_stringify

PARSE_ERROR_TEXT = "[Error: Could not parse tool response]"

# Key order of the wire objects as Qwen Code's SDK parses them (its schemas drop other keys of
# content blocks; a result keeps unknown keys after the known ones).
_RESULT_KEYS = ("_meta", "content", "structuredContent", "isError")
_ANNOTATION_KEYS = ("audience", "priority", "lastModified")
_BLOCK_KEYS: dict[str, tuple[str, ...]] = {
    "text": ("type", "text", "annotations", "_meta"),
    "image": ("type", "data", "mimeType", "annotations", "_meta"),
    "audio": ("type", "data", "mimeType", "annotations", "_meta"),
    "resource": ("type", "resource", "annotations", "_meta"),
    "resource_link": (
        *("name", "title", "icons", "uri", "description", "mimeType", "size"),
        *("annotations", "_meta", "type"),
    ),
}
_RESOURCE_KEYS = ("uri", "mimeType", "_meta", "text", "blob")


def result_to_wire(result: Any) -> dict[str, Any]:
    """The JSON form of a ``CallToolResult`` (a mapping is copied, a pydantic model dumped)."""
    if isinstance(result, Mapping):
        return dict(result)
    dump = getattr(result, "model_dump", None)
    if callable(dump):
        data = dump(by_alias=True, mode="json", exclude_unset=True)
        if isinstance(data, dict):
            return data
    raise TypeError(f"Not a CallToolResult: {type(result).__name__}")


def _ordered(data: Mapping[str, Any], keys: Sequence[str], *, keep_rest: bool) -> dict[str, Any]:
    out = {key: data[key] for key in keys if key in data}
    if keep_rest:
        out.update((key, value) for key, value in data.items() if key not in out)
    return out


def _canonical_block(block: Any) -> Any:
    if not isinstance(block, Mapping):
        return block
    keys = _BLOCK_KEYS.get(str(block.get("type")))
    if keys is None:
        return dict(block)
    out = _ordered(block, keys, keep_rest=False)
    if isinstance(out.get("annotations"), Mapping):
        out["annotations"] = _ordered(out["annotations"], _ANNOTATION_KEYS, keep_rest=False)
    if isinstance(out.get("resource"), Mapping):
        out["resource"] = _ordered(out["resource"], _RESOURCE_KEYS, keep_rest=False)
    return out


def canonical_result(wire: Mapping[str, Any]) -> dict[str, Any]:
    """The result with its keys in the order Qwen Code would serialise them."""
    out = _ordered(wire, _RESULT_KEYS, keep_rest=True)
    content = out.get("content")
    if isinstance(content, list):
        out["content"] = [_canonical_block(block) for block in content]
    return out


def _media_parts(tool: str, what: str, mime: Any, data: Any) -> list[Part]:
    return [
        TextPart(f"[Tool '{tool}' provided the following {what} with mime-type: {mime}]"),
        InlineDataPart(mime_type=str(mime), data=str(data)),
    ]


def _block_parts(block: Any, tool: str) -> list[Part]:
    if not isinstance(block, Mapping):
        return []
    kind = block.get("type")
    if kind == "text":
        return [TextPart(str(block.get("text", "")))]
    if kind in ("image", "audio"):
        return _media_parts(tool, f"{kind} data", block.get("mimeType"), block.get("data"))
    if kind == "resource":
        resource = block.get("resource")
        if not isinstance(resource, Mapping):
            return []
        if resource.get("text"):
            return [TextPart(str(resource["text"]))]
        if resource.get("blob"):
            mime = resource.get("mimeType") or "application/octet-stream"
            return _media_parts(tool, "embedded resource", mime, resource["blob"])
        return []
    if kind == "resource_link":
        label = block.get("title") or block.get("name")
        return [TextPart(f"Resource Link: {label} at {block.get('uri')}")]
    return []


def content_to_parts(
    tool: str, content: Any, structured: Any = None, *, has_structured: bool = False
) -> list[Part]:
    """Parts for a result's ``content`` (and ``structuredContent`` when ``has_structured``)."""
    structured_parts: list[Part] = [TextPart(js_stringify(structured))] if has_structured else []
    if not isinstance(content, list):
        return structured_parts or [TextPart(PARSE_ERROR_TEXT)]
    parts = [part for block in content for part in _block_parts(block, tool)]
    if structured_parts:
        first = structured_parts[0]
        assert isinstance(first, TextPart)
        if any(isinstance(part, TextPart) and part.text == first.text for part in parts):
            return parts
    return [*structured_parts, *parts]


def display_from_parts(parts: Sequence[Part]) -> str:
    """Text parts joined with newlines, media as ``[<mime>]``."""
    shown: list[str] = []
    for part in parts:
        if isinstance(part, TextPart):
            shown.append(part.text)
        elif isinstance(part, InlineDataPart):
            shown.append(f"[{part.mime_type}]")
    return "\n".join(shown)


def _is_image(part: Part) -> bool:
    return (
        isinstance(part, InlineDataPart) and part.mime_type.startswith("image/") and bool(part.data)
    )


def error_result(tool: str, args: Any, wire: Mapping[str, Any]) -> ToolResult:
    """The failure for an ``isError`` result of ``tool`` called with ``args``."""
    result = canonical_result(wire)
    content = result.get("content")
    call = js_stringify({"name": tool, "args": args})
    head = f"MCP tool '{tool}' reported tool error for function call: {call} with response: "
    display = f"Error: MCP tool '{tool}' reported an error."
    parts = content_to_parts(tool, content)
    if any(_is_image(part) for part in parts):
        message = head + display_from_parts(parts)
        return ToolResult.failure(
            message, ToolErrorType.MCP_TOOL_ERROR, llm_content=parts, display=display
        )
    response = {"error": result, "content": content} if "content" in result else {"error": result}
    raw = [{"functionResponse": {"name": tool, "response": response}}]
    message = head + js_stringify(raw)
    return ToolResult.failure(message, ToolErrorType.MCP_TOOL_ERROR, display=display)


def is_error_result(wire: Mapping[str, Any]) -> bool:
    """Whether the server flagged the result as an error (``true`` or ``"true"``)."""
    flag = wire.get("isError")
    return flag is True or flag == "true"


def call_result_to_tool_result(tool: str, args: Any, result: Any) -> ToolResult:
    """The :class:`ToolResult` for ``result``, the answer of ``tool`` (server-side name) to ``args``."""
    wire = result_to_wire(result)
    if is_error_result(wire):
        return error_result(tool, args, wire)
    parts = content_to_parts(
        tool,
        wire.get("content"),
        wire.get("structuredContent"),
        has_structured="structuredContent" in wire,
    )
    return ToolResult(llm_content=parts, return_display=display_from_parts(parts))
