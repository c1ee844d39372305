"""What a ``@tool`` function's return value becomes: the ``ToolResult`` the model reads.

* a :class:`~qwen_tools.ToolResult` is used as it is; ``None`` is no output;
* a string is the text, a part (or a list of strings and parts) is the content as given;
* image bytes (PNG, JPEG, GIF, WebP) — alone or in a list with text and parts — and PIL images
  become inline images;
* anything else JSON can carry (dicts, lists, numbers, booleans), pydantic models and
  dataclasses become their JSON text (what pydantic would dump: dates, enums, UUIDs included).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from typing import Any

from qwen_tools.contract.parts import (
    FileDataPart,
    FunctionCall,
    FunctionResponse,
    InlineDataPart,
    TextPart as _TextPart,
)
from qwen_tools.contract.results import ToolResult

__all__ = ["as_result", "image_part"]

_PARTS = (_TextPart, InlineDataPart, FileDataPart, FunctionCall, FunctionResponse)

_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


def _image_mime(data: bytes) -> str | None:
    for signature, mime in _SIGNATURES:
        if data.startswith(signature):
            return mime
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def image_part(value: Any) -> InlineDataPart | None:
    """``value`` as an inline image: image bytes or a PIL image; ``None`` for anything else."""
    if isinstance(value, bytes | bytearray | memoryview):
        data = bytes(value)
        mime = _image_mime(data)
        if mime is None:
            return None
        return InlineDataPart(mime, base64.b64encode(data).decode("ascii"))
    if callable(getattr(value, "save", None)) and hasattr(value, "mode") and hasattr(value, "size"):
        import io

        buffer = io.BytesIO()
        value.save(buffer, format="PNG")  # a PIL image
        return InlineDataPart("image/png", base64.b64encode(buffer.getvalue()).decode("ascii"))
    return None


def _as_part(item: Any) -> Any:
    """A list item as content: a string or a part as it is, an image as a part, else ``None``."""
    if isinstance(item, (str, *_PARTS)):
        return item
    return image_part(item)


def _json_text(value: Any) -> str:
    from pydantic_core import to_jsonable_python

    return json.dumps(to_jsonable_python(value), ensure_ascii=False)


def as_result(value: Any) -> ToolResult:
    """The result for a function's return value (see the module docstring)."""
    if isinstance(value, ToolResult):
        return value
    if value is None:
        return ToolResult(llm_content="")
    if isinstance(value, str):
        return ToolResult(llm_content=value, return_display=value)
    if isinstance(value, _PARTS):
        return ToolResult(llm_content=value)
    image = image_part(value)
    if image is not None:
        return ToolResult(llm_content=[image])
    if isinstance(value, Sequence) and not isinstance(value, bytes | bytearray) and value:
        parts = [_as_part(item) for item in value]
        if all(part is not None for part in parts):
            return ToolResult(llm_content=parts)
    if isinstance(value, bytes | bytearray | memoryview):
        text = bytes(value).decode("utf-8", errors="replace")
        return ToolResult(llm_content=text, return_display=text)
    text = _json_text(value)
    return ToolResult(llm_content=text, return_display=text)
