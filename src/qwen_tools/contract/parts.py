"""Content parts exchanged with the model: text, inline media, file references, calls and responses.

The shapes follow the Gemini ``Part`` union that Qwen Code uses internally. Each part serialises
to (and parses from) the camelCase JSON the reference writes, e.g. ``{"inlineData": {...}}``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias


@dataclass(frozen=True, slots=True)
class TextPart:
    """Plain text."""

    text: str

    def to_dict(self) -> dict[str, Any]:
        """Serialise as ``{"text": ...}``."""
        return {"text": self.text}


@dataclass(frozen=True, slots=True)
class InlineDataPart:
    """Media carried inline: base64 ``data`` with its MIME type (images, audio, PDF)."""

    mime_type: str
    data: str
    display_name: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Serialise as ``{"inlineData": {"mimeType", "data"[, "displayName"]}}``."""
        body: dict[str, Any] = {"mimeType": self.mime_type, "data": self.data}
        if self.display_name is not None:
            body["displayName"] = self.display_name
        return {"inlineData": body}


@dataclass(frozen=True, slots=True)
class FileDataPart:
    """A reference to a file by URI, with its MIME type."""

    mime_type: str
    file_uri: str
    display_name: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Serialise as ``{"fileData": {"mimeType", "fileUri"[, "displayName"]}}``."""
        body: dict[str, Any] = {"mimeType": self.mime_type, "fileUri": self.file_uri}
        if self.display_name is not None:
            body["displayName"] = self.display_name
        return {"fileData": body}


@dataclass(frozen=True, slots=True)
class FunctionCall:
    """A model's request to run a tool: ``name`` with JSON ``args`` and the provider's call id."""

    name: str
    args: dict[str, Any] = field(default_factory=dict)
    id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Serialise as ``{"functionCall": {"id"?, "name", "args"}}``."""
        body: dict[str, Any] = {"name": self.name, "args": self.args}
        if self.id is not None:
            body = {"id": self.id, **body}
        return {"functionCall": body}


@dataclass(frozen=True, slots=True)
class FunctionResponse:
    """The answer to a :class:`FunctionCall`: ``response`` holds ``output`` or ``error``.

    Media produced by the tool (images, audio, PDF) travel in ``parts``.
    """

    name: str
    response: dict[str, Any]
    id: str | None = None
    parts: tuple[InlineDataPart | FileDataPart, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """Serialise as ``{"functionResponse": {"id"?, "name", "response", "parts"?}}``."""
        body: dict[str, Any] = {}
        if self.id is not None:
            body["id"] = self.id
        body["name"] = self.name
        body["response"] = self.response
        if self.parts:
            body["parts"] = [p.to_dict() for p in self.parts]
        return {"functionResponse": body}

    @property
    def output(self) -> str | None:
        """The success text, if this response carries one."""
        value = self.response.get("output")
        return value if isinstance(value, str) else None

    @property
    def error(self) -> str | None:
        """The error text, if this response reports a failure."""
        value = self.response.get("error")
        return value if isinstance(value, str) else None


Part: TypeAlias = TextPart | InlineDataPart | FileDataPart | FunctionCall | FunctionResponse
"""Any single content part."""

PartUnion: TypeAlias = str | Part
"""A part or a bare string (a string stands for a text part)."""

PartListUnion: TypeAlias = str | Part | Sequence[str | Part]
"""What a tool may put in ``llm_content``: a string, one part, or a list of both."""


def to_parts(content: PartListUnion) -> list[Part]:
    """Normalise any ``PartListUnion`` into a list of parts (strings become text parts)."""
    if isinstance(content, str):
        return [TextPart(content)]
    if isinstance(content, Sequence):
        return [TextPart(item) if isinstance(item, str) else item for item in content]
    return [content]


def content_to_json(content: PartListUnion) -> str | dict[str, Any] | list[Any]:
    """Serialise ``llm_content`` keeping its shape: a string stays a string."""
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        return [item if isinstance(item, str) else item.to_dict() for item in content]
    return content.to_dict()


def part_from_dict(data: Mapping[str, Any]) -> Part:
    """Parse one camelCase JSON part (the inverse of ``to_dict``); raises ``ValueError``."""
    if "text" in data and isinstance(data["text"], str):
        return TextPart(data["text"])
    if "inlineData" in data:
        body = data["inlineData"]
        return InlineDataPart(
            mime_type=str(body["mimeType"]),
            data=str(body["data"]),
            display_name=body.get("displayName"),
        )
    if "fileData" in data:
        body = data["fileData"]
        return FileDataPart(
            mime_type=str(body["mimeType"]),
            file_uri=str(body["fileUri"]),
            display_name=body.get("displayName"),
        )
    if "functionCall" in data:
        body = data["functionCall"]
        return FunctionCall(
            name=str(body["name"]), args=dict(body.get("args") or {}), id=body.get("id")
        )
    if "functionResponse" in data:
        body = data["functionResponse"]
        media = tuple(
            p
            for p in (part_from_dict(item) for item in body.get("parts") or [])
            if isinstance(p, InlineDataPart | FileDataPart)
        )
        return FunctionResponse(
            name=str(body["name"]),
            response=dict(body.get("response") or {}),
            id=body.get("id"),
            parts=media,
        )
    raise ValueError(f"Unrecognised part: {sorted(data)}")
