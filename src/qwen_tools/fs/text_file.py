"""Text files as bytes on disk: decoding them, and writing them back in their own format.

Decoding (Qwen Code 0.24.4 rules):

1. A byte-order mark selects UTF-8, UTF-16 LE/BE or UTF-32 LE/BE; the BOM is dropped from the
   text and remembered (``bom=True``). Malformed UTF-16/32 units become U+FFFD.
2. Otherwise bytes that are valid UTF-8 are UTF-8.
3. Otherwise a legacy encoding guessed by ``charset_normalizer`` is used when the guess is
   backed by evidence (a multi-byte East Asian encoding, or a recognised language), and is
   remembered so the file can be written back in it.
4. Otherwise the bytes are read as UTF-8 with U+FFFD for the invalid sequences (and will be
   written back as UTF-8).

Line endings are never normalised when reading: :func:`detect_line_ending` reports ``"crlf"``
as soon as the text contains one ``"\\r\\n"``, and :func:`encode_text` then writes the *whole*
text with CRLF (every ``"\\r\\n"`` becomes ``"\\n"``, then every ``"\\n"`` becomes ``"\\r\\n"``),
so a file with mixed line endings comes back all-CRLF, as in the reference.

Encoding back uses the remembered codec strictly. One deliberate difference from the
reference: when a legacy codec (Latin-1, Shift-JIS …) cannot represent a character of the
new text, the whole file is written as UTF-8 (without BOM) instead of substituting ``?`` for
the character; :func:`encode_text_detailed` tells which format was actually used. Lone UTF-16
surrogates (possible in text that came from JSON) are written as U+FFFD, as JavaScript does.
"""

from __future__ import annotations

import codecs
import os
from dataclasses import dataclass, replace
from typing import Literal, TypeAlias

__all__ = [
    "DEFAULT_TEXT_INFO",
    "DecodedText",
    "LineEnding",
    "TextEncodingInfo",
    "decode_text",
    "decode_text_file",
    "detect_bom",
    "detect_line_ending",
    "encode_text",
    "encode_text_detailed",
    "read_text_file",
]

LineEnding: TypeAlias = Literal["lf", "crlf"]


@dataclass(frozen=True)
class TextEncodingInfo:
    """How a text file is stored: codec, byte-order mark, line endings."""

    encoding: str
    """Python codec name: ``utf-8``, ``utf-16-le``, ``utf-16-be``, ``utf-32-le``,
    ``utf-32-be``, or a legacy one such as ``cp1252`` or ``shift_jis``."""
    bom: bool
    """Whether the file starts with a byte-order mark (re-emitted on write)."""
    line_ending: LineEnding
    """``"crlf"`` when the file contained at least one CRLF, else ``"lf"``."""


DEFAULT_TEXT_INFO = TextEncodingInfo("utf-8", False, "lf")
"""A new file: UTF-8, no BOM, LF."""


@dataclass(frozen=True)
class DecodedText:
    """The text of a file (BOM stripped, line endings as on disk) and how it was stored."""

    text: str
    info: TextEncodingInfo


_BOMS: dict[str, bytes] = {
    "utf-8": codecs.BOM_UTF8,
    "utf-16-le": codecs.BOM_UTF16_LE,
    "utf-16-be": codecs.BOM_UTF16_BE,
    "utf-32-le": codecs.BOM_UTF32_LE,
    "utf-32-be": codecs.BOM_UTF32_BE,
}

# Legacy encodings worth guessing, and the multi-byte ones whose detection is structural.
_MULTIBYTE = frozenset(
    {"shift_jis", "cp932", "euc_jp", "euc_kr", "cp949", "gb2312", "gb18030", "big5"}
)
_LEGACY_CANDIDATES = sorted(
    _MULTIBYTE
    | {"cp1252", "latin_1", "cp1250", "cp1251", "cp1253", "cp1254", "cp1255", "cp1256"}
    | {"iso8859_2", "iso8859_5", "iso8859_7", "iso8859_9", "koi8_r"}
)


def detect_bom(data: bytes) -> tuple[str, int] | None:
    """``(codec, BOM length)`` when ``data`` starts with a UTF-8/16/32 byte-order mark."""
    if data[:4] == codecs.BOM_UTF32_LE:
        return "utf-32-le", 4
    if data[:4] == codecs.BOM_UTF32_BE:
        return "utf-32-be", 4
    if data[:3] == codecs.BOM_UTF8:
        return "utf-8", 3
    if data[:2] == codecs.BOM_UTF16_LE:
        return "utf-16-le", 2
    if data[:2] == codecs.BOM_UTF16_BE:
        return "utf-16-be", 2
    return None


def detect_line_ending(text: str) -> LineEnding:
    """``"crlf"`` if the text contains ``"\\r\\n"`` anywhere, else ``"lf"``."""
    return "crlf" if "\r\n" in text else "lf"


def _decode_utf32(data: bytes, codec: str) -> str:
    usable = data[: len(data) - len(data) % 4]
    try:
        return usable.decode(codec)
    except UnicodeDecodeError:
        order: Literal["little", "big"] = "little" if codec.endswith("le") else "big"
        chars = []
        for i in range(0, len(usable), 4):
            cp = int.from_bytes(usable[i : i + 4], order)
            chars.append(chr(cp) if cp <= 0x10FFFF and not 0xD800 <= cp <= 0xDFFF else "\ufffd")
        return "".join(chars)


def _guess_legacy(data: bytes) -> str | None:
    from charset_normalizer import from_bytes

    best = from_bytes(data, cp_isolation=_LEGACY_CANDIDATES).best()
    if best is None:
        return None
    if best.encoding in _MULTIBYTE or best.coherence > 0:
        return str(best.encoding)
    return None


def _decoded(text: str, encoding: str, bom: bool) -> DecodedText:
    return DecodedText(text, TextEncodingInfo(encoding, bom, detect_line_ending(text)))


def decode_text_file(data: bytes) -> DecodedText:
    """Decode file bytes (see the module docstring), remembering encoding, BOM, line endings."""
    if not data:
        return DecodedText("", DEFAULT_TEXT_INFO)
    bom = detect_bom(data)
    if bom is not None:
        codec, length = bom
        body = data[length:]
        if codec.startswith("utf-32"):
            return _decoded(_decode_utf32(body, codec), codec, True)
        if codec.startswith("utf-16"):
            body = body[: len(body) - len(body) % 2]
        return _decoded(body.decode(codec, "replace"), codec, True)
    try:
        return _decoded(data.decode("utf-8"), "utf-8", False)
    except UnicodeDecodeError:
        pass
    encoding = _guess_legacy(data)
    if encoding is not None:
        try:
            return _decoded(data.decode(encoding), encoding, False)
        except (UnicodeDecodeError, LookupError):
            pass
    return _decoded(data.decode("utf-8", "replace"), "utf-8", False)


def decode_text(data: bytes) -> str:
    """The text of file bytes (see :func:`decode_text_file`)."""
    return decode_text_file(data).text


def read_text_file(path: str | os.PathLike[str]) -> DecodedText:
    """Read and decode a whole file; ``OSError`` propagates unchanged."""
    with open(path, "rb") as fh:
        data = fh.read()
    return decode_text_file(data)


def _canonical_codec(name: str) -> tuple[str, bool]:
    """The codec to encode with, and whether the name itself implies a BOM (``utf-8-sig``).

    Endianness-less ``utf-16``/``utf-32`` mean little-endian, as in the reference.
    """
    try:
        canonical = codecs.lookup(name).name
    except LookupError:
        return name, False
    if canonical == "utf-8-sig":
        return "utf-8", True
    if canonical in ("utf-16", "utf-32"):
        return canonical + "-le", False
    return canonical, False


def _without_lone_surrogates(text: str) -> str:
    return "".join("\ufffd" if "\ud800" <= ch <= "\udfff" else ch for ch in text)


def _encode_unicode(text: str, codec: str, bom: bool) -> bytes:
    if bom and text.startswith("\ufeff"):
        text = text[1:]  # the BOM is written once, from the flag
    try:
        body = text.encode(codec)
    except UnicodeEncodeError:
        body = _without_lone_surrogates(text).encode(codec)
    return (_BOMS[codec] if bom else b"") + body


def encode_text_detailed(text: str, info: TextEncodingInfo) -> tuple[bytes, TextEncodingInfo]:
    """Encode ``text`` for disk as :func:`encode_text` does, with the format actually used.

    The returned info differs from ``info`` only when a legacy codec could not represent the
    text (or is unknown to Python): the file is then UTF-8 without BOM.
    """
    if info.line_ending == "crlf":
        text = text.replace("\r\n", "\n").replace("\n", "\r\n")
    codec, implied_bom = _canonical_codec(info.encoding)
    if codec in _BOMS:
        return _encode_unicode(text, codec, info.bom or implied_bom), info
    try:
        return text.encode(codec), info
    except (UnicodeEncodeError, LookupError):
        return _encode_unicode(text, "utf-8", False), replace(info, encoding="utf-8", bom=False)


def encode_text(text: str, info: TextEncodingInfo) -> bytes:
    """The bytes to write for ``text`` in the format ``info`` describes.

    CRLF files get CRLF everywhere, a BOM is re-emitted when ``info.bom`` (UTF codecs only; a
    leading U+FEFF in ``text`` is not doubled), and the text is encoded strictly with
    ``info.encoding``; a legacy codec that cannot encode it falls back to UTF-8 for the whole
    file (see the module docstring).
    """
    return encode_text_detailed(text, info)[0]
