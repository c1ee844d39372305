"""``read_file`` on every kind of file and path: encodings, binary, media, errors."""

from __future__ import annotations

import base64
import os
from pathlib import Path
from typing import Any

import pytest

from qwen_tools.config.config import Config
from qwen_tools.contract.errors import ToolErrorType
from qwen_tools.contract.function_response import function_response_for_result
from qwen_tools.contract.parts import InlineDataPart
from qwen_tools.tools import ReadFileTool
from support.one_call import run_call
from support.read_file_cases import CONTROLS, FRENCH, NOTES, PNG, make_tool, model_text, read, write


async def test_trailing_whitespace_and_crlf(ws: Path) -> None:
    result = await read(ws, {"file_path": write(ws, "crlf.txt", "alpha\r\nbeta  \r\ngamma\r\n")})
    assert result.llm_content == "alpha\nbeta\ngamma\n"


async def test_javascript_whitespace_rules(ws: Path) -> None:
    path = write(ws, "ctrl.txt", "keep\x1c\nnbsp\u00a0\nfeff\ufeff\nvt\x0b\n")
    result = await read(ws, {"file_path": path})
    assert result.llm_content == "keep\x1c\nnbsp\nfeff\nvt\n"


@pytest.mark.parametrize(
    ("data", "text"),
    [
        (b"\xef\xbb\xbfbom line\n", "bom line\n"),
        ("\ufeffhello utf16\r\nline2\n".encode("utf-16-le"), "hello utf16\nline2\n"),
        ("\ufeffbig endian\n".encode("utf-16-be"), "big endian\n"),
        ("\ufeffthirty-two\n".encode("utf-32-le"), "thirty-two\n"),
        ("\ufeffthirty-two\n".encode("utf-32-be"), "thirty-two\n"),
        (b"caf\xe9 cr\xe8me\n", "caf\ufffd cr\ufffdme\n"),  # too little text to guess
        (FRENCH.encode("latin-1"), FRENCH),
        ("これは日本語です。\n".encode("shift_jis"), "これは日本語です。\n"),
    ],
)  # fmt: skip
async def test_decoding(ws: Path, data: bytes, text: str) -> None:
    result = await read(ws, {"file_path": write(ws, "enc.txt", data)})
    assert result.llm_content == text


async def test_binary_file(ws: Path) -> None:
    result = await read(ws, {"file_path": write(ws, "binary.dat", bytes(range(256)))})
    assert model_text(result) == "Cannot display content of binary file: binary.dat"
    assert result.return_display == "Skipped binary file: binary.dat"
    assert result.error is None


@pytest.mark.parametrize(
    ("name", "data", "expected"),
    [
        ("blob.xyz", bytes(range(1, 9)) * 100, "Cannot display content of binary file: blob.xyz"),
        ("plain.xyz", b"plain text here\n", "plain text here\n"),
        ("Makefile", b"all:\n\x00\x01binary\n", "all:\n\x00\x01binary\n"),  # known name
        ("code.ts", b"\x00\x00ts with nul\n", "\x00\x00ts with nul\n"),  # TypeScript
        ("fake.png", b"just some text\n", "just some text\n"),  # no image magic
        ("arch.zip", b"text in a zip name\n", "Cannot display content of binary file: arch.zip"),
        ("pdf.png", b"%PDF-1.4 not an image", "Cannot display content of binary file: pdf.png"),
        # A BOM means text whatever follows; the tab before the newline is trimmed.
        ("bom.xyz", b"\xef\xbb\xbf" + bytes(range(32)), CONTROLS),
    ],
)
async def test_file_type_detection(ws: Path, name: str, data: bytes, expected: str) -> None:
    result = await read(ws, {"file_path": write(ws, name, data)})
    assert model_text(result) == expected


async def test_missing_file(ws: Path) -> None:
    target = str(ws / "missing.txt")
    result = await read(ws, {"file_path": target})
    assert model_text(result) == f"File not found: {target}"
    assert (
        result.llm_content == "Could not read file because no file was found at the specified path."
    )
    assert result.return_display == "File not found."
    assert result.error is not None
    assert result.error.type is ToolErrorType.FILE_NOT_FOUND


async def test_dangling_symlink_is_missing(ws: Path) -> None:
    os.symlink(ws / "nowhere", ws / "dangling")
    result = await read(ws, {"file_path": str(ws / "dangling")})
    assert model_text(result) == f"File not found: {ws}/dangling"


async def test_path_through_a_file(ws: Path) -> None:
    write(ws, "notes.txt", NOTES)
    target = f"{ws}/notes.txt/x"
    result = await read(ws, {"file_path": target})
    expected = f"Error reading file notes.txt/x: ENOTDIR: not a directory, stat '{target}'"
    assert model_text(result) == expected
    assert result.error is not None
    assert result.error.type is ToolErrorType.READ_CONTENT_FAILURE


async def test_directory(ws: Path) -> None:
    result = await read(ws, {"file_path": str(ws)})
    assert model_text(result) == f"Path is a directory, not a file: {ws}"
    assert result.llm_content == (
        "Could not read file because the provided path is a directory, not a file."
    )
    assert result.error is not None
    assert result.error.type is ToolErrorType.TARGET_IS_DIRECTORY


async def test_fifo_is_not_a_regular_file(ws: Path) -> None:
    os.mkfifo(ws / "pipe")
    result = await read(ws, {"file_path": str(ws / "pipe")})
    assert model_text(result) == f"Not a regular file: {ws}/pipe"
    assert result.llm_content == (
        "Cannot read file: pipe is not a regular file (e.g. device, socket, or pipe)."
    )


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({}, "params must have required property 'file_path'"),
        ({"file_path": "notes.txt"}, "File path must be absolute, but was relative: notes.txt. "
         "You must provide an absolute path."),
        ({"file_path": "   "}, "The 'file_path' parameter must be non-empty."),
        ({"file_path": "/x", "offset": -1}, "Offset must be a non-negative integer"),
        ({"file_path": "/x", "limit": 0}, "Limit must be a positive integer"),
        ({"file_path": "/x", "offset": 1.5}, "params/offset must be integer,null"),
        ({"file_path": "/x", "pages": "1-25"},
         "Pages range exceeds maximum of 20 pages per request."),
        ({"file_path": "/x", "pages": "3-"}, "Open-ended page ranges (e.g. '3-') are not "
         "supported; specify an explicit end page within the 20-page limit (e.g. '3-22')."),
        ({"file_path": "/x", "pages": "x"},
         "Invalid pages parameter: 'x'. Use formats like '5' or '1-10'."),
        ({"file_path": "/x", "pages": "5-2"},
         "Invalid pages parameter: '5-2'. Use formats like '5' or '1-10'."),
        ({"absolute_path": "rel.txt"}, "File path must be absolute, but was relative: rel.txt. "
         "You must provide an absolute path."),
        ({"file_path": "/a", "absolute_path": "/b"},
         "Give either 'file_path' or its alias 'absolute_path', not two different paths."),
    ],
)  # fmt: skip
async def test_validation_messages(ws: Path, params: dict[str, Any], message: str) -> None:
    done = await run_call(make_tool(ws), params)
    assert done.response_text == message
    assert done.error_type is ToolErrorType.INVALID_TOOL_PARAMS


async def test_absolute_path_alias(ws: Path) -> None:
    path = write(ws, "notes.txt", NOTES)
    assert (await read(ws, {"absolute_path": path})).llm_content == NOTES
    assert (await read(ws, {"absolute_path": path, "file_path": path})).llm_content == NOTES


async def test_nulls_and_blank_pages_mean_unset(ws: Path) -> None:
    path = write(ws, "notes.txt", NOTES)
    params = {"file_path": path, "offset": None, "limit": None, "pages": "  "}
    tool = make_tool(ws)
    invocation = tool.build(params)
    assert invocation.params == {"file_path": path}
    assert (await read(ws, params)).llm_content == NOTES


async def test_escaped_path(ws: Path) -> None:
    write(ws, "sub dir/f (1).txt", "in sub dir\n")
    result = await read(ws, {"file_path": f" {ws}/sub\\ dir/f\\ \\(1\\).txt "})
    assert result.llm_content == "in sub dir\n"


async def test_empty_file(ws: Path) -> None:
    path = write(ws, "empty.txt", b"")
    for params in ({"file_path": path}, {"file_path": path, "offset": 0, "limit": 5}):
        result = await read(ws, params)
        assert result.llm_content == ""
        assert model_text(result) == "(read_file completed with no output)"


async def test_qwen_ignored_file(ws: Path) -> None:
    (ws / ".qwenignore").write_text("*.secret\n")
    path = write(ws, "key.secret", "k")
    done = await run_call(make_tool(ws), {"file_path": path})
    assert done.response_text == f"File path '{path}' is ignored by .qwenignore pattern(s)."


async def test_outside_workspace(ws: Path, outside: Path) -> None:
    config = Config(ws)
    tool = ReadFileTool(config)
    done = await run_call(tool, {"file_path": str(outside / "secret.txt")})
    assert done.response_text == f"File path must be within one of the workspace directories: {ws}"
    os.symlink(outside / "secret.txt", ws / "link.txt")
    done = await run_call(tool, {"file_path": str(ws / "link.txt")})
    assert done.response_text == config.workspace_error()
    inside = ReadFileTool(Config(ws, include_directories=[outside]))
    result = await inside.build_and_execute({"file_path": str(outside / "secret.txt")})
    assert result.llm_content == "top secret\n"


async def test_png_is_inline(ws: Path) -> None:
    result = await read(ws, {"file_path": write(ws, "image.png", PNG)})
    assert result.llm_content == InlineDataPart(
        mime_type="image/png", data=base64.b64encode(PNG).decode(), display_name="image.png"
    )
    assert result.return_display == "Read image file: image.png"
    response = function_response_for_result("read_file", "c1", result)
    assert response.parts == (result.llm_content,)


@pytest.mark.parametrize(
    ("name", "data", "mime", "display"),
    [
        ("anim.gif", b"GIF89a\x01\x00\x01\x00;", "image/gif", "Read image file: anim.gif"),
        ("png.gif", PNG, "image/gif", "Read image file: png.gif"),  # PNG magic accepted
        ("photo.jpg", b"\xff\xd8\xff\xe0rest", "image/jpeg", "Read image file: photo.jpg"),
        ("pic.bmp", b"BM" + bytes(60), "image/bmp", "Read image file: pic.bmp"),
        ("song.mp3", b"ID3\x03" + bytes(20), "audio/mpeg", "Read audio file: song.mp3"),
        ("clip.mp4", bytes(32), "video/mp4", "Read video file: clip.mp4"),
        ("doc.pdf", b"%PDF-1.4\n%%EOF\n", "application/pdf", "Read pdf file: doc.pdf"),
    ],
)
async def test_media_is_inline(ws: Path, name: str, data: bytes, mime: str, display: str) -> None:
    result = await read(ws, {"file_path": write(ws, f"media/{name}", data)})
    assert result.llm_content == InlineDataPart(mime, base64.b64encode(data).decode(), name)
    assert result.return_display == display.replace(": ", ": media/")


async def test_unsupported_image_format(ws: Path) -> None:
    result = await read(ws, {"file_path": write(ws, "scan.tiff", b"II*\x00" + bytes(8))})
    assert result.llm_content == (
        "Image format image/tiff (scan.tiff) cannot be safely sent to the model, so its data "
        "was omitted from the request. Ask the user for a PNG, JPEG, WebP, or GIF version if "
        "the image content matters."
    )
    assert result.error is None


async def test_svg(ws: Path) -> None:
    small = '<svg xmlns="http://www.w3.org/2000/svg">\n  <rect/>   \r\n</svg>\n'
    result = await read(ws, {"file_path": write(ws, "small.svg", small)})
    assert result.llm_content == small  # verbatim: no trimming
    assert result.return_display == "Read SVG as text: small.svg"
    large = await read(ws, {"file_path": write(ws, "large.svg", "<svg>" + "x" * 1048576)})
    assert model_text(large) == "Cannot display content of SVG file larger than 1MB: large.svg"


async def test_image_over_the_data_uri_limit(ws: Path) -> None:
    path = write(ws, "big.png", PNG + bytes(7_800_000))
    result = await read(ws, {"file_path": path})
    assert model_text(result) == (
        f"File exceeds the 10MB data URI limit after base64 encoding: {path} (9.92MB encoded)"
    )
    assert result.llm_content == (
        "File exceeds the 10MB data URI limit after base64 encoding (9.92MB encoded)."
    )
    assert result.error is not None
    assert result.error.type is ToolErrorType.FILE_TOO_LARGE


async def test_media_over_the_size_limit(ws: Path) -> None:
    path = write(ws, "big.gif", b"GIF89a" + bytes(10_500_000))
    result = await read(ws, {"file_path": path})
    assert model_text(result) == f"File size exceeds the 10MB limit: {path} (10.01MB)"
    assert result.llm_content == "File size exceeds the 10MB limit."
    assert result.error is not None
    assert result.error.type is ToolErrorType.FILE_TOO_LARGE
