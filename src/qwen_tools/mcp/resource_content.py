"""A ``resources/read`` result as the model sees it (Qwen Code 0.24.4's ``mcp-resource-content``).

Text contents become text parts (at most 100,000 characters in all), blobs inline data (at most
8,000,000 base64 characters per read, less when the turn's blob budget is lower); what does not
fit is dropped and noted. The parts are framed by delimiters carrying the resource's label
(``server:uri``) and a random nonce, so a resource cannot fake the end of its own frame::

    --- Content from MCP resource demo:file:///a.txt [1a2b3c4d] ---
    ...
    --- End of MCP resource demo:file:///a.txt [1a2b3c4d] ---

Lengths are counted in characters (Python's), where 0.24.4 counts UTF-16 code units.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from qwen_tools.contract.parts import InlineDataPart, Part, TextPart

__all__ = [
    "MAX_MCP_RESOURCE_BLOB_CHARS",
    "MAX_MCP_RESOURCE_TEXT_CHARS",
    "FormattedResource",
    "empty_resource_text",
    "format_resource_contents",
    "summarize_resource",
]

MAX_MCP_RESOURCE_TEXT_CHARS = 100_000
MAX_MCP_RESOURCE_BLOB_CHARS = 8_000_000
TRUNCATION_NOTICE = (
    "\n[Content truncated \u2014 part of this resource exceeded size limits and was omitted.]"
)


@dataclass
class FormattedResource:
    """The parts for the model and what they hold."""

    parts: list[Part] = field(default_factory=list)
    text_chars: int = 0
    blob_count: int = 0
    blob_chars: int = 0
    truncated: bool = False


def format_resource_contents(
    contents: Sequence[Mapping[str, Any]],
    label: str,
    *,
    max_blob_chars: int = MAX_MCP_RESOURCE_BLOB_CHARS,
) -> FormattedResource:
    """Frame ``contents`` (wire dicts: ``text`` or ``blob``, ``mimeType``) for the model."""
    out = FormattedResource()
    body: list[Part] = []
    for content in contents:
        text = content.get("text")
        blob = content.get("blob")
        if isinstance(text, str):
            remaining = MAX_MCP_RESOURCE_TEXT_CHARS - out.text_chars
            if remaining <= 0:
                out.truncated = bool(text) or out.truncated
                continue
            kept = text[:remaining]
            if len(kept) < len(text):
                out.truncated = True
            if kept:
                body.append(TextPart(kept))
                out.text_chars += len(kept)
        elif isinstance(blob, str):
            if out.blob_chars + len(blob) > max_blob_chars:
                out.truncated = True
                continue
            out.blob_chars += len(blob)
            mime = content.get("mimeType")
            body.append(
                InlineDataPart(
                    mime_type=mime if isinstance(mime, str) else "application/octet-stream",
                    data=blob,
                )
            )
            out.blob_count += 1
    if body:
        nonce = os.urandom(4).hex()
        notice = TRUNCATION_NOTICE if out.truncated else ""
        out.parts = [
            TextPart(f"\n--- Content from MCP resource {label} [{nonce}] ---\n"),
            *body,
            TextPart(f"{notice}\n--- End of MCP resource {label} [{nonce}] ---\n"),
        ]
    return out


def summarize_resource(formatted: FormattedResource) -> str:
    """``Injected 12 chars + 1 attachment``, or why nothing was injected."""
    summary: list[str] = []
    if formatted.text_chars > 0:
        summary.append(f"{formatted.text_chars} chars")
    if formatted.blob_count > 0:
        plural = "" if formatted.blob_count == 1 else "s"
        summary.append(f"{formatted.blob_count} attachment{plural}")
    if summary:
        return f"Injected {' + '.join(summary)}{' (truncated)' if formatted.truncated else ''}"
    return "(content too large \u2014 skipped)" if formatted.truncated else "(no readable content)"


def empty_resource_text(formatted: FormattedResource, label: str) -> str:
    """What the model gets when nothing of the resource could be shown."""
    return f"\n--- MCP resource {label}: {summarize_resource(formatted)} ---\n"
