"""A finished tool call as an MCP ``CallToolResult``.

The text is exactly what the model would receive (:attr:`CompletedToolCall.response_text`, after
the output budget): the output on success, the error message on failure, and
``[Operation Cancelled] Reason: …`` for a cancelled or refused call. Media parts of the response
follow it:

==============================  =====================================================
``inlineData`` ``image/*``      ``ImageContent`` (base64 data, MIME type)
``inlineData`` ``audio/*``      ``AudioContent``
other ``inlineData`` (PDF, …)   ``EmbeddedResource`` with a blob, URI
                                ``attachment://<call id>/<file name>``
``fileData``                    ``ResourceLink`` to its URI
==============================  =====================================================

An empty text is left out when media follow it (an image read has no text). Calls that did not
succeed (status ``error`` or ``cancelled``) set ``isError``. No ``structuredContent`` is sent: the
tools' results are text for a model, not typed values.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from typing import TYPE_CHECKING
from urllib.parse import quote

import mcp_types as types

from qwen_tools.contract.parts import FileDataPart, InlineDataPart

if TYPE_CHECKING:
    from qwen_tools.execution.call_types import CompletedToolCall

__all__ = ["call_result", "content_blocks", "media_content"]


def _attachment_uri(call_id: str, index: int, name: str | None) -> str:
    label = name or f"part-{index}"
    return f"attachment://{quote(call_id, safe='')}/{quote(label, safe='')}"


def media_content(
    part: InlineDataPart | FileDataPart, *, call_id: str = "call", index: int = 0
) -> types.ContentBlock:
    """One media part of a response as an MCP content block (mapping in the module docstring)."""
    if isinstance(part, FileDataPart):
        name = part.display_name or posixpath.basename(part.file_uri.rstrip("/")) or part.file_uri
        return types.ResourceLink(name=name, uri=part.file_uri, mime_type=part.mime_type)
    mime = part.mime_type
    if mime.startswith("image/"):
        return types.ImageContent(data=part.data, mime_type=mime)
    if mime.startswith("audio/"):
        return types.AudioContent(data=part.data, mime_type=mime)
    blob = types.BlobResourceContents(
        uri=_attachment_uri(call_id, index, part.display_name), mime_type=mime, blob=part.data
    )
    return types.EmbeddedResource(resource=blob)


def content_blocks(
    text: str, media: Sequence[InlineDataPart | FileDataPart], *, call_id: str = "call"
) -> list[types.ContentBlock]:
    """The text (left out when empty and media follow) and then each media part."""
    blocks: list[types.ContentBlock] = []
    if text or not media:
        blocks.append(types.TextContent(text=text))
    blocks.extend(
        media_content(part, call_id=call_id, index=index) for index, part in enumerate(media)
    )
    return blocks


def call_result(completed: CompletedToolCall) -> types.CallToolResult:
    """The ``tools/call`` result of one finished call."""
    response = completed.response
    blocks = content_blocks(
        completed.response_text, response.parts, call_id=completed.request.call_id
    )
    return types.CallToolResult(content=blocks, is_error=completed.status != "success")
