"""``glob`` against real directory trees, with the reference's exact strings."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from qwen_tools.config.config import Config
from qwen_tools.config.tool_settings import ToolSettings
from qwen_tools.contract.abort import AbortController
from qwen_tools.contract.errors import ToolErrorType
from qwen_tools.contract.function_response import function_response_for_result, response_text
from qwen_tools.contract.kinds import Kind
from qwen_tools.contract.results import ToolResult
from qwen_tools.execution.call_types import CompletedToolCall
from qwen_tools.tools import GlobTool
from support.one_call import run_call

OLD = 978307200  # 2001-01-01T00:00:00Z
HEADER = "sorted by modification time (newest first):\n---\n"


def make_tool(root: Path, **settings: Any) -> GlobTool:
    return GlobTool(Config(root, settings=ToolSettings(**settings)))


async def glob(root: Path, params: dict[str, Any], **settings: Any) -> ToolResult:
    """The tool's result for valid params (invalid ones raise ``ToolParamsError``)."""
    return await make_tool(root, **settings).build_and_execute(params)


async def answer(root: Path, params: dict[str, Any]) -> CompletedToolCall:
    """The call as the model makes it: invalid params answered too."""
    return await run_call(make_tool(root), params)


def model_text(result: ToolResult) -> str:
    return response_text(function_response_for_result("glob", "c1", result))


def touch(root: Path, name: str, age_hours: float | None = None) -> Path:
    """Create ``name`` (old by default; ``age_hours`` sets a recent-ish mtime)."""
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(name)
    stamp = OLD if age_hours is None else time.time() - age_hours * 3600
    os.utime(path, (stamp, stamp))
    return path


def found(pattern: str, paths: list[Path], where: str = "in the workspace directory") -> str:
    listing = "\n".join(str(p) for p in paths)
    return f'Found {len(paths)} file(s) matching "{pattern}" {where}, {HEADER}{listing}'


@pytest.fixture
def sample(git_ws: Path) -> Path:
    """The qwen-diff layout after the sample's edits (helpers.py and dup.txt are recent)."""
    (git_ws / ".gitignore").write_text("ignored.txt\nignored_dir/\n")
    os.utime(git_ws / ".gitignore", (OLD, OLD))
    for name in ("README.md", "notes.txt", "ignored.txt", "ignored_dir/out.txt", "src/app.py"):
        touch(git_ws, name)
    touch(git_ws, "src/util/helpers.py", age_hours=0.5)
    touch(git_ws, "new/created.txt", age_hours=0.4)
    touch(git_ws, "data/dup.txt", age_hours=0.1)
    touch(git_ws, "sub/.hidden/h.txt")
    return git_ws


def test_identity_and_schema(ws: Path) -> None:
    tool = make_tool(ws)
    assert (tool.name, tool.display_name, tool.kind) == ("glob", "Glob", Kind.SEARCH)
    assert GlobTool.Name == "glob"
    schema = tool.schema.parameters_json_schema
    assert schema["required"] == ["pattern"]
    assert {k: v["type"] for k, v in schema["properties"].items()} == {
        "pattern": "string",
        "path": "string",
    }


async def test_recent_files_first(sample: Path) -> None:
    result = await glob(sample, {"pattern": "**/*.py"})
    expected = found("**/*.py", [sample / "src/util/helpers.py", sample / "src/app.py"])
    assert result.llm_content == expected
    assert result.return_display == "Found 2 matching file(s)"
    assert result.result_file_paths == [f"{sample}/src/util/helpers.py", f"{sample}/src/app.py"]


async def test_no_recursion_without_globstar(sample: Path) -> None:
    result = await glob(sample, {"pattern": "*.txt"})
    assert result.llm_content == found("*.txt", [sample / "notes.txt"])


async def test_recursive_newest_first_and_git_ignored_skipped(sample: Path) -> None:
    result = await glob(sample, {"pattern": "**/*.txt"})
    paths = ["data/dup.txt", "new/created.txt", "notes.txt", "sub/.hidden/h.txt"]
    assert result.llm_content == found("**/*.txt", [sample / p for p in paths])


async def test_case_insensitive(ws: Path) -> None:
    for name in ("a.txt", "B.TXT", "c.Txt", "d.md"):
        touch(ws, name)
    result = await glob(ws, {"pattern": "*.TXT"})
    assert result.llm_content == found("*.TXT", [ws / "a.txt", ws / "B.TXT", ws / "c.Txt"])
    touch(ws, "src/app.py")
    result = await glob(ws, {"pattern": "SRC/*.PY"})
    assert result.llm_content == found("SRC/*.PY", [ws / "src/app.py"])


async def test_directories_are_never_returned(sample: Path) -> None:
    result = await glob(sample, {"pattern": "src/**"})
    expected = found("src/**", [sample / "src/util/helpers.py", sample / "src/app.py"])
    assert result.llm_content == expected
    no_match = 'No files found matching pattern "src" in the workspace directory'
    assert model_text(await glob(sample, {"pattern": "src"})) == no_match


async def test_dot_directories_are_searched(sample: Path) -> None:
    result = await glob(sample, {"pattern": "**/h.txt"})
    assert result.llm_content == found("**/h.txt", [sample / "sub/.hidden/h.txt"])


async def test_git_ignored_directory_is_pruned(sample: Path) -> None:
    for pattern in ("ignored_dir/*", "**/out.txt", "**/HEAD"):
        result = await glob(sample, {"pattern": pattern})
        expected = f'No files found matching pattern "{pattern}" in the workspace directory'
        assert model_text(result) == expected


async def test_no_match(sample: Path) -> None:
    result = await glob(sample, {"pattern": "*.zzz"})
    assert (
        result.llm_content == 'No files found matching pattern "*.zzz" in the workspace directory'
    )
    assert result.return_display == "No files found"
    assert result.error is None


@pytest.mark.parametrize("pattern", ["", "   "])
async def test_empty_pattern(ws: Path, pattern: str) -> None:
    done = await answer(ws, {"pattern": pattern})
    assert done.response_text == "The 'pattern' parameter cannot be empty."
    assert done.error_type is ToolErrorType.INVALID_TOOL_PARAMS


async def test_path_must_exist_and_be_a_directory(ws: Path) -> None:
    done = await answer(ws, {"pattern": "*", "path": "nonexistent"})
    assert done.response_text == f"Path does not exist: {ws}/nonexistent"
    touch(ws, "crlf.txt")
    done = await answer(ws, {"pattern": "*.txt", "path": f"{ws}/crlf.txt"})
    assert done.response_text == f"Path is not a directory: {ws}/crlf.txt"


async def test_path_type_is_checked(ws: Path) -> None:
    done = await answer(ws, {"pattern": "*.ts", "path": [1]})
    assert done.response_text == "params/path must be string"
    coerced = await answer(ws, {"pattern": "*.ts", "path": 123})  # numbers become strings
    assert coerced.response_text == f"Path does not exist: {ws}/123"


async def test_search_within_path(ws: Path) -> None:
    touch(ws, "sub dir/f.txt")
    touch(ws, "top.txt")
    result = await glob(ws, {"pattern": "*.txt", "path": "sub\\ dir"})
    expected = found("*.txt", [ws / "sub dir/f.txt"], f"within {ws}/sub dir")
    assert result.llm_content == expected
    result = await glob(ws, {"pattern": "*.txt", "path": f"{ws}/sub dir/../sub dir"})
    where = f"within {ws}/sub dir/../sub dir"
    assert result.llm_content == found("*.txt", [ws / "sub dir/f.txt"], where)
    none = await glob(ws, {"pattern": "*.md", "path": "sub dir"})
    assert model_text(none) == f'No files found matching pattern "*.md" within {ws}/sub dir'


async def test_gitignore_applies_inside_path(git_ws: Path) -> None:
    (git_ws / ".gitignore").write_text("*.secret\n")
    touch(git_ws, "sub/hidden.secret")
    touch(git_ws, "sub/visible.txt")
    result = await glob(git_ws, {"pattern": "*", "path": "sub"})
    assert result.llm_content == found("*", [git_ws / "sub/visible.txt"], f"within {git_ws}/sub")


async def test_qwen_ignore_applies(ws: Path) -> None:
    (ws / ".qwenignore").write_text("build/\n*.log\n")
    touch(ws, "build/out.js")
    touch(ws, "app.log")
    touch(ws, "app.js")
    result = await glob(ws, {"pattern": "**/*.{js,log}"})
    assert result.llm_content == found("**/*.{js,log}", [ws / "app.js"])


async def test_truncation(ws: Path) -> None:
    for i in range(150):
        touch(ws, f"f{i:03}.txt")
    result = await glob(ws, {"pattern": "*.txt"})
    shown = "\n".join(f"{ws}/f{i:03}.txt" for i in range(100))
    assert result.llm_content == (
        f'Found 150 file(s) matching "*.txt" in the workspace directory, {HEADER}{shown}'
        "\n---\n[50 files truncated] ..."
    )
    assert result.return_display == "Found 150 matching file(s) (truncated)"
    assert len(result.result_file_paths) == 100


@pytest.mark.parametrize(("count", "tail"), [(101, "\n---\n[1 file truncated] ..."), (100, "")])
async def test_truncation_boundaries(ws: Path, count: int, tail: str) -> None:
    for i in range(count):
        touch(ws, f"f{i:03}.txt")
    result = await glob(ws, {"pattern": "*.txt"})
    assert isinstance(result.llm_content, str)
    assert result.llm_content.endswith(f"{ws}/f099.txt{tail}")


async def test_line_limit_setting(ws: Path) -> None:
    for i in range(5):
        touch(ws, f"f{i}.txt")
    result = await glob(ws, {"pattern": "*.txt"}, truncate_tool_output_lines=2)
    assert result.llm_content == (
        f'Found 5 file(s) matching "*.txt" in the workspace directory, {HEADER}'
        f"{ws}/f0.txt\n{ws}/f1.txt\n---\n[3 files truncated] ..."
    )


async def test_collection_cap(ws: Path) -> None:
    for i in range(1001):
        touch(ws, f"bulk/f{i:04}.log")
    result = await glob(ws, {"pattern": "bulk/*.log"})
    shown = "\n".join(f"{ws}/bulk/f{i:04}.log" for i in range(100))
    assert result.llm_content == (
        f'Found at least 1000 file(s) matching "bulk/*.log" in the workspace directory, '
        f"{HEADER}{shown}\n---\n"
        "[Results truncated after scanning 1000 matching files. Narrow the pattern or path.]"
    )
    assert result.return_display == "Found at least 1000 matching file(s) (truncated)"


async def test_exactly_a_thousand_is_not_capped(ws: Path) -> None:
    for i in range(1000):
        touch(ws, f"f{i:04}.log")
    result = await glob(ws, {"pattern": "*.log"})
    assert result.return_display == "Found 1000 matching file(s) (truncated)"
    assert isinstance(result.llm_content, str)
    assert result.llm_content.endswith("\n---\n[900 files truncated] ...")


async def test_sort_order(ws: Path) -> None:
    touch(ws, "older_zebra.txt", age_hours=26)
    touch(ws, "recent_2h.txt", age_hours=2)
    touch(ws, "older_apple.txt", age_hours=25)
    touch(ws, "recent_1h.txt", age_hours=1)
    touch(ws, "older_banana.txt", age_hours=30)
    result = await glob(ws, {"pattern": "*.txt"})
    names = ["recent_1h", "recent_2h", "older_apple", "older_banana", "older_zebra"]
    assert result.llm_content == found("*.txt", [ws / f"{n}.txt" for n in names])


async def test_old_files_in_collation_order(ws: Path) -> None:
    for name in ("Mixed.TXT", "bom.txt", "long.txt", "latin1.txt", "_c.txt", "B.txt", "a.txt"):
        touch(ws, name)
    result = await glob(ws, {"pattern": "*.txt"})
    names = ["_c.txt", "a.txt", "B.txt", "bom.txt", "latin1.txt", "long.txt", "Mixed.TXT"]
    assert result.llm_content == found("*.txt", [ws / n for n in names])


async def test_several_workspace_directories(ws: Path, outside: Path) -> None:
    touch(ws, "a.txt")
    os.utime(outside / "secret.txt", (OLD, OLD))
    tool = GlobTool(Config(ws, include_directories=[outside]))
    result = await tool.build_and_execute({"pattern": "*.txt"})
    expected = found("*.txt", [outside / "secret.txt", ws / "a.txt"])  # collation order
    assert result.llm_content == expected.replace(
        "in the workspace directory", "across 2 workspace directories"
    )
    twice = GlobTool(Config(ws, include_directories=[ws, "."]))
    result = await twice.build_and_execute({"pattern": "*.txt"})
    assert result.llm_content == found("*.txt", [ws / "a.txt"])


async def test_literal_pattern_with_glob_characters(ws: Path) -> None:
    touch(ws, "file[1].txt")
    touch(ws, "file1.txt")
    touch(ws, "app/[test]/(dashboard)/x.tsx")
    result = await glob(ws, {"pattern": "file[1].txt"})
    assert result.llm_content == found("file[1].txt", [ws / "file[1].txt"])
    result = await glob(ws, {"pattern": "app/[test]/(dashboard)/x.tsx"})
    assert result.llm_content == found(
        "app/[test]/(dashboard)/x.tsx", [ws / "app/[test]/(dashboard)/x.tsx"]
    )


async def test_braces(ws: Path) -> None:
    for name in ("README.md", "code.ts", "notes.txt", "br/a.txt", "br/{a,b}.txt"):
        touch(ws, name)
    result = await glob(ws, {"pattern": "*.{md,ts}"})
    assert result.llm_content == found("*.{md,ts}", [ws / "code.ts", ws / "README.md"])
    # A literal match escapes only ?*()[] (as node-glob does), so braces still expand.
    result = await glob(ws, {"pattern": "br/{a,b}.txt"})
    assert result.llm_content == found("br/{a,b}.txt", [ws / "br/a.txt"])


async def test_absolute_and_parent_patterns(ws: Path, outside: Path) -> None:
    touch(ws, "src/app.py")
    pattern = f"{ws}/src/*.py"
    assert (await glob(ws, {"pattern": pattern})).llm_content == found(pattern, [ws / "src/app.py"])
    relative = f"../{ws.name}/src/*.py"
    result = await glob(ws, {"pattern": relative})
    assert result.llm_content == found(relative, [ws / "src/app.py"])
    for escape in (f"{outside}/*.txt", "../outside/*.txt", "/**/secret.txt"):
        result = await glob(ws, {"pattern": escape})
        expected = f'No files found matching pattern "{escape}" in the workspace directory'
        assert model_text(result) == expected


async def test_symlinks(ws: Path, outside: Path) -> None:
    touch(ws, "real/r.tsx")
    touch(ws, "real/deep/d.tsx")
    touch(ws, "src/app.py")
    touch(ws, "notes.txt")
    for link, target in (("toplink", "real"), ("src/linkdir", "../real"), ("ext", str(outside))):
        os.symlink(target, ws / link)
        os.utime(ws / link, (OLD, OLD), follow_symlinks=False)
    os.symlink("notes.txt", ws / "notelink.txt")
    os.symlink("missing", ws / "dangling")
    for link in ("notelink.txt", "dangling"):
        os.utime(ws / link, (OLD, OLD), follow_symlinks=False)
    cases = {
        # ``**`` at the start never enters a symlinked directory.
        "**/*.tsx": ["real/deep/d.tsx", "real/r.tsx"],
        # Later ``**`` enters one (and stops there), as node-glob does.
        "src/**/*.tsx": ["src/linkdir/r.tsx"],
        # A name segment enters it; the link itself counts as a file.
        "toplink/**": ["toplink", "toplink/deep/d.tsx", "toplink/r.tsx"],
        "toplink/*.tsx": ["toplink/r.tsx"],
        "src/**": ["src/app.py", "src/linkdir"],
        "*": ["dangling", "ext", "notelink.txt", "notes.txt", "toplink"],
        "notes.txt/**": [],
        # A link leaving the workspace is never entered.
        "ext/*.txt": [],
    }
    for pattern, expected in cases.items():
        result = await glob(ws, {"pattern": pattern})
        if expected:
            assert result.llm_content == found(pattern, [ws / p for p in expected]), pattern
        else:
            assert result.return_display == "No files found", pattern


async def test_outside_path_is_refused(ws: Path, outside: Path) -> None:
    config = Config(ws)
    done = await run_call(GlobTool(config), {"pattern": "*", "path": str(outside)})
    assert done.response_text == config.workspace_error()
    os.symlink(outside, ws / "escape")
    done = await run_call(GlobTool(config), {"pattern": "*", "path": "escape"})
    assert done.response_text == config.workspace_error()


async def test_abort(ws: Path) -> None:
    touch(ws, "a/b.txt")
    controller = AbortController()
    controller.abort("stop")
    invocation = make_tool(ws).build({"pattern": "**/*.txt"})
    result = await invocation.execute(controller.signal)
    assert model_text(result) == "Error during glob search operation: This operation was aborted"
    assert result.error is not None
    assert result.error.type is ToolErrorType.GLOB_EXECUTION_ERROR


def test_description(ws: Path) -> None:
    (ws / "src").mkdir()
    tool = make_tool(ws)
    assert tool.build({"pattern": "**/*.py"}).get_description() == "'**/*.py'"
    described = tool.build({"pattern": "*.py", "path": str(ws / "src")}).get_description()
    assert described == "'*.py' in src"


async def test_bare_globstar_lists_every_file(ws: Path) -> None:
    touch(ws, "a.txt", 48)
    touch(ws, "sub/b.txt", 48)
    text = model_text(await glob(ws, {"pattern": "**"}))
    assert text.splitlines()[0].startswith(
        'Found 2 file(s) matching "**" in the workspace directory'
    )
    assert text.splitlines()[2:] == [str(ws / "a.txt"), str(ws / "sub" / "b.txt")]
