"""``list_directory`` against real directories, with the reference's exact strings."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from qwen_tools.config.config import Config
from qwen_tools.config.tool_settings import ToolSettings
from qwen_tools.contract.errors import ToolErrorType
from qwen_tools.contract.function_response import function_response_for_result, response_text
from qwen_tools.contract.kinds import Kind
from qwen_tools.contract.results import ToolResult
from qwen_tools.tools import ListDirectoryTool
from support.one_call import run_call


def make_tool(root: Path, **settings: Any) -> ListDirectoryTool:
    return ListDirectoryTool(Config(root, settings=ToolSettings(**settings)))


async def run(tool: ListDirectoryTool, params: dict[str, Any]) -> ToolResult:
    """The tool's result for valid params (invalid ones raise ``ToolParamsError``)."""
    return await tool.build_and_execute(params)


def model_text(result: ToolResult) -> str:
    return response_text(function_response_for_result("list_directory", "c1", result))


@pytest.fixture
def sample(git_ws: Path) -> Path:
    """The qwen-diff layout: a git repo ignoring ``ignored.txt`` and ``ignored_dir/``."""
    (git_ws / ".gitignore").write_text("ignored.txt\nignored_dir/\n")
    for name in ("README.md", "notes.txt", "binary.dat", "ignored.txt"):
        (git_ws / name).write_text("x\n")
    for name in ("data", "src", "ignored_dir"):
        (git_ws / name).mkdir()
    (git_ws / "ignored_dir" / "out.txt").write_text("x\n")
    return git_ws


def test_identity_and_schema(ws: Path) -> None:
    tool = make_tool(ws)
    assert (tool.name, tool.display_name, tool.kind) == ("list_directory", "ListFiles", Kind.SEARCH)
    assert ListDirectoryTool.Name == "list_directory"
    schema = tool.schema.parameters_json_schema
    assert schema["required"] == ["path"]
    assert schema["properties"]["ignore"]["items"] == {"type": "string"}
    options = schema["properties"]["file_filtering_options"]["properties"]
    assert {k: v["type"] for k, v in options.items()} == {
        "respect_git_ignore": "boolean",
        "respect_qwen_ignore": "boolean",
    }


async def test_git_repository_listing(sample: Path) -> None:
    result = await run(make_tool(sample), {"path": str(sample)})
    assert result.llm_content == (
        f"Listed 7 item(s) in {sample}:\n---\n[DIR] data\n[DIR] ignored_dir\n[DIR] src\n"
        ".gitignore\nbinary.dat\nnotes.txt\nREADME.md\n\n(2 git-ignored)"
    )
    assert result.return_display == "Listed 7 item(s) (2 git-ignored)"
    assert result.error is None


async def test_without_git_ignore(sample: Path) -> None:
    params = {"path": str(sample), "file_filtering_options": {"respect_git_ignore": False}}
    result = await run(make_tool(sample), params)
    assert result.llm_content == (
        f"Listed 9 item(s) in {sample}:\n---\n[DIR] .git\n[DIR] data\n[DIR] ignored_dir\n"
        "[DIR] src\n.gitignore\nbinary.dat\nignored.txt\nnotes.txt\nREADME.md"
    )
    assert result.return_display == "Listed 9 item(s)"


async def test_relative_path_is_refused(ws: Path) -> None:
    done = await run_call(make_tool(ws), {"path": "src"})
    assert done.response_text == "Path must be absolute: src"
    assert done.error_type is ToolErrorType.INVALID_TOOL_PARAMS


async def test_ignore_patterns_match_names_only(sample: Path) -> None:
    # Ignore files are applied first (and counted); ``ignore`` patterns only drop entries.
    result = await run(make_tool(sample), {"path": str(sample), "ignore": ["*.txt"]})
    assert result.llm_content == (
        f"Listed 6 item(s) in {sample}:\n---\n[DIR] data\n[DIR] ignored_dir\n[DIR] src\n"
        ".gitignore\nbinary.dat\nREADME.md\n\n(2 git-ignored)"
    )


@pytest.mark.parametrize(
    ("pattern", "hidden"),
    [
        ("?.txt", {"a.txt"}),
        ("a*", {"a.txt", "ab.txt", "a+b.txt"}),
        ("{a,b}.txt", {"{a,b}.txt"}),  # braces are literal
        ("**/a.txt", set()),  # no path syntax: basename only
        ("a+b.txt", {"a+b.txt"}),  # regex characters are literal
        ("A.TXT", set()),  # case-sensitive
    ],
)
async def test_ignore_pattern_semantics(ws: Path, pattern: str, hidden: set[str]) -> None:
    names = {"a.txt", "ab.txt", "a+b.txt", "{a,b}.txt", "zz.md"}
    for name in names:
        (ws / name).write_text("x")
    result = await run(make_tool(ws), {"path": str(ws), "ignore": [pattern]})
    assert isinstance(result.llm_content, str)
    listed = set(result.llm_content.split("---\n", 1)[1].split("\n"))
    assert listed == names - hidden


async def test_file_is_not_a_directory(sample: Path) -> None:
    target = str(sample / "notes.txt")
    result = await run(make_tool(sample), {"path": target})
    assert model_text(result) == f"Error: Path is not a directory: {target}"
    assert result.return_display == "Error: Path is not a directory."
    assert result.error is not None
    assert result.error.type is ToolErrorType.PATH_IS_NOT_A_DIRECTORY


async def test_missing_directory(ws: Path) -> None:
    target = str(ws / "nope")
    result = await run(make_tool(ws), {"path": target})
    expected = f"Error listing directory: ENOENT: no such file or directory, stat '{target}'"
    assert model_text(result) == expected
    assert result.return_display == "Error: Failed to list directory."
    assert result.error is not None
    assert result.error.type is ToolErrorType.LS_EXECUTION_ERROR


async def test_empty_directory(ws: Path) -> None:
    (ws / "emptydir").mkdir()
    result = await run(make_tool(ws), {"path": str(ws / "emptydir")})
    assert result.llm_content == f"Directory {ws}/emptydir is empty."
    assert result.return_display == "Directory is empty."


async def test_only_ignored_entries(sample: Path) -> None:
    result = await run(make_tool(sample), {"path": str(sample / "ignored_dir")})
    assert (
        result.llm_content == f"Listed 0 item(s) in {sample}/ignored_dir:\n---\n\n\n(1 git-ignored)"
    )


async def test_qwen_ignore(ws: Path) -> None:
    (ws / ".qwenignore").write_text("*.log\n")
    (ws / "app.log").write_text("x")
    (ws / "main.py").write_text("x")
    result = await run(make_tool(ws), {"path": str(ws)})
    assert result.llm_content == (
        f"Listed 2 item(s) in {ws}:\n---\n.qwenignore\nmain.py\n\n(1 qwen-ignored)"
    )
    assert result.return_display == "Listed 2 item(s) (1 qwen-ignored)"
    params = {"path": str(ws), "file_filtering_options": {"respect_qwen_ignore": False}}
    assert (await run(make_tool(ws), params)).return_display == "Listed 3 item(s)"


async def test_git_and_qwen_counts_together(sample: Path) -> None:
    (sample / ".qwenignore").write_text("README.md\n")
    result = await run(make_tool(sample), {"path": str(sample)})
    assert isinstance(result.llm_content, str)
    assert result.llm_content.endswith("\n\n(2 git-ignored, 1 qwen-ignored)")
    assert result.return_display == "Listed 7 item(s) (2 git-ignored, 1 qwen-ignored)"


async def test_truncation_by_line_limit(ws: Path) -> None:
    for i in range(10):
        (ws / f"file{i}.txt").write_text("x")
    result = await run(make_tool(ws, truncate_tool_output_lines=5), {"path": str(ws)})
    shown = "\n".join(f"file{i}.txt" for i in range(5))
    assert result.llm_content == (
        f"Listed 10 item(s) in {ws}:\n---\n{shown}\n---\n[5 items truncated] ..."
    )
    assert result.return_display == "Listed 10 item(s) (truncated)"


async def test_single_item_truncated(ws: Path) -> None:
    for i in range(3):
        (ws / f"f{i}").write_text("x")
    result = await run(make_tool(ws, truncate_tool_output_lines=2), {"path": str(ws)})
    assert (
        result.llm_content == f"Listed 3 item(s) in {ws}:\n---\nf0\nf1\n---\n[1 item truncated] ..."
    )


async def test_hundred_entry_cap(ws: Path) -> None:
    for i in range(101):
        (ws / f"f{i:03}").write_text("x")
    result = await run(make_tool(ws), {"path": str(ws)})
    assert isinstance(result.llm_content, str)
    assert result.llm_content.endswith("\nf099\n---\n[1 item truncated] ...")
    assert result.llm_content.startswith(f"Listed 101 item(s) in {ws}:\n---\nf000\n")
    unlimited = await run(make_tool(ws, truncate_tool_output_lines=0), {"path": str(ws)})
    assert unlimited.return_display == "Listed 101 item(s) (truncated)"


async def test_directories_first(ws: Path) -> None:
    for name in ("b-file.txt", "a-file.txt"):
        (ws / name).write_text("x")
    for name in ("y-dir", "x-dir"):
        (ws / name).mkdir()
    result = await run(make_tool(ws), {"path": str(ws)})
    assert result.llm_content == (
        f"Listed 4 item(s) in {ws}:\n---\n[DIR] x-dir\n[DIR] y-dir\na-file.txt\nb-file.txt"
    )


async def test_icu_collation_order(ws: Path) -> None:
    names = ["a9", "a10", "a.b", "a-b", "a_b", "A", "a", ".gitignore", "-x", "_x", "x.py"]
    names.append("x_test.py")
    for name in names:
        (ws / name).write_text("x")
    result = await run(make_tool(ws), {"path": str(ws)})
    assert result.llm_content == (
        f"Listed 12 item(s) in {ws}:\n---\n"
        "_x\n-x\n.gitignore\na\nA\na_b\na-b\na.b\na10\na9\nx_test.py\nx.py"
    )


async def test_escaped_path_is_unescaped(ws: Path) -> None:
    (ws / "sub dir").mkdir()
    (ws / "sub dir" / "f.txt").write_text("x")
    result = await run(make_tool(ws), {"path": f"  {ws}/sub\\ dir  "})
    assert result.llm_content == f"Listed 1 item(s) in {ws}/sub dir:\n---\nf.txt"


async def test_directory_only_pattern_does_not_hide_directory(git_ws: Path) -> None:
    (git_ws / ".gitignore").write_text("build/\n")
    (git_ws / "build").mkdir()
    result = await run(make_tool(git_ws), {"path": str(git_ws)})
    assert result.llm_content == (
        f"Listed 2 item(s) in {git_ws}:\n---\n[DIR] build\n.gitignore\n\n(1 git-ignored)"
    )


async def test_symlinks(ws: Path) -> None:
    (ws / "real").mkdir()
    (ws / "file.txt").write_text("x")
    os.symlink(ws / "real", ws / "dirlink")
    os.symlink(ws / "file.txt", ws / "filelink")
    os.symlink(ws / "missing", ws / "dangling")
    result = await run(make_tool(ws), {"path": str(ws)})
    assert result.llm_content == (
        f"Listed 4 item(s) in {ws}:\n---\n[DIR] dirlink\n[DIR] real\nfile.txt\nfilelink"
    )


async def test_outside_workspace_is_refused(ws: Path, outside: Path) -> None:
    config = Config(ws)
    tool = ListDirectoryTool(config)
    done = await run_call(tool, {"path": str(outside)})
    assert done.response_text == f"File path must be within one of the workspace directories: {ws}"
    assert done.response_text == config.workspace_error()


async def test_symlink_escaping_the_workspace_is_refused(ws: Path, outside: Path) -> None:
    os.symlink(outside, ws / "escape")
    config = Config(ws)
    done = await run_call(ListDirectoryTool(config), {"path": str(ws / "escape")})
    assert done.response_text == config.workspace_error()


async def test_additional_workspace_directory(ws: Path, outside: Path) -> None:
    config = Config(ws, include_directories=[outside])
    result = await run(ListDirectoryTool(config), {"path": str(outside)})
    assert result.llm_content == f"Listed 1 item(s) in {outside}:\n---\nsecret.txt"


def test_description(ws: Path) -> None:
    (ws / "src").mkdir()
    tool = make_tool(ws)
    assert tool.build({"path": str(ws / "src")}).get_description() == "src"
    assert tool.build({"path": str(ws)}).get_description() == "."
    assert tool.build({"path": str(ws / "src")}).tool_locations() == []
