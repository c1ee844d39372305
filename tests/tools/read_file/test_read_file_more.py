"""``read_file``: the session's read cache, the "unchanged" fast path, and notebooks."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from qwen_tools.contract.errors import ToolErrorType
from support.read_session import Session, write

UNCHANGED = (
    "[File {rel} unchanged since last read in this session \u2014 the full content was provided "
    "earlier in this conversation. If you cannot retrieve that prior content (e.g. after "
    "context compaction) or you suspect the file was modified outside the read/edit tools "
    "(shell command, MCP tool, another process), re-read with explicit offset/limit to fetch "
    "current content.]"
)
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00"


# -- read cache and the "unchanged" fast path ------------------------------------------------


async def test_second_full_read_is_the_unchanged_placeholder(ws: Path) -> None:
    path = write(ws, "sub/notes.txt", "alpha\nbeta\n")
    session = Session(ws)
    assert await session.text(path) == "alpha\nbeta\n"
    result = await session.read(path)
    assert result.llm_content == UNCHANGED.format(rel="sub/notes.txt")
    assert result.return_display == "Unchanged: sub/notes.txt"
    assert result.error is None


async def test_sessions_do_not_share_reads(ws: Path) -> None:
    path = write(ws, "notes.txt", "alpha\n")
    assert await Session(ws).text(path) == "alpha\n"
    assert await Session(ws).text(path) == "alpha\n"


async def test_fast_path_is_off_after_a_write(ws: Path) -> None:
    path = write(ws, "notes.txt", "alpha\n")
    session = Session(ws)
    await session.read(path)
    path.write_text("alpha, edited\n")
    session.config.session.read_cache.record_write(str(path))
    assert await session.text(path) == "alpha, edited\n"
    assert await session.text(path) == UNCHANGED.format(rel="notes.txt")


@pytest.mark.parametrize("change", ["mtime", "content"])
async def test_fast_path_is_off_after_an_outside_change(ws: Path, change: str) -> None:
    path = write(ws, "notes.txt", "alpha\n")
    session = Session(ws)
    await session.read(path)
    if change == "mtime":
        os.utime(path, (1_000_000_000, 1_000_000_000))
        expected = "alpha\n"
    else:
        path.write_text("a longer alpha\n")
        expected = "a longer alpha\n"
    assert await session.text(path) == expected


async def test_ranged_reads_never_take_the_fast_path(ws: Path) -> None:
    path = write(ws, "notes.txt", "alpha\nbeta\n")
    session = Session(ws)
    await session.read(path)
    ranged = await session.text(path, offset=0, limit=1)
    assert ranged == "Showing lines 1-1 of 3 total lines.\n\n---\n\nalpha"
    assert (
        await session.text(path, offset=1) == "Showing lines 2-3 of 3 total lines.\n\n---\n\nbeta\n"
    )


async def test_a_ranged_first_read_does_not_arm_the_fast_path(ws: Path) -> None:
    path = write(ws, "notes.txt", "alpha\nbeta\n")
    session = Session(ws)
    await session.read(path, limit=1)
    cache = session.config.session.read_cache
    assert not cache.is_unchanged_since_full_read(str(path))
    assert cache.check_prior_read(str(path), "edit") is None  # a partial read allows edits
    assert await session.text(path) == "alpha\nbeta\n"
    assert cache.is_unchanged_since_full_read(str(path))


async def test_a_truncated_read_is_not_full(ws: Path) -> None:
    path = write(ws, "big.txt", "".join(f"row {i}\n" for i in range(1500)))
    session = Session(ws)
    first = await session.text(path)
    assert first.startswith("Showing lines 1-1000 of 1501 total lines.")
    assert not session.config.session.read_cache.is_unchanged_since_full_read(str(path))
    assert await session.text(path) == first


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("image.png", PNG),
        ("blob.dat", bytes(range(256))),
        ("nb.ipynb", json.dumps({"cells": []}).encode()),
    ],
)
async def test_non_text_reads_are_not_cacheable(ws: Path, name: str, data: bytes) -> None:
    path = write(ws, name, data)
    session = Session(ws)
    first = await session.read(path)
    second = await session.read(path)
    assert second.llm_content == first.llm_content  # read again, no placeholder
    problem = session.config.session.read_cache.check_prior_read(str(path), "edit")
    assert problem is not None
    assert problem.error_type is ToolErrorType.EDIT_REQUIRES_PRIOR_READ


async def test_failed_reads_are_not_recorded(ws: Path) -> None:
    session = Session(ws)
    missing = ws / "missing.txt"
    assert (await session.read(missing)).error is not None
    write(ws, "missing.txt", "now here\n")
    assert await session.text(missing) == "now here\n"


async def test_svg_is_cacheable_like_text(ws: Path) -> None:
    path = write(ws, "pic.svg", "<svg/>\n")
    session = Session(ws)
    assert await session.text(path) == "<svg/>\n"
    assert await session.text(path) == UNCHANGED.format(rel="pic.svg")


# -- notebooks ------------------------------------------------------------------------------

NOTEBOOK: dict[str, Any] = {
    "metadata": {"language_info": {"name": "python"}, "kernelspec": {"language": "R"}},
    "nbformat": 4,
    "cells": [
        {"cell_type": "markdown", "id": "intro", "source": ["# Title\n", "Some text"]},
        {
            "cell_type": "code",
            "execution_count": 1,
            "source": ["x = 1\n", "print(x)"],
            "outputs": [
                {"output_type": "stream", "name": "stdout", "text": ["1\n"]},
                {"output_type": "execute_result", "data": {"text/plain": ["'ok'"]}},
                {"output_type": "display_data", "data": {"image/png": "iVBO", "bad key": "x"}},
                {
                    "output_type": "error",
                    "ename": "ValueError",
                    "evalue": "boom",
                    "traceback": ["\x1b[0;31mValueError\x1b[0m", "boom"],
                },
            ],
        },
        {"cell_type": "code", "execution_count": None, "source": "pass", "outputs": []},
        {"cell_type": "raw", "source": "raw text"},
    ],
}
NOTEBOOK_TEXT = (
    "Jupyter Notebook (python, 4 cells)\n\n"
    "--- Markdown Cell intro ---\n# Title\nSome text\n\n"
    "--- Code Cell cell-1 [1] ---\n```python\nx = 1\nprint(x)\n```\n"
    "Output:\n1\n\n'ok'\n[non-text output: image/png]\nValueError: boom: ValueError\nboom\n\n"
    "--- Code Cell cell-2 ---\n```python\npass\n```\n\n"
    "--- Raw Cell cell-3 ---\nraw text"
)


async def test_notebook_cell_dump(ws: Path) -> None:
    path = write(ws, "nb/analysis.ipynb", json.dumps(NOTEBOOK, indent=1))
    result = await Session(ws).read(path)
    assert result.llm_content == NOTEBOOK_TEXT
    assert result.return_display == "Read notebook: nb/analysis.ipynb"


async def test_notebook_language_falls_back_to_kernelspec_then_python(ws: Path) -> None:
    cells = [{"cell_type": "code", "source": "1"}]
    kernel = write(
        ws, "k.ipynb", json.dumps({"metadata": {"kernelspec": {"language": "R"}}, "cells": cells})
    )
    plain = write(ws, "p.ipynb", json.dumps({"cells": cells}))
    session = Session(ws)
    assert (
        await session.text(kernel)
        == "Jupyter Notebook (R, 1 cells)\n\n--- Code Cell cell-0 ---\n```R\n1\n```"
    )
    assert (await session.text(plain)).startswith("Jupyter Notebook (python, 1 cells)")


async def test_notebook_long_output_and_many_cells(ws: Path) -> None:
    long_output = {"output_type": "stream", "text": "x" * 10_001}
    cells: list[dict[str, Any]] = [{"cell_type": "code", "source": "", "outputs": [long_output]}]
    path = write(ws, "out.ipynb", json.dumps({"cells": cells}))
    text = await Session(ws).text(path)
    assert text.endswith(
        "Output:\n" + "x" * 10_000 + "\n... [output truncated, total 10001 chars. Use shell: "
        "cat <notebook_path> | jq '.cells[0].outputs']"
    )
    many = [{"cell_type": "markdown", "source": "y" * 9960} for _ in range(12)]
    path = write(ws, "many.ipynb", json.dumps({"cells": many}))
    text = await Session(ws).text(path)
    assert "--- Markdown Cell cell-9 ---" in text
    assert "--- Markdown Cell cell-10 ---" not in text
    assert text.endswith(
        "\n\n... [2 remaining cells truncated, total 12 cells. Use shell to inspect: "
        "cat <path> | jq '.cells[10:]']"
    )


async def test_empty_notebook_and_bom(ws: Path) -> None:
    path = write(ws, "empty.ipynb", b"\xef\xbb\xbf" + json.dumps({"cells": []}).encode())
    assert await Session(ws).text(path) == "(empty notebook)"


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("[1, 2]", "Invalid notebook: missing cells array"),
        ('"text"', "Invalid notebook: expected a JSON object"),
        ('{"cells": {}}', "Invalid notebook: missing cells array"),
        ('{"cells": [1]}', "Invalid notebook: cell at index 0 is not an object"),
        ("not json", "Expecting value: line 1 column 1 (char 0)"),
    ],
)
async def test_invalid_notebook(ws: Path, content: str, reason: str) -> None:
    path = write(ws, "bad.ipynb", content)
    result = await Session(ws).read(path)
    assert result.error is not None
    assert result.error.type is ToolErrorType.READ_CONTENT_FAILURE
    assert result.error.message == f"Error parsing notebook {path}: {reason}"
    assert result.llm_content == f"Error parsing notebook bad.ipynb: {reason}"
    assert result.return_display == "Error reading notebook: bad.ipynb"


@pytest.mark.parametrize("params", [{"offset": 1}, {"limit": 5}, {"pages": "1"}])
async def test_notebook_refuses_a_window(ws: Path, params: dict[str, Any]) -> None:
    path = write(ws, "nb.ipynb", json.dumps(NOTEBOOK))
    text = await Session(ws).text(path, **params)
    assert text == (
        "For Jupyter notebooks (.ipynb), omit 'offset', 'limit', and 'pages' or set them to "
        f'null. Retry with: {{"file_path":"{path}","offset":null,"limit":null,"pages":null}}'
    )
    nulls = await Session(ws).text(path, offset=None, limit=None, pages=None)
    assert nulls == NOTEBOOK_TEXT
