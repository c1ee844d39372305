"""``grep_search``: identity, validation and output format, through both engines (ripgrep and
the Python one); :mod:`test_grep_files` covers which files are searched.

Expected texts are Qwen Code 0.24.4's (ripgrep backend), recorded with the qwen-diff harness on
the same files; the reference lists files in ripgrep's thread-dependent order, we in sorted
walk order, so multi-file expectations are written in that order.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from qwen_tools.config.config import Config
from qwen_tools.contract.abort import AbortSignal
from qwen_tools.contract.kinds import Kind
from qwen_tools.tools.grep.ripgrep import find_ripgrep
from qwen_tools.tools.grep.tool import GrepTool
from support.grep_tools import ENGINES, build_probe_tree, result_of, run, text_of, write


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def tree(git_ws: Path) -> Path:
    return build_probe_tree(git_ws)


def test_ripgrep_is_available() -> None:
    assert find_ripgrep() is not None


def test_identity_and_schema(tree: Path) -> None:
    tool = GrepTool(Config(tree))
    assert (tool.name, tool.display_name, tool.kind) == ("grep_search", "Grep", Kind.SEARCH)
    assert tool.max_output_chars == 20_000
    schema = tool.schema.parameters_json_schema
    assert list(schema["properties"]) == ["pattern", "glob", "path", "limit"]
    shapes = {
        k: {x: y for x, y in v.items() if x != "description"}
        for k, v in schema["properties"].items()
    }
    assert shapes == {
        "pattern": {"type": "string"},
        "glob": {"type": "string"},
        "path": {"type": "string"},
        "limit": {"type": "integer", "minimum": 1},
    }
    assert schema["required"] == ["pattern"]
    assert schema["type"] == "object"


def test_description(tree: Path) -> None:
    tool = GrepTool(Config(tree))
    assert tool.build({"pattern": "x"}).get_description() == "'x'"
    described = tool.build({"pattern": "x", "path": "src", "glob": "*.py"}).get_description()
    assert described == "'x' in src (filter: '*.py')"


async def test_case_insensitive(ws: Path, engine: str) -> None:
    write(ws, "greet.txt", "Hello World\n")
    assert await run(ws, {"pattern": "hello world"}, engine) == (
        f'Found 1 match for pattern "hello world" in the workspace directory:\n---\n'
        f"{ws}/greet.txt:1:Hello World"
    )


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            {"pattern": "[["},
            "Invalid regular expression pattern: [[. Error: Invalid regular expression: /[[/: "
            "Unterminated character class",
        ),
        (
            {"pattern": "(?i)x"},
            "Invalid regular expression pattern: (?i)x. Error: Invalid regular expression: "
            "/(?i)x/: Invalid group",
        ),
        ({"pattern": "x", "limit": 0}, "params/limit must be >= 1"),
        ({"pattern": "x", "limit": 1.5}, "params/limit must be integer"),
        ({"pattern": "x", "path": "nope"}, "Path does not exist: {ws}/nope"),
        ({"glob": "*.py"}, "params must have required property 'pattern'"),
    ],
)
async def test_validation_messages(
    tree: Path, engine: str, args: dict[str, Any], expected: str
) -> None:
    assert await run(tree, args, engine) == expected.replace("{ws}", str(tree))


async def test_outside_workspace_is_refused(tree: Path, outside: Path, engine: str) -> None:
    config = Config(tree)
    for path in (str(outside), "../outside"):
        assert await run(tree, {"pattern": "x", "path": path}, engine, config) == (
            config.workspace_error()
        )


async def test_line_limit(tree: Path, engine: str) -> None:
    ws = str(tree)
    result = await result_of(tree, {"pattern": "TODO", "limit": 2, "glob": "many.txt"}, engine)
    assert text_of(result) == (
        'Found 12 matches for pattern "TODO" in the workspace directory (filter: "many.txt"):\n'
        f"---\n{ws}/many.txt:1:TODO 0\n{ws}/many.txt:2:TODO 1\n---\n[10 lines truncated] ..."
    )
    assert result.return_display == "Found 12 matches (truncated)"
    assert result.result_file_paths == [f"{ws}/many.txt"]
    one = await run(tree, {"pattern": "a = 1", "path": "dup.py", "limit": 1}, engine)
    assert one.endswith(f"{ws}/dup.py:1:a = 1\n---\n[1 line truncated] ...")
    coerced = await run(tree, {"pattern": "TODO", "limit": "11", "glob": "many.txt"}, engine)
    assert coerced.endswith("---\n[1 line truncated] ...")
    by_setting = await run(
        tree, {"pattern": "TODO", "glob": "many.txt"}, engine, truncate_tool_output_lines=3
    )
    assert by_setting.endswith(f"{ws}/many.txt:3:TODO 2\n---\n[9 lines truncated] ...")


async def test_five_matches_limit_two(ws: Path, engine: str) -> None:
    write(ws, "five.txt", "".join(f"hit {i}\n" for i in range(5)))
    result = await result_of(ws, {"pattern": "hit", "limit": 2}, engine)
    assert text_of(result).endswith(f"{ws}/five.txt:2:hit 1\n---\n[3 lines truncated] ...")
    assert result.return_display == "Found 5 matches (truncated)"


async def test_a_grep_match_lets_edit_proceed(tree: Path, engine: str) -> None:
    from qwen_tools.tools.edit.tool import EditTool

    config = Config(tree)
    await run(tree, {"pattern": "a = 1", "path": "dup.py"}, engine, config)
    edit = EditTool(config).build(
        {"file_path": str(tree / "dup.py"), "old_string": "b = 2", "new_string": "b = 3"}
    )
    result = await edit.execute(AbortSignal())
    assert result.error is None, result.llm_content
    assert (tree / "dup.py").read_text() == "a = 1\nb = 3\na = 1\n"


async def test_character_budget(tree: Path, engine: str) -> None:
    ws = str(tree)
    first = f"{ws}/many.txt:1:TODO 0"
    budget = len(first) + 1 + 5
    result = await result_of(
        tree, {"pattern": "TODO", "glob": "many.txt"}, engine, truncate_tool_output_threshold=budget
    )
    second = f"{ws}/many.txt:2:TODO 1"
    assert text_of(result) == (
        'Found 12 matches for pattern "TODO" in the workspace directory (filter: "many.txt"):\n'
        f"---\n{first}\n{second[:10]}...\n---\n[11 lines truncated] ..."
    )
    assert result.return_display == "Found 12 matches (truncated)"
    tiny = await result_of(
        tree, {"pattern": "TODO", "glob": "long.txt"}, engine, truncate_tool_output_threshold=30
    )
    line = f"{ws}/long.txt:1:TODO {'x' * 300}"
    assert text_of(tiny).endswith(f"---\n{line[:30]}...\n---\n[1 line truncated] ...")
    assert tiny.result_file_paths == [f"{ws}/long.txt"]
    unlimited = await run(
        tree, {"pattern": "TODO", "glob": "long.txt"}, engine, truncate_tool_output_threshold=0
    )
    assert unlimited.endswith(line)


async def test_line_texts(ws: Path, engine: str) -> None:
    write(ws, "mixed.txt", b"a needle\r\nb needle\rx\nbad \xff needle\nlast needle")
    assert await run(ws, {"pattern": "needle"}, engine) == (
        'Found 4 matches for pattern "needle" in the workspace directory:\n---\n'
        f"{ws}/mixed.txt:1:a needle\n{ws}/mixed.txt:2:b needle\rx\n{ws}/mixed.txt:3:\n"
        f"{ws}/mixed.txt:4:last needle"
    )


async def test_order_is_the_sorted_walk(ws: Path, engine: str) -> None:
    for name in ("b.txt", "a.txt", "a/z.txt", "a-b/y.txt", "B/x.txt"):
        write(ws, name, "hit\nhit\n")
    text = await run(ws, {"pattern": "hit", "limit": 100}, engine)
    order = [line.rsplit(":", 2)[0].removeprefix(f"{ws}/") for line in text.split("\n")[2:]]
    assert order[::2] == ["B/x.txt", "a/z.txt", "a-b/y.txt", "a.txt", "b.txt"]  # rg --sort path


async def test_matches_count_as_partial_reads(tree: Path, engine: str) -> None:
    write(tree, "nb.ipynb", '{"cells": ["TODO"]}\n')
    write(tree, "unseen.txt", "nothing here\n")
    config = Config(tree)
    cache = config.session.read_cache
    await run(tree, {"pattern": "TODO", "glob": "*.{py,ipynb}"}, engine, config)
    assert cache.check_prior_read(str(tree / "src/a.py"), "edit") is None
    not_text = cache.check_prior_read(str(tree / "nb.ipynb"), "edit")
    assert not_text is not None
    assert "notebook payload" in not_text.message
    assert cache.check_prior_read(str(tree / "unseen.txt"), "edit") is not None
    assert not cache.is_unchanged_since_full_read(str(tree / "src/a.py"))


async def test_displays(tree: Path, engine: str) -> None:
    found = await result_of(tree, {"pattern": "a = 1", "path": "dup.py"}, engine)
    assert (found.return_display, found.error) == ("Found 2 matches", None)
    none = await result_of(tree, {"pattern": "zzzz"}, engine)
    assert (none.return_display, none.error) == ("No matches found", None)
