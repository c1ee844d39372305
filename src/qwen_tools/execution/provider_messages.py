"""Function responses in the message shapes providers expect (Gemini, OpenAI, Anthropic).

The OpenAI and Anthropic shapes follow Qwen Code 0.24.4's converters
(``openaiContentGenerator/converter.ts`` and ``anthropicContentGenerator/converter.ts``): the
text is ``response.output``, else ``response.error``, else the response as JSON; media parts
become the provider's media blocks, or a text placeholder when the model cannot take them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Literal

from qwen_tools.contract.function_response import response_text
from qwen_tools.contract.parts import FileDataPart, FunctionResponse, InlineDataPart

__all__ = [
    "MEDIA_IN_FOLLOWING_MESSAGE",
    "SPLIT_MEDIA_USER_TEXT",
    "to_anthropic_tool_results",
    "to_gemini_content",
    "to_gemini_parts",
    "to_openai_tool_messages",
]

MEDIA_IN_FOLLOWING_MESSAGE = "[media attached in following user message]"
"""The tool message's text when its media moved to the next user message and it had no text."""

SPLIT_MEDIA_USER_TEXT = "(attached media from previous tool call)"
"""The first text of the user message that carries moved media."""

_MEDIA_TYPES = ("image_url", "input_audio", "video_url", "file")

# -- Gemini -----------------------------------------------------------------------------------


def to_gemini_parts(responses: Sequence[FunctionResponse]) -> list[dict[str, Any]]:
    """``[{"functionResponse": {"id", "name", "response", "parts"?}}]``; media stay in ``parts``."""
    return [r.to_dict() for r in responses]


def to_gemini_content(responses: Sequence[FunctionResponse]) -> dict[str, Any]:
    """The user turn that answers a model's function calls: ``{"role": "user", "parts": [...]}``."""
    return {"role": "user", "parts": to_gemini_parts(responses)}


# -- OpenAI -----------------------------------------------------------------------------------


def _media_type(mime: str) -> str:
    for prefix in ("image", "audio", "video"):
        if mime.startswith(f"{prefix}/"):
            return prefix
    return "file"


def _audio_format(mime: str) -> str | None:
    if "wav" in mime:
        return "wav"
    if "mp3" in mime or "mpeg" in mime:
        return "mp3"
    if "flac" in mime:
        return "flac"
    if "ogg" in mime:
        return "ogg"
    if mime == "audio/mp4" or "m4a" in mime:
        return "m4a"
    return None


def _placeholder(modality: str, name: str) -> dict[str, Any]:
    if modality == "pdf":
        hint = (
            "This model does not support PDF input directly. The read_file tool cannot extract "
            "PDF content either. To extract text from the PDF file, try using skills if "
            "applicable, or guide user to install pdf skill by running this slash command:\n"
            "/extensions install https://github.com/anthropics/skills:document-skills"
        )
    else:
        hint = (
            f"This model does not support {modality} input. The read_file tool cannot process "
            "this type of file either. To handle this file, try using skills if applicable, or "
            "any tools installed at system wide, or let the user know you cannot process this "
            "type of file."
        )
    return {"type": "text", "text": f'[Unsupported {modality} file: "{name}". {hint}]'}


def _openai_media(
    part: InlineDataPart | FileDataPart, modalities: dict[str, bool]
) -> dict[str, Any] | None:
    """One media part as an OpenAI content part (``createMediaContentPart``)."""
    if isinstance(part, InlineDataPart):
        mime, payload = part.mime_type, part.data
        if not mime or not payload:
            return None
        name = part.display_name or mime
        url = f"data:{mime};base64,{payload}"
        pdf_name = part.display_name or "document.pdf"
        unsupported = f"Unsupported inline media type: {mime} ({name})."
    else:
        mime, payload = part.mime_type, part.file_uri
        if not mime or not payload:
            return None
        name = part.display_name or "file"
        url = payload
        pdf_name = name
        suffix = f" ({part.display_name})" if part.display_name else ""
        unsupported = f"Unsupported file media type: {mime}{suffix}."
    kind = _media_type(mime)
    if kind == "image":
        if not modalities["image"]:
            return _placeholder("image", name)
        return {"type": "image_url", "image_url": {"url": url}}
    if mime == "application/pdf":
        if not modalities["pdf"]:
            return _placeholder("pdf", name)
        return {"type": "file", "file": {"filename": pdf_name, "file_data": url}}
    if kind == "audio":
        if not modalities["audio"]:
            return _placeholder("audio", name)
        fmt = _audio_format(mime)
        if fmt is not None:
            return {"type": "input_audio", "input_audio": {"data": url, "format": fmt}}
    if kind == "video":
        if not modalities["video"]:
            return _placeholder("video", name)
        return {"type": "video_url", "video_url": {"url": url}}
    return {"type": "text", "text": unsupported}


def _tool_message(response: FunctionResponse, modalities: dict[str, bool]) -> dict[str, Any]:
    """``createToolMessage``: the text part, then the media parts; no parts at all → ``""``."""
    content: list[dict[str, Any]] = []
    text = response_text(response)
    if text:
        content.append({"type": "text", "text": text})
    for part in response.parts:
        media = _openai_media(part, modalities)
        if media is not None:
            content.append(media)
    return {"role": "tool", "tool_call_id": response.id or "", "content": content or ""}


def to_openai_tool_messages(
    responses: Sequence[FunctionResponse],
    *,
    image_input: bool = True,
    audio_input: bool = False,
    pdf_input: bool = False,
    video_input: bool = False,
    content_format: Literal["parts", "string"] = "parts",
    split_media: bool = False,
) -> list[dict[str, Any]]:
    """One ``{"role": "tool", "tool_call_id", "content"}`` message per response.

    ``content`` is ``[{"type": "text", "text": ...}, <media>...]``: images as ``image_url`` data
    URLs, audio as ``input_audio``, PDF as ``file``, video as ``video_url``. Media the model
    cannot take (``*_input=False``) become the reference's ``[Unsupported <kind> file: ...]``
    text. ``content_format="string"`` sends text-only content as one string (parts joined with
    ``\\n``). ``split_media`` moves the media into one following ``{"role": "user"}`` message
    (after all the tool messages); a tool message left without text then reads
    ``[media attached in following user message]``. A response with neither text nor media
    gets ``content: ""``. A response whose id was already converted is skipped.
    """
    modalities = {
        "image": image_input,
        "audio": audio_input,
        "pdf": pdf_input,
        "video": video_input,
    }
    messages: list[dict[str, Any]] = []
    moved: list[dict[str, Any]] = []
    seen: set[str] = set()
    for response in responses:
        if response.id:
            if response.id in seen:
                continue
            seen.add(response.id)
        message = _tool_message(response, modalities)
        content = message["content"]
        if split_media and isinstance(content, list):
            media = [p for p in content if p.get("type") in _MEDIA_TYPES]
            if media:
                texts = [p["text"] for p in content if p.get("type") == "text"]
                message["content"] = "\n".join(texts) or MEDIA_IN_FOLLOWING_MESSAGE
                moved.extend(media)
        content = message["content"]
        if (
            content_format == "string"
            and isinstance(content, list)
            and all(p.get("type") == "text" for p in content)
        ):
            message["content"] = "\n".join(p["text"] for p in content)
        messages.append(message)
    if moved:
        messages.append(
            {"role": "user", "content": [{"type": "text", "text": SPLIT_MEDIA_USER_TEXT}, *moved]}
        )
    return messages


# -- Anthropic --------------------------------------------------------------------------------

_ANTHROPIC_IMAGES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
_UNSAFE_ID = re.compile(r"[^a-zA-Z0-9_-]")


def _anthropic_media(part: InlineDataPart | FileDataPart) -> dict[str, Any] | None:
    if isinstance(part, InlineDataPart):
        if not part.mime_type or not part.data:
            return None
        source: dict[str, Any] = {"type": "base64", "media_type": part.mime_type, "data": part.data}
        unsupported = "Unsupported inline media type"
    else:
        if not part.mime_type or not part.file_uri:
            return None
        source = {"type": "url", "url": part.file_uri}
        unsupported = "Unsupported file media type"
    if part.mime_type in _ANTHROPIC_IMAGES:
        return {"type": "image", "source": source}
    if part.mime_type == "application/pdf":
        return {"type": "document", "source": source}
    suffix = f" ({part.display_name})" if part.display_name else ""
    return {"type": "text", "text": f"{unsupported}: {part.mime_type}{suffix}."}


class _ToolUseIds:
    """Wire-safe ``tool_use_id`` values (``^[a-zA-Z0-9_-]+$``), unique within one message."""

    def __init__(self) -> None:
        self._map: dict[str, str] = {}
        self._used: set[str] = set()
        self._generated = 0

    def _next(self) -> str:
        value = f"tool_{self._generated}"
        self._generated += 1
        return value

    def resolve(self, raw: str | None) -> str:
        source = (raw or "").strip()
        if source in self._map:
            return self._map[source]
        base = (_UNSAFE_ID.sub("_", source) or self._next()) if source else self._next()
        unique, suffix = base, 1
        while unique in self._used:
            unique = f"{base}_{suffix}"
            suffix += 1
        self._used.add(unique)
        if source:
            self._map[source] = unique
        return unique


def to_anthropic_tool_results(responses: Sequence[FunctionResponse]) -> dict[str, Any]:
    """The user message answering ``tool_use`` blocks: one ``tool_result`` block per response.

    As the reference builds it: ``content`` is the text alone when there is no media, else
    ``[{"type": "text"}, {"type": "image"|"document", "source": {...}}...]``; ``is_error: true``
    is present only for error responses. Ids are made wire-safe (``[a-zA-Z0-9_-]``, unique).
    """
    ids = _ToolUseIds()
    blocks: list[dict[str, Any]] = []
    for response in responses:
        text = response_text(response)
        media = [m for m in (_anthropic_media(p) for p in response.parts) if m is not None]
        content: str | list[dict[str, Any]] = text
        if media:
            content = [{"type": "text", "text": text}, *media] if text else media
        block: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": ids.resolve(response.id),
            "content": content,
        }
        if "error" in response.response:
            block["is_error"] = True
        blocks.append(block)
    return {"role": "user", "content": blocks}
