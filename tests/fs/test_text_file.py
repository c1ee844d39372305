"""Text files: decoding with their encoding, BOM and line endings, and writing them back."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from qwen_tools.fs.atomic import write_text_atomic
from qwen_tools.fs.text_file import (
    DEFAULT_TEXT_INFO,
    TextEncodingInfo,
    decode_text,
    decode_text_file,
    detect_line_ending,
    encode_text,
    encode_text_detailed,
    read_text_file,
)

FRENCH = (
    "Le café est très chaud. À côté, un élève étudie la géographie française près de la "
    "fenêtre.\nIl était une fois une école où les enfants apprenaient à lire et à écrire.\n"
)
JAPANESE = (
    "日本語のテキストです。これはシフトJISでエンコードされたファイルです。\n"
    "東京は日本の首都です。\n"
)


def _round_trip(tmp_path: Path, data: bytes) -> tuple[str, TextEncodingInfo]:
    """Write ``data``, read it as text, write the text back unchanged: the bytes must survive."""
    path = tmp_path / "file.txt"
    path.write_bytes(data)
    decoded = read_text_file(path)
    write_text_atomic(path, decoded.text, decoded.info)
    assert path.read_bytes() == data
    return decoded.text, decoded.info


@pytest.mark.parametrize(
    ("codec", "bom"),
    [
        ("utf-8", codecs.BOM_UTF8),
        ("utf-16-le", codecs.BOM_UTF16_LE),
        ("utf-16-be", codecs.BOM_UTF16_BE),
        ("utf-32-le", codecs.BOM_UTF32_LE),
        ("utf-32-be", codecs.BOM_UTF32_BE),
    ],
)
def test_bom_files_round_trip(tmp_path: Path, codec: str, bom: bytes) -> None:
    text = "naïve 😀 line\nsecond\n"
    decoded, info = _round_trip(tmp_path, bom + text.encode(codec))
    assert decoded == text  # the BOM is not part of the text
    assert info == TextEncodingInfo(codec, True, "lf")


def test_plain_utf8_round_trips(tmp_path: Path) -> None:
    text, info = _round_trip(tmp_path, "héllo wörld\n".encode())
    assert text == "héllo wörld\n"
    assert info == DEFAULT_TEXT_INFO


@pytest.mark.parametrize("codec", ["cp1252", "latin-1"])
def test_latin_text_round_trips_in_its_legacy_encoding(tmp_path: Path, codec: str) -> None:
    text, info = _round_trip(tmp_path, FRENCH.encode(codec))
    assert text == FRENCH
    assert info.encoding == "cp1252"
    assert not info.bom
    edited = text.replace("chaud", "brûlant")
    assert encode_text(edited, info) == edited.encode("cp1252")


def test_shift_jis_round_trips(tmp_path: Path) -> None:
    text, info = _round_trip(tmp_path, JAPANESE.encode("shift_jis"))
    assert text == JAPANESE
    assert codecs.lookup(info.encoding).name in ("shift_jis", "cp932")


def test_short_undetectable_latin1_reads_with_replacement_characters() -> None:
    """As observed in 0.24.4: too little text to guess, so UTF-8 with U+FFFD."""
    decoded = decode_text_file(b"caf\xe9 cr\xe8me\n")
    assert decoded.text == "caf\ufffd cr\ufffdme\n"
    assert decoded.info == DEFAULT_TEXT_INFO


def test_crlf_round_trips(tmp_path: Path) -> None:
    text, info = _round_trip(tmp_path, b"alpha\r\nbeta  \r\ngamma\r\n")
    assert text == "alpha\r\nbeta  \r\ngamma\r\n"  # line endings are not normalised on read
    assert info.line_ending == "crlf"


def test_crlf_file_without_final_newline_keeps_it_that_way(tmp_path: Path) -> None:
    text, info = _round_trip(tmp_path, b"one\r\ntwo")
    assert (text, info.line_ending) == ("one\r\ntwo", "crlf")


def test_lf_file_without_final_newline_round_trips(tmp_path: Path) -> None:
    text, info = _round_trip(tmp_path, b"one\ntwo")
    assert (text, info.line_ending) == ("one\ntwo", "lf")


def test_mixed_line_endings_are_written_all_crlf() -> None:
    decoded = decode_text_file(b"a\r\nb\nc\r\nd")
    assert decoded.info.line_ending == "crlf"
    assert encode_text(decoded.text, decoded.info) == b"a\r\nb\r\nc\r\nd"


def test_lf_content_written_to_a_crlf_file_becomes_crlf() -> None:
    info = TextEncodingInfo("utf-8", False, "crlf")
    assert encode_text("x\ny\n", info) == b"x\r\ny\r\n"


def test_empty_file(tmp_path: Path) -> None:
    text, info = _round_trip(tmp_path, b"")
    assert (text, info) == ("", DEFAULT_TEXT_INFO)
    assert encode_text("", TextEncodingInfo("utf-16-le", True, "crlf")) == codecs.BOM_UTF16_LE


def test_detect_line_ending_needs_one_crlf() -> None:
    assert detect_line_ending("a\nb\r\n") == "crlf"
    assert detect_line_ending("a\nb\rc\n") == "lf"
    assert detect_line_ending("") == "lf"


def test_legacy_codec_that_cannot_encode_falls_back_to_utf8() -> None:
    info = TextEncodingInfo("cp1252", False, "crlf")
    data, used = encode_text_detailed("café 日本\n", info)
    assert data == "café 日本\r\n".encode()
    assert used == TextEncodingInfo("utf-8", False, "crlf")
    assert encode_text("café 日本\n", info) == data


def test_encodable_legacy_text_keeps_its_codec() -> None:
    info = TextEncodingInfo("shift_jis", False, "lf")
    data, used = encode_text_detailed(JAPANESE, info)
    assert data == JAPANESE.encode("shift_jis")
    assert used is info


def test_leading_feff_is_not_doubled_when_a_bom_is_written() -> None:
    info = TextEncodingInfo("utf-8", True, "lf")
    assert encode_text("\ufeffhi\n", info) == codecs.BOM_UTF8 + b"hi\n"


def test_lone_surrogates_become_replacement_characters() -> None:
    assert encode_text("a\ud800b", DEFAULT_TEXT_INFO) == "a\ufffdb".encode()


def test_codec_aliases_are_accepted() -> None:
    assert encode_text("x", TextEncodingInfo("UTF-16LE", True, "lf")) == b"\xff\xfex\x00"
    assert encode_text("x", TextEncodingInfo("utf-16", True, "lf")) == b"\xff\xfex\x00"
    assert encode_text("x", TextEncodingInfo("utf-8-sig", False, "lf")) == codecs.BOM_UTF8 + b"x"


def test_odd_trailing_utf16_byte_is_dropped() -> None:
    assert decode_text(codecs.BOM_UTF16_LE + b"a\x00b") == "a"


def test_read_text_file_raises_os_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_text_file(tmp_path / "missing.txt")
    with pytest.raises(IsADirectoryError):
        read_text_file(tmp_path)


def test_file_types_module_still_exports_the_decoders() -> None:
    from qwen_tools.tools.file_reading import file_types as _file_types

    assert _file_types.decode_text(b"\xef\xbb\xbfhi") == "hi"
    assert _file_types.detect_bom(b"\xff\xfe\x00\x00") == ("utf-32-le", 4)
