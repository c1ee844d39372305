"""The read tools check what they opened, not a name: attacks with a name swapped under them.

A :class:`~support.swapper.Swapper` thread keeps replacing a name in the workspace, atomically,
by an inside file (or directory) and by a symlink to a secret outside; hundreds of calls of each
tool run through the real call pipeline meanwhile. No call may ever show the secret's content
(files) or the outside directory's entries (listings). Counts are bounded; nothing is timed.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from qwen_tools import Config, ToolCallRequest, ToolRegistry, run_tool_call
from qwen_tools.execution.call_types import CompletedToolCall
from qwen_tools.tools.glob.tool import GlobTool
from qwen_tools.tools.list_directory import ListDirectoryTool
from qwen_tools.tools.read_file import ReadFileTool
from qwen_tools.tools.read_many_files.tool import ReadManyFilesTool
from support.swapper import Swapper

TRIES = 400
MIN_SWAPS = 40
SECRET = "top secret"
SECRET_NAME = "secret.txt"


def _registry(config: Config) -> ToolRegistry:
    return ToolRegistry(
        [
            ReadFileTool(config),
            ReadManyFilesTool(config),
            ListDirectoryTool(config),
            GlobTool(config),
        ]
    )


async def _call(registry: ToolRegistry, config: Config, name: str, args: dict[str, Any]) -> Any:
    return await run_tool_call(registry, config, ToolCallRequest(name, dict(args)))


def _everything(done: CompletedToolCall) -> str:
    """All the model and the user could see of a call."""
    result = done.result
    seen = [done.response_text, repr(done.response.response)]
    if result is not None:
        seen += [repr(result.llm_content), repr(result.return_display)]
    return "\n".join(seen)


async def _race(
    name: Path,
    target: Path,
    tool: str,
    args: list[dict[str, Any]],
    leaked: str,
    *,
    directory: bool = False,
) -> tuple[int, int]:
    """Call ``tool`` (cycling through ``args``) while ``name`` is swapped; ``(leaks, clean)``."""
    config = Config(name.parent)
    registry = _registry(config)
    leaks = clean = tries = 0
    with Swapper(name, target, directory=directory) as swapper:
        while tries < TRIES or swapper.swaps < MIN_SWAPS:
            done = await _call(registry, config, tool, args[tries % len(args)])
            tries += 1
            if leaked in _everything(done):
                leaks += 1
            elif "inside" in _everything(done):
                clean += 1
    return leaks, clean


async def test_read_file_never_reads_through_a_swapped_name(ws: Path, outside: Path) -> None:
    target = ws / "x.txt"
    args: list[dict[str, Any]] = [
        {"file_path": str(target)},
        {"file_path": str(target), "offset": 0, "limit": 5},
    ]
    leaks, clean = await _race(target, outside / SECRET_NAME, "read_file", args, SECRET)
    assert leaks == 0
    assert clean > 0  # the inside file was read while the race went on


async def test_read_many_files_never_reads_through_a_swapped_name(ws: Path, outside: Path) -> None:
    target = ws / "x.txt"
    args = [{"paths": ["x.txt"]}, {"paths": ["*.txt"]}]
    leaks, clean = await _race(target, outside / SECRET_NAME, "read_many_files", args, SECRET)
    assert leaks == 0
    assert clean > 0


async def test_read_many_files_never_walks_a_swapped_directory(ws: Path, outside: Path) -> None:
    args = [{"paths": ["d/*"]}, {"paths": ["d/**"]}, {"paths": ["**/*.txt"]}]
    leaks, clean = await _race(
        ws / "d", outside, "read_many_files", args, SECRET_NAME, directory=True
    )
    assert leaks == 0
    assert clean > 0


async def test_list_directory_never_lists_a_swapped_directory(ws: Path, outside: Path) -> None:
    args = [{"path": str(ws / "d")}]
    leaks, clean = await _race(
        ws / "d", outside, "list_directory", args, SECRET_NAME, directory=True
    )
    assert leaks == 0
    assert clean > 0


async def test_glob_never_walks_a_swapped_directory(ws: Path, outside: Path) -> None:
    args = [
        {"pattern": "**/*.txt"},
        {"pattern": "*.txt", "path": str(ws / "d")},
        {"pattern": "d/*.txt"},
    ]
    leaks, clean = await _race(ws / "d", outside, "glob", args, SECRET_NAME, directory=True)
    assert leaks == 0
    assert clean > 0


async def test_glob_never_walks_a_swapped_inner_directory(ws: Path, outside: Path) -> None:
    """The swapped name is below the search directory: a walk must not be led out mid-way."""
    (ws / "a").mkdir()
    args = [{"pattern": "**/*.txt"}, {"pattern": "a/**"}, {"pattern": "**/d/*"}]
    leaks, clean = await _race(ws / "a" / "d", outside, "glob", args, SECRET_NAME, directory=True)
    assert leaks == 0
    assert clean > 0


# -- one long session -----------------------------------------------------------------------


async def test_long_session_refuses_a_file_replaced_by_an_outside_symlink(
    ws: Path, outside: Path
) -> None:
    config = Config(ws)
    registry = _registry(config)
    target = ws / "x.txt"
    target.write_text("inside words\n")
    first = await _call(registry, config, "read_file", {"file_path": str(target)})
    assert first.response_text == "inside words\n"
    target.unlink()
    target.symlink_to(outside / SECRET_NAME)
    for args in ({"file_path": str(target)}, {"file_path": str(target), "offset": 0}):
        again = await _call(registry, config, "read_file", args)
        assert again.status == "error"
        assert again.response_text == config.workspace_error()
    many = await _call(registry, config, "read_many_files", {"paths": ["x.txt"]})
    assert SECRET not in _everything(many)


async def test_long_session_earlier_read_does_not_vouch_for_a_moved_file(
    ws: Path, outside: Path
) -> None:
    """The very file read before, moved outside and linked back: no read, no "unchanged" note."""
    config = Config(ws)
    registry = _registry(config)
    target = ws / "x.txt"
    target.write_text("was inside\n")
    first = await _call(registry, config, "read_file", {"file_path": str(target)})
    assert first.response_text == "was inside\n"
    moved = outside / "moved.txt"
    os.rename(target, moved)  # same inode, same mtime and size as when it was read
    target.symlink_to(moved)
    again = await _call(registry, config, "read_file", {"file_path": str(target)})
    assert again.response_text == config.workspace_error()
