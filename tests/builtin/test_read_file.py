"""``read_file`` against real files, with the reference's exact strings."""

from __future__ import annotations

import base64
import os
from pathlib import Path
from typing import Any

import pytest

from qwen_tools._config.config import Config
from qwen_tools._config.tool_settings import ToolSettings
from qwen_tools._contract.errors import ToolErrorType
from qwen_tools._contract.function_response import function_response_for_result, response_text
from qwen_tools._contract.invocation import ToolLocation
from qwen_tools._contract.kinds import Kind
from qwen_tools._contract.parts import InlineDataPart
from qwen_tools._contract.results import ToolResult
from qwen_tools.builtin import ReadFileTool

NOTES = "".join(
    f"line {i}: {word}\n"
    for i, word in enumerate(
        [
            "alpha",
            "beta",
            "gamma",
            "delta TODO check this",
            "epsilon",
            "zeta",
            "eta",
            "theta TODO and this",
            "iota",
            "kappa",
        ],
        start=1,
    )
)
FRENCH = (
    "Le café est très bon, n'est-ce pas? Il fait beau aujourd'hui à Paris, et les élèves "
    "sont déjà partis.\n"
) * 3
CONTROLS = "".join(map(chr, range(9))) + "\n" + "".join(map(chr, range(11, 32)))
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00"


def make_tool(root: Path, **settings: Any) -> ReadFileTool:
    return ReadFileTool(Config(root, settings=ToolSettings(**settings)))


async def read(root: Path, params: dict[str, Any], **settings: Any) -> ToolResult:
    return await make_tool(root, **settings).validate_build_and_execute(params)


def model_text(result: ToolResult) -> str:
    return response_text(function_response_for_result("read_file", "c1", result))


def write(root: Path, name: str, data: str | bytes) -> str:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_bytes(data.encode("utf-8"))
    return str(path)


def test_identity_and_schema(ws: Path) -> None:
    tool = make_tool(ws)
    assert (tool.name, tool.display_name, tool.kind) == ("read_file", "ReadFile", Kind.READ)
    assert ReadFileTool.Name == "read_file"
    schema = tool.schema.parameters_json_schema
    assert "required" not in schema
    assert {k: v["type"] for k, v in schema["properties"].items()} == {
        "file_path": "string",
        "offset": ["integer", "null"],
        "limit": ["integer", "null"],
        "pages": ["string", "null"],
        "absolute_path": "string",
    }


async def test_whole_file_is_verbatim(ws: Path) -> None:
    result = await read(ws, {"file_path": write(ws, "notes.txt", NOTES)})
    assert result.llm_content == NOTES
    assert result.return_display == ""
    assert result.error is None


async def test_offset_and_limit(ws: Path) -> None:
    result = await read(ws, {"file_path": write(ws, "notes.txt", NOTES), "offset": 2, "limit": 3})
    assert result.llm_content == (
        "Showing lines 3-5 of 11 total lines.\n\n---\n\n"
        "line 3: gamma\nline 4: delta TODO check this\nline 5: epsilon"
    )
    assert result.return_display == "Read lines 3-5 of 11 from notes.txt"


async def test_offset_without_limit(ws: Path) -> None:
    result = await read(ws, {"file_path": write(ws, "notes.txt", NOTES), "offset": 8})
    assert result.llm_content == (
        "Showing lines 9-11 of 11 total lines.\n\n---\n\nline 9: iota\nline 10: kappa\n"
    )


async def test_string_numbers_are_coerced(ws: Path) -> None:
    params = {"file_path": write(ws, "notes.txt", NOTES), "offset": "0", "limit": "1"}
    result = await read(ws, params)
    assert result.llm_content == "Showing lines 1-1 of 11 total lines.\n\n---\n\nline 1: alpha"


@pytest.mark.parametrize(("offset", "total"), [(100, 3), (3, 3)])
async def test_offset_past_the_end_is_an_error(ws: Path, offset: int, total: int) -> None:
    path = write(ws, "short.txt", "a\nb\nc")
    result = await read(ws, {"file_path": path, "offset": offset})
    message = f"Offset {offset} is beyond the end of the file ({total} total lines)."
    assert model_text(result) == message
    assert result.error is not None
    assert result.error.type is ToolErrorType.INVALID_TOOL_PARAMS


async def test_last_line_offset_is_fine(ws: Path) -> None:
    result = await read(ws, {"file_path": write(ws, "short.txt", "a\nb\nc"), "offset": 2})
    assert result.llm_content == "Showing lines 3-3 of 3 total lines.\n\n---\n\nc"


async def test_default_window_is_1000_lines(ws: Path) -> None:
    content = "".join(f"row {i}\n" for i in range(1, 1502))
    result = await read(ws, {"file_path": write(ws, "big.txt", content)})
    body = "\n".join(f"row {i}" for i in range(1, 1001))
    assert result.llm_content == f"Showing lines 1-1000 of 1502 total lines.\n\n---\n\n{body}"
    assert result.return_display == "Read lines 1-1000 of 1502 from big.txt"


async def test_window_at_the_end(ws: Path) -> None:
    content = "".join(f"row {i}\n" for i in range(1, 1501))  # 1,501 lines with the empty one
    path = write(ws, "big.txt", content)
    result = await read(ws, {"file_path": path, "offset": 1495, "limit": 10})
    body = "\n".join(f"row {i}" for i in range(1496, 1501)) + "\n"
    assert result.llm_content == f"Showing lines 1496-1501 of 1501 total lines.\n\n---\n\n{body}"


async def test_line_limit_setting(ws: Path) -> None:
    path = write(ws, "notes.txt", NOTES)
    limited = await read(ws, {"file_path": path}, truncate_tool_output_lines=2)
    assert limited.llm_content == (
        "Showing lines 1-2 of 11 total lines.\n\n---\n\nline 1: alpha\nline 2: beta"
    )
    unlimited = await read(ws, {"file_path": path}, truncate_tool_output_lines=0)
    assert unlimited.llm_content == NOTES


async def test_character_budget(ws: Path) -> None:
    result = await read(ws, {"file_path": write(ws, "long.txt", "x" * 30000 + "\nsecond\n")})
    expected = "Showing lines 1-1 of 3 total lines.\n\n---\n\n" + "x" * 25000 + "... [truncated]"
    assert result.llm_content == expected
    assert len(expected) == 25057
    assert result.return_display == "Read lines 1-1 of 3 from long.txt (truncated)"


async def test_character_budget_cuts_a_later_line(ws: Path) -> None:
    path = write(ws, "t.txt", "abcdef\n" + "y" * 50 + "\nz\n")
    result = await read(ws, {"file_path": path}, truncate_tool_output_threshold=20)
    # 6 chars used, 1 for the newline, 13 left for the second line.
    body = "abcdef\n" + "y" * 13 + "... [truncated]"
    assert result.llm_content == f"Showing lines 1-2 of 4 total lines.\n\n---\n\n{body}"


async def test_budget_keeps_at_least_ten_characters(ws: Path) -> None:
    path = write(ws, "t.txt", "a" * 18 + "\n" + "b" * 40)
    result = await read(ws, {"file_path": path}, truncate_tool_output_threshold=20)
    body = "a" * 18 + "\n" + "b" * 10 + "... [truncated]"
    assert result.llm_content == f"Showing lines 1-2 of 2 total lines.\n\n---\n\n{body}"


async def test_budget_counts_utf16_units(ws: Path) -> None:
    path = write(ws, "e.txt", "ab😀cd\n")  # the emoji counts as two
    result = await read(ws, {"file_path": path}, truncate_tool_output_threshold=5)
    assert result.llm_content == (
        "Showing lines 1-1 of 2 total lines.\n\n---\n\nab😀cd... [truncated]"
    )


async def test_byte_cap(ws: Path) -> None:
    # 900 lines of one letter and 200 spaces: the 100,000-byte cap is reached at line 496,
    # trailing spaces are trimmed afterwards, and the cut is marked on its own line.
    path = write(ws, "spaces.txt", ("y" + " " * 200 + "\n") * 900)
    result = await read(ws, {"file_path": path})
    body = "y\n" * 495 + "y\n... [truncated]"
    assert result.llm_content == f"Showing lines 1-496 of 901 total lines.\n\n---\n\n{body}"
    assert result.return_display == "Read lines 1-496 of 901 from spaces.txt (truncated)"


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
    result = await read(ws, params)
    assert model_text(result) == message
    assert result.error is not None
    assert result.error.type is ToolErrorType.INVALID_TOOL_PARAMS


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
    result = await read(ws, {"file_path": path})
    assert model_text(result) == f"File path '{path}' is ignored by .qwenignore pattern(s)."


async def test_outside_workspace(ws: Path, outside: Path) -> None:
    config = Config(ws)
    tool = ReadFileTool(config)
    result = await tool.validate_build_and_execute({"file_path": str(outside / "secret.txt")})
    assert model_text(result) == f"File path must be within one of the workspace directories: {ws}"
    os.symlink(outside / "secret.txt", ws / "link.txt")
    result = await tool.validate_build_and_execute({"file_path": str(ws / "link.txt")})
    assert model_text(result) == config.workspace_error()
    inside = ReadFileTool(Config(ws, include_directories=[outside]))
    result = await inside.validate_build_and_execute({"file_path": str(outside / "secret.txt")})
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


def test_description_and_locations(ws: Path) -> None:
    tool = make_tool(ws)
    path = str(ws / "src" / "a.py")
    cases: list[tuple[dict[str, Any], str]] = [
        ({}, "src/a.py"),
        ({"offset": 4, "limit": 10}, "src/a.py (lines 5-14)"),
        ({"offset": 4}, "src/a.py (from line 5)"),
        ({"limit": 10}, "src/a.py (first 10 lines)"),
        ({"pages": "2-3"}, "src/a.py (pages 2-3)"),
    ]
    for extra, description in cases:
        assert tool.build({"file_path": path, **extra}).get_description() == description
    located = tool.build({"file_path": path, "offset": 4}).tool_locations()
    assert located == [ToolLocation(path, 4)]
    assert tool.build({"file_path": path}).tool_locations() == [ToolLocation(path, None)]
