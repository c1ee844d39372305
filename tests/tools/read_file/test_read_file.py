"""``read_file``: identity, line windows and budgets, with the reference's exact strings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from qwen_tools.contract.errors import ToolErrorType
from qwen_tools.contract.invocation import ToolLocation
from qwen_tools.contract.kinds import Kind
from qwen_tools.tools import ReadFileTool
from support.read_file_cases import NOTES, make_tool, model_text, read, write


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
