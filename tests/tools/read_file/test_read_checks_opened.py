"""The read tools refuse what they *open* outside, even when every check on a name says inside.

A racing attacker wins when a name is inside at the moment it is checked and outside at the
moment it is opened. These tests make the attacker win every time, deterministically: the
workspace's name checks are made to answer "inside" for everything (as a lost race would), and
the names really point outside. Only the check on the opened descriptor stands between the
tools and the secret, and it must refuse with the reference's outside-the-workspace text.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from qwen_tools import Config, ToolCallRequest, ToolRegistry, run_tool_call
from qwen_tools.contract.errors import ToolErrorType
from qwen_tools.execution.call_types import CompletedToolCall
from qwen_tools.tools.glob.tool import GlobTool
from qwen_tools.tools.list_directory import ListDirectoryTool
from qwen_tools.tools.read_file import ReadFileTool
from qwen_tools.tools.read_many_files.tool import ReadManyFilesTool

SECRET = "top secret"


@pytest.fixture
def fooled(ws: Path, monkeypatch: pytest.MonkeyPatch) -> Config:
    """A session whose name checks always say "inside" (the attacker won the race)."""
    config = Config(ws)
    workspace = config.workspace
    monkeypatch.setattr(workspace, "is_path_within_workspace", lambda _path: True)
    monkeypatch.setattr(workspace, "is_path_readable", lambda _path: True)
    return config


async def _call(config: Config, name: str, args: dict[str, Any]) -> CompletedToolCall:
    registry = ToolRegistry(
        [
            ReadFileTool(config),
            ReadManyFilesTool(config),
            ListDirectoryTool(config),
            GlobTool(config),
        ]
    )
    return await run_tool_call(registry, config, ToolCallRequest(name, args))


def _everything(done: CompletedToolCall) -> str:
    result = done.result
    seen = [done.response_text]
    if result is not None:
        seen += [repr(result.llm_content), repr(result.return_display)]
    return "\n".join(seen)


def _refused(done: CompletedToolCall, config: Config) -> None:
    assert done.status == "error"
    assert done.error_type == ToolErrorType.PATH_NOT_IN_WORKSPACE
    assert done.response_text == config.workspace_error()


@pytest.mark.parametrize("extra", [{}, {"offset": 0, "limit": 3}], ids=["full", "ranged"])
async def test_read_file(fooled: Config, ws: Path, outside: Path, extra: dict[str, Any]) -> None:
    (ws / "x.txt").symlink_to(outside / "secret.txt")
    done = await _call(fooled, "read_file", {"file_path": str(ws / "x.txt"), **extra})
    _refused(done, fooled)


@pytest.mark.parametrize("name", ["x.png", "x.pdf", "x.ipynb", "x.svg", "x.dat"])
async def test_read_file_every_kind(fooled: Config, ws: Path, outside: Path, name: str) -> None:
    (ws / name).symlink_to(outside / "secret.txt")
    done = await _call(fooled, "read_file", {"file_path": str(ws / name)})
    _refused(done, fooled)


async def test_read_file_through_a_directory_symlink(
    fooled: Config, ws: Path, outside: Path
) -> None:
    (ws / "d").symlink_to(outside, target_is_directory=True)
    done = await _call(fooled, "read_file", {"file_path": str(ws / "d" / "secret.txt")})
    _refused(done, fooled)


async def test_an_earlier_read_does_not_vouch_for_the_same_file_moved_out(
    fooled: Config, ws: Path, outside: Path
) -> None:
    target = ws / "x.txt"
    target.write_text("was inside\n")
    first = await _call(fooled, "read_file", {"file_path": str(target)})
    assert first.response_text == "was inside\n"
    moved = outside / "moved.txt"
    os.rename(target, moved)  # same inode, mtime and size: the read cache's "unchanged" key
    target.symlink_to(moved)
    again = await _call(fooled, "read_file", {"file_path": str(target)})
    _refused(again, fooled)


async def test_read_many_files(fooled: Config, ws: Path, outside: Path) -> None:
    (ws / "x.txt").symlink_to(outside / "secret.txt")
    (ws / "d").symlink_to(outside, target_is_directory=True)
    for paths in (["x.txt"], ["*.txt"], ["d/*"], ["d/secret.txt"], ["**/*.txt"]):
        done = await _call(fooled, "read_many_files", {"paths": paths})
        assert SECRET not in _everything(done), paths
        assert "secret.txt" not in _everything(done).replace("x.txt", ""), paths


async def test_list_directory(fooled: Config, ws: Path, outside: Path) -> None:
    (ws / "d").symlink_to(outside, target_is_directory=True)
    done = await _call(fooled, "list_directory", {"path": str(ws / "d")})
    _refused(done, fooled)
    deeper = await _call(fooled, "list_directory", {"path": str(ws / "d" / ".")})
    _refused(deeper, fooled)


async def test_glob_search_directory(fooled: Config, ws: Path, outside: Path) -> None:
    (ws / "d").symlink_to(outside, target_is_directory=True)
    done = await _call(fooled, "glob", {"pattern": "*.txt", "path": str(ws / "d")})
    _refused(done, fooled)


async def test_glob_does_not_enter_an_outside_link(fooled: Config, ws: Path, outside: Path) -> None:
    (ws / "d").symlink_to(outside, target_is_directory=True)
    (ws / "in.txt").write_text("inside\n")
    for pattern in ("d/*.txt", "d/**", "*/*.txt", "**/*.txt", f"{outside}/*.txt"):
        done = await _call(fooled, "glob", {"pattern": pattern})
        assert "secret.txt" not in _everything(done), pattern


async def test_read_only_roots_are_readable_and_checked_too(
    ws: Path, outside: Path, tmp_path: Path
) -> None:
    """The saved tool-output directory: the read tools read it; a link out of it is refused."""
    saved = Path(os.path.realpath(tmp_path)) / "saved"
    saved.mkdir()
    (saved / "out.txt").write_text("saved output\n")
    (saved / "link.txt").symlink_to(outside / "secret.txt")
    config = Config(ws)
    config.workspace.add_readonly_directory(saved)
    done = await _call(config, "read_file", {"file_path": str(saved / "out.txt")})
    assert done.response_text == "saved output\n"
    link = await _call(config, "read_file", {"file_path": str(saved / "link.txt")})
    assert link.response_text == config.workspace_error()
    many = await _call(config, "read_many_files", {"paths": [f"{saved}/*.txt"]})
    assert "saved output" in _everything(many)
    assert SECRET not in _everything(many)
