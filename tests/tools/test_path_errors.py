"""A path inside the workspace that cannot be resolved gets its real error, not "outside".

A name longer than the file system allows (ENAMETOOLONG), a symlink loop (ELOOP) or a
directory the user may not search (EACCES) used to make the workspace check fail, which every
tool reported as "File path must be within one of the workspace directories". The check now
only says "outside" for what really resolves outside; everything else reaches the tool's own
file-system error, worded as Node words it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from qwen_tools import ApprovalMode, Config, ToolCallRequest, ToolRegistry, run_tool_call
from qwen_tools.config.workspace import WorkspaceContext
from qwen_tools.execution.call_types import CompletedToolCall
from qwen_tools.tools.edit.tool import EditTool
from qwen_tools.tools.glob.tool import GlobTool
from qwen_tools.tools.grep.tool import GrepTool
from qwen_tools.tools.list_directory import ListDirectoryTool
from qwen_tools.tools.read_file import ReadFileTool
from qwen_tools.tools.read_many_files.tool import ReadManyFilesTool
from qwen_tools.tools.write_file.tool import WriteFileTool

LONG = "n" * 300
TOO_LONG = "ENAMETOOLONG: name too long"
LOOP = "ELOOP: too many symbolic links encountered"


async def _call(root: Path, name: str, args: dict[str, Any]) -> CompletedToolCall:
    config = Config(root, approval_mode=ApprovalMode.YOLO)
    tools = [
        ReadFileTool(config),
        ReadManyFilesTool(config),
        ListDirectoryTool(config),
        GlobTool(config),
        GrepTool(config),
        WriteFileTool(config),
        EditTool(config),
    ]
    return await run_tool_call(ToolRegistry(tools), config, ToolCallRequest(name, args))


def _not_outside(done: CompletedToolCall, root: Path) -> str:
    text = done.response_text
    assert "must be within one of the workspace directories" not in text, text
    return text


@pytest.fixture
def loop(ws: Path) -> Path:
    (ws / "loop-a").symlink_to(ws / "loop-b")
    (ws / "loop-b").symlink_to(ws / "loop-a")
    return ws / "loop-a"


def test_workspace_judges_unresolvable_inside_names_inside(ws: Path, loop: Path) -> None:
    context = WorkspaceContext(ws)
    assert context.is_path_within_workspace(ws / LONG)
    assert context.is_path_within_workspace(ws / LONG / "x.txt")
    assert context.is_path_within_workspace(loop)
    assert context.is_path_within_workspace(loop / "x.txt")
    assert context.is_path_readable(ws / LONG)


def test_what_fails_outside_stays_outside(ws: Path, outside: Path) -> None:
    (ws / "far").symlink_to(outside / LONG)
    context = WorkspaceContext(ws)
    assert not context.is_path_within_workspace(ws / "far")
    assert not context.is_path_within_workspace(ws / "far" / "x.txt")
    assert not context.is_path_within_workspace(ws / LONG / ".." / ".." / "outside")


def test_a_symlink_chain_too_deep_to_follow_is_an_answer(ws: Path) -> None:
    for index in range(3000):
        (ws / f"c{index}").symlink_to(ws / f"c{index + 1}")
    context = WorkspaceContext(ws)
    assert not context.is_path_within_workspace(ws / "c0")


async def test_read_file(ws: Path, loop: Path) -> None:
    done = await _call(ws, "read_file", {"file_path": str(ws / LONG)})
    assert _not_outside(done, ws) == f"Error reading file {LONG}: {TOO_LONG}, stat '{ws / LONG}'"
    looped = await _call(ws, "read_file", {"file_path": str(loop)})
    assert _not_outside(looped, ws) == f"Error reading file loop-a: {LOOP}, stat '{loop}'"


async def test_list_directory(ws: Path, loop: Path) -> None:
    done = await _call(ws, "list_directory", {"path": str(ws / LONG)})
    assert _not_outside(done, ws) == f"Error listing directory: {TOO_LONG}, stat '{ws / LONG}'"
    looped = await _call(ws, "list_directory", {"path": str(loop)})
    assert _not_outside(looped, ws) == f"Error listing directory: {LOOP}, stat '{loop}'"


@pytest.mark.parametrize("tool", ["glob", "grep_search"])
async def test_search_path(ws: Path, loop: Path, tool: str) -> None:
    done = await _call(ws, tool, {"pattern": "x", "path": LONG})
    assert _not_outside(done, ws) == f"{TOO_LONG}, stat '{ws / LONG}'"
    looped = await _call(ws, tool, {"pattern": "x", "path": "loop-a"})
    assert _not_outside(looped, ws) == f"{LOOP}, stat '{loop}'"


async def test_glob_and_read_many_files_patterns(ws: Path) -> None:
    found = await _call(ws, "glob", {"pattern": f"{LONG}/*"})
    assert _not_outside(found, ws).startswith("No files found")
    many = await _call(ws, "read_many_files", {"paths": [LONG, f"{LONG}/*"]})
    assert (
        _not_outside(many, ws) == "No files matching the criteria were found or all were skipped."
    )


async def test_write_file_and_edit(ws: Path) -> None:
    target = str(ws / LONG)
    written = await _call(ws, "write_file", {"file_path": target, "content": "x"})
    assert TOO_LONG.split(":")[0] in _not_outside(written, ws)
    edited = await _call(ws, "edit", {"file_path": target, "old_string": "", "new_string": "x"})
    assert TOO_LONG.split(":")[0] in _not_outside(edited, ws)


_UNSEARCHABLE_SCRIPT = """
import asyncio, sys
from pathlib import Path
sys.path[:0] = [sys.argv[2]]
import test_path_errors as t
ws = Path(sys.argv[1])
locked = ws / "locked"
for name, args in (("read_file", {"file_path": str(locked / "f.txt")}),
                   ("list_directory", {"path": str(locked)})):
    done = asyncio.run(t._call(ws, name, args))
    print(t._not_outside(done, ws).replace("\\n", " "))
"""


def test_unsearchable_directory(ws: Path) -> None:
    """A directory we may not search gets EACCES, not "outside".

    Root searches every directory, so as root the calls run in a child without the two
    capabilities that let it (``setpriv`` drops ``dac_override`` and ``dac_read_search``).
    """
    locked = ws / "locked"
    locked.mkdir()
    (locked / "f.txt").write_text("x")
    locked.chmod(0)
    prefix: list[str] = []
    if os.geteuid() == 0:
        prefix = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--"]
    try:
        done = subprocess.run(
            [
                *prefix,
                sys.executable,
                "-c",
                _UNSEARCHABLE_SCRIPT,
                str(ws),
                str(Path(__file__).parent),
            ],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    finally:
        locked.chmod(0o755)
    assert done.returncode == 0, done.stderr
    read, listed = done.stdout.splitlines()[-2:]
    assert "EACCES: permission denied" in read
    assert "EACCES: permission denied" in listed
