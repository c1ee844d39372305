"""Binary responses of ``web_fetch``: recognising them, saving them, and a PDF's text.

Binary means (as in Qwen Code 0.24.4): an image, audio, video or font type, one of the archive
and office ``application/*`` types, or a body whose first bytes are a known signature (PDF, ZIP,
gzip, RAR, PNG, JPEG, GIF, WebP); an untyped body whose file name (``Content-Disposition`` or
the URL) has a known binary extension too. An ``application/octet-stream`` body without a
signature that decodes as text is treated as text. The bytes are saved, private, under
``<project temp>/tool-results/webfetch-<ms>-<random>.<ext>``; a PDF's text is extracted with
``pypdf`` for the model.
"""

from __future__ import annotations

import os
import re
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

__all__ = ["Sniffed", "is_binary_response", "pdf_text", "save_binary", "sniff"]

_BINARY_APPLICATION = frozenset(
    {
        "application/pdf",
        "application/zip",
        "application/gzip",
        "application/x-gzip",
        "application/octet-stream",
        "application/msword",
        "application/vnd.ms-excel",
        "application/vnd.ms-powerpoint",
        "application/x-tar",
        "application/x-7z-compressed",
        "application/x-rar-compressed",
        "application/vnd.rar",
        "application/wasm",
        "application/java-archive",
    }
)
_OFFICE = "application/vnd.openxmlformats-officedocument."
_EXTENSIONS = {
    "application/pdf": "pdf",
    "application/zip": "zip",
    _OFFICE + "wordprocessingml.document": "docx",
    _OFFICE + "spreadsheetml.sheet": "xlsx",
    _OFFICE + "presentationml.presentation": "pptx",
    "application/msword": "doc",
    "application/vnd.ms-excel": "xls",
    "application/vnd.ms-powerpoint": "ppt",
    "application/gzip": "gz",
    "application/x-gzip": "gz",
    "application/x-tar": "tar",
    "application/x-7z-compressed": "7z",
    "application/x-rar-compressed": "rar",
    "application/vnd.rar": "rar",
    "application/wasm": "wasm",
    "application/java-archive": "jar",
    "audio/mpeg": "mp3",
    "audio/wav": "wav",
    "audio/ogg": "ogg",
    "video/mp4": "mp4",
    "video/webm": "webm",
    "image/png": "png",
    "image/jpeg": "jpg",
    "image/gif": "gif",
    "image/webp": "webp",
    "image/svg+xml": "svg",
}
_KNOWN_EXTENSIONS = frozenset({*_EXTENSIONS.values(), "jpeg", "bin"})
_SIGNATURES: tuple[tuple[bytes, int, str, str], ...] = (
    (b"%PDF-", 0, "pdf", "application/pdf"),
    (b"\x1f\x8b", 0, "gz", "application/gzip"),
    (b"Rar!\x1a\x07", 0, "rar", "application/vnd.rar"),
    (b"\x89PNG", 0, "png", "image/png"),
    (b"\xff\xd8\xff", 0, "jpg", "image/jpeg"),
    (b"GIF8", 0, "gif", "image/gif"),
)
_FILENAME_STAR = re.compile(r"filename\*\s*=\s*[^']*'[^']*'([^;]+)", re.IGNORECASE)
_FILENAME = re.compile(r"filename\s*=\s*\"?([^\";]+)\"?", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Sniffed:
    """What the bytes look like: extension, MIME type, and how that was decided."""

    extension: str
    mime_type: str
    magic: bool
    source: str  # "magic", "name", "mime" or "fallback"


def _media_type(content_type: str) -> str:
    return content_type.split(";", 1)[0].strip().lower()


def _name_extension(name: str | None) -> str | None:
    if not name or "." not in name:
        return None
    ext = name.rsplit(".", 1)[1].strip().lower()
    return ext if ext in _KNOWN_EXTENSIONS else None


def _disposition_name(disposition: str) -> str | None:
    if match := _FILENAME_STAR.search(disposition):
        return unquote(match.group(1).strip())
    if match := _FILENAME.search(disposition):
        return match.group(1).strip()
    return None


def sniff(body: bytes, content_type: str, disposition: str, url: str) -> Sniffed:
    """Signature first, then the file name, then the MIME type."""
    for signature, offset, ext, mime in _SIGNATURES:
        if body[offset : offset + len(signature)] == signature:
            return Sniffed(ext, mime, True, "magic")
    name_ext = _name_extension(_disposition_name(disposition))
    if name_ext is None:
        try:
            name_ext = _name_extension(urlsplit(url).path.rsplit("/", 1)[-1])
        except ValueError:
            name_ext = None
    if body[:4] == b"PK\x03\x04":
        hint = name_ext or _EXTENSIONS.get(_media_type(content_type))
        ext = hint if hint in ("docx", "xlsx", "pptx", "jar") else "zip"
        return Sniffed(ext, content_type or "application/zip", True, "magic")
    if body[:4] == b"RIFF" and body[8:12] == b"WEBP":
        return Sniffed("webp", "image/webp", True, "magic")
    if name_ext:
        return Sniffed(name_ext, content_type, False, "name")
    mime_ext = _EXTENSIONS.get(_media_type(content_type), "bin")
    return Sniffed(mime_ext, content_type, False, "mime" if mime_ext != "bin" else "fallback")


def _binary_type(content_type: str) -> bool:
    media = _media_type(content_type)
    if not media or media.startswith("text/") or media.endswith(("+json", "+xml")):
        return False
    if media.startswith(("image/", "audio/", "video/", "font/")):
        return True
    return media in _BINARY_APPLICATION or media.startswith(
        ("application/vnd.openxmlformats", "application/vnd.oasis.opendocument")
    )


def _looks_like_text(body: bytes) -> bool:
    window = body[:8192]
    if b"\x00" in window:
        return False
    return window.decode("utf-8", errors="replace").count("\ufffd") <= 2


def is_binary_response(body: bytes, content_type: str, sniffed: Sniffed) -> bool:
    """Whether to save the body as a file instead of reading it as text."""
    binary = (
        _binary_type(content_type)
        or sniffed.magic
        or (not content_type and sniffed.source == "name" and sniffed.extension != "svg")
    )
    if (
        binary
        and _media_type(content_type) == "application/octet-stream"
        and not sniffed.magic
        and sniffed.source == "fallback"
        and _looks_like_text(body)
    ):
        return False
    return binary


def save_binary(directory: Path, body: bytes, extension: str) -> Path:
    """Write ``body`` to a new private file in ``directory`` (raises ``OSError``)."""
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    name = f"webfetch-{int(time.time() * 1000)}-{secrets.token_hex(3)}.{extension}"
    path = directory / name
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(body)
    return path


def pdf_text(path: Path) -> str:
    """The text of a PDF's pages ("" when it has none or cannot be read)."""
    try:
        from pypdf import PdfReader

        reader = PdfReader(str(path))
        return "\n\n".join((page.extract_text() or "") for page in reader.pages).strip()
    except Exception:  # a damaged PDF yields no text, not a failed fetch
        return ""
