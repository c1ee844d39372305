"""``read_file`` on files of 10 MB and more (streamed) and on PDFs (page ranges with pypdf)."""

from __future__ import annotations

import base64
import io
import os
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader, PdfWriter

from qwen_tools.contract.errors import ToolErrorType
from qwen_tools.contract.parts import InlineDataPart
from support.read_session import Session, write


def make_pdf(path: Path, pages: int) -> Path:
    writer = PdfWriter()
    for index in range(pages):
        writer.add_blank_page(width=100 + index, height=200)  # the width tells pages apart
    with open(path, "wb") as fh:
        writer.write(fh)
    return path


def pdf_widths(part: Any) -> list[int]:
    assert isinstance(part, InlineDataPart)
    assert part.mime_type == "application/pdf"
    reader = PdfReader(io.BytesIO(base64.b64decode(part.data)))
    return [int(page.mediabox.width) for page in reader.pages]


# -- files of 10 MB and more are streamed -----------------------------------------------------

LINES = 1_000_000  # 13 bytes each: 13 MB


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = Path(os.path.realpath(tmp_path_factory.mktemp("big"))) / "ws"
    root.mkdir()
    data = "".join(f"line {i:07d}\n" for i in range(LINES)).encode()
    assert len(data) > 11 * 1024 * 1024
    (root / "big.txt").write_bytes(data)
    (root / "bom.txt").write_bytes(b"\xef\xbb\xbf" + data)
    (root / "bad.txt").write_bytes(data[:-20] + b"\xff" + data[-19:])
    (root / "wide.txt").write_bytes("\ufeffabcdefgh\n".encode("utf-16-le") * 600_000)
    (root / "latin.txt").write_bytes(
        "café crème et du thé, très bien.\n".encode("latin-1") * 400_000
    )
    return root


async def test_large_file_default_window_counts_at_least(big: Path) -> None:
    result = await Session(big).read(big / "big.txt")
    body = "\n".join(f"line {i:07d}" for i in range(1000))
    assert (
        result.llm_content == f"Showing lines 1-1000 of at least 1001 total lines.\n\n---\n\n{body}"
    )
    assert result.return_display == "Read lines 1-1000 of at least 1001 from big.txt"


async def test_large_file_window_at_the_end_is_exact(big: Path) -> None:
    text = await Session(big).text(big / "big.txt", offset=LINES - 2, limit=5)
    assert text == (
        "Showing lines 999999-1000001 of 1000001 total lines.\n\n---\n\n"
        "line 0999998\nline 0999999\n"
    )


async def test_large_file_offset_past_the_end(big: Path) -> None:
    text = await Session(big).text(big / "big.txt", offset=2 * LINES)
    assert text == f"Offset {2 * LINES} is beyond the end of the file ({LINES + 1} total lines)."


async def test_large_file_utf8_bom_is_dropped(big: Path) -> None:
    text = await Session(big).text(big / "bom.txt", limit=2)
    assert (
        text == "Showing lines 1-2 of at least 3 total lines.\n\n---\n\nline 0000000\nline 0000001"
    )


async def test_large_file_middle_window_under_both_caps(big: Path) -> None:
    # Threshold 1,000 characters, so the byte cap is 25,000: streaming stops inside line
    # 501,924 (1,923 lines of 13 bytes fit), and the character budget cuts line 78 of the
    # window to ten characters.
    session = Session(big, truncate_tool_output_threshold=1000)
    result = await session.read(big / "big.txt", offset=500_000, limit=5000)
    body = "\n".join(f"line {i:07d}" for i in range(500_000, 500_077))
    assert result.llm_content == (
        "Showing lines 500001-500078 of at least 501925 total lines.\n\n---\n\n"
        f"{body}\nline 05000... [truncated]"
    )
    assert result.return_display == (
        "Read lines 500001-500078 of at least 501925 from big.txt (truncated)"
    )


async def test_large_non_utf8_files_are_refused(big: Path) -> None:
    text = await Session(big).text(big / "wide.txt")
    assert text == (
        "Error reading file wide.txt: Large non-UTF-8 text files are not supported for "
        "streaming reads (detected utf-16le). Convert or extract a smaller UTF-8 slice and read "
        "that instead."
    )
    latin = await Session(big).read(big / "latin.txt")
    assert latin.error is not None
    assert latin.error.type is ToolErrorType.READ_CONTENT_FAILURE
    assert latin.error.message.startswith(
        "Error reading file latin.txt: Large non-UTF-8 text files are not supported for "
        "streaming reads (detected "
    )


async def test_invalid_utf8_past_the_sample(big: Path) -> None:
    session = Session(big)
    assert (await session.text(big / "bad.txt", limit=3)).endswith("line 0000002")
    text = await session.text(big / "bad.txt", offset=LINES - 3)
    assert text == (
        "Error reading file bad.txt: Large text file contains invalid UTF-8 byte sequence beyond "
        "the initial encoding sample. Convert or extract a smaller UTF-8 slice and read that "
        "instead."
    )


# -- PDF ----------------------------------------------------------------------------------


async def test_pdf_is_inline_whole(ws: Path) -> None:
    path = make_pdf(ws / "doc.pdf", 3)
    result = await Session(ws).read(path)
    assert result.llm_content == InlineDataPart(
        "application/pdf", base64.b64encode(path.read_bytes()).decode(), "doc.pdf"
    )
    assert result.return_display == "Read pdf file: doc.pdf"


@pytest.mark.parametrize(
    ("pages", "widths", "display"),
    [
        ("2-3", [101, 102], "Read pdf file (pages 2-3): doc.pdf"),
        ("2", [101], "Read pdf file (pages 2): doc.pdf"),
        (" 1 - 2 ", [100, 101], "Read pdf file (pages 1-2): doc.pdf"),
        ("2-9", [101, 102], "Read pdf file (pages 2-3): doc.pdf"),  # clamped to the end
    ],
)
async def test_pdf_pages_become_a_smaller_pdf(
    ws: Path, pages: str, widths: list[int], display: str
) -> None:
    path = make_pdf(ws / "doc.pdf", 3)
    result = await Session(ws).read(path, pages=pages)
    assert result.error is None
    assert isinstance(result.llm_content, InlineDataPart)
    assert result.llm_content.display_name == "doc.pdf"
    assert pdf_widths(result.llm_content) == widths
    assert result.return_display == display


async def test_pdf_pages_past_the_end(ws: Path) -> None:
    path = make_pdf(ws / "doc.pdf", 3)
    result = await Session(ws).read(path, pages="5-6")
    assert result.error is not None
    assert result.error.type is ToolErrorType.INVALID_TOOL_PARAMS
    assert result.error.message == (
        "Invalid pages parameter: '5-6' is beyond the end of PDF \"doc.pdf\", which has 3 pages."
    )
    assert result.return_display == "Failed to read pdf: doc.pdf"


async def test_long_pdf_needs_a_page_range(ws: Path) -> None:
    path = make_pdf(ws / "long.pdf", 12)
    session = Session(ws)
    result = await session.read(path)
    message = (
        "PDF \"long.pdf\" has 12 pages, which is too many to read at once. Use the 'pages' "
        "parameter to read a specific page range such as '1-5'. Maximum 20 pages per request."
    )
    assert result.error is not None
    assert result.error.message == message
    assert result.error.type is ToolErrorType.FILE_TOO_LARGE
    assert result.return_display == "PDF requires page range: long.pdf"
    ranged = await session.read(path, pages="11-12")
    assert pdf_widths(ranged.llm_content) == [110, 111]
    assert pdf_widths((await session.read(make_pdf(ws / "ten.pdf", 10))).llm_content)[-1] == 109


async def test_unreadable_pdf(ws: Path) -> None:
    path = write(ws, "junk.pdf", b"%PDF-1.4\n" + b"0" * 1_200_000)
    session = Session(ws)
    whole = await session.text(path)
    assert whole.startswith('PDF "junk.pdf" appears to have about 12 pages, which is too many')
    ranged = await session.read(path, pages="1")
    assert ranged.error is not None
    assert ranged.error.type is ToolErrorType.READ_CONTENT_FAILURE
    assert ranged.error.message.startswith('Cannot read the pages of PDF "junk.pdf": ')
