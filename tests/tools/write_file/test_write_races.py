"""write_file, edit and save_memory against an adversary that swaps names under them.

Every call goes through the real pipeline (validation, confirmation, execution). A racing
thread swaps a file (or a directory) between an inside object and a symlink to the outside;
after hundreds of calls the outside tree must be byte-for-byte, inode-for-inode what it was
(no write, no temp file, no directory), and no reply may carry outside content. The prior-read
check is turned off for the races (as ``fileReadCacheDisabled`` does), so that nothing but the
write path itself stands between the model and the outside.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from qwen_tools import (
    CompletedToolCall,
    Config,
    ToolCallConfirmationDetails,
    ToolCallRequest,
    ToolConfirmationOutcome,
    ToolConfirmationPayload,
    ToolErrorType,
    ToolRegistry,
    run_tool_call,
)
from qwen_tools.tools.save_memory.tool import SaveMemoryTool
from support.file_tools import call, read_first, yolo
from support.write_race import snapshot, swapper

RACE_TRIES = 1000
MARKER = "SECRET-CONTENT"


def _raced(ws: Path) -> Config:
    config = yolo(ws)
    config.session.read_cache.enabled = False
    return config


def _bait(outside: Path) -> Path:
    """An outside file that an edit meant for the inside file would also match."""
    target = outside / "target.txt"
    target.write_text(f"inside needle\n{MARKER} line\n")
    return target


def _allowed(done: CompletedToolCall, config: Config, success_prefix: str, *misses: str) -> None:
    """Written inside, refused as outside, or (edit) an ordinary miss; never outside content."""
    text = done.response_text
    assert MARKER not in text
    if done.status == "success":
        assert text.startswith(success_prefix), text
    else:
        assert text == config.workspace_error() or text.startswith(misses), text


async def test_long_session_write_after_an_outside_swap_is_refused(ws: Path, outside: Path) -> None:
    config = yolo(ws)
    target = ws / "x.txt"
    done = await call(config, {"file_path": str(target), "content": "one\n"})
    assert done.status == "success"
    await read_first(config, target)
    done = await call(config, {"file_path": str(target), "content": "two\n"})
    assert done.status == "success", done.response_text
    before = snapshot(outside)
    link = ws / ".x.link"
    link.symlink_to(outside / "secret.txt")
    os.replace(link, target)  # an outside process swaps the name
    for name, args in (
        ("write_file", {"file_path": str(target), "content": "pwned\n"}),
        ("edit", {"file_path": str(target), "old_string": "top", "new_string": "pwned"}),
    ):
        done = await call(config, args, name)
        assert done.status == "error"
        assert done.response_text == config.workspace_error()
    assert snapshot(outside) == before


@pytest.mark.parametrize("kind", ["thread", "process"])
async def test_racing_write_file_never_writes_outside(ws: Path, outside: Path, kind: str) -> None:
    config = _raced(ws)
    target = _bait(outside)
    before = snapshot(outside)
    with swapper(kind, ws / "x.txt", target) as racer:
        for i in range(RACE_TRIES):
            args = {"file_path": str(ws / "x.txt"), "content": f"mine {i}\n"}
            _allowed(await call(config, args), config, "Successfully overwrote file:")
    assert racer.swaps > 0
    assert snapshot(outside) == before


@pytest.mark.parametrize("kind", ["thread", "process"])
async def test_racing_edit_never_writes_or_reads_outside(
    ws: Path, outside: Path, kind: str
) -> None:
    config = _raced(ws)
    target = _bait(outside)
    before = snapshot(outside)
    with swapper(kind, ws / "x.txt", target) as racer:
        for i in range(RACE_TRIES):
            # even tries would change the file; odd ones miss, and the miss shows closest lines
            old = "inside needle" if i % 2 == 0 else f"{MARKER} lines"
            new = "inside needle, edited"
            args = {"file_path": str(ws / "x.txt"), "old_string": old, "new_string": new}
            done = await call(config, args, "edit")
            assert MARKER not in done.response_text
            if i % 2 == 0:
                updated = f"The file: {ws / 'x.txt'} has been updated."
                _allowed(done, config, updated, "Failed to edit, 0 occurrences found")
    assert racer.swaps > 0
    assert snapshot(outside) == before


@pytest.mark.parametrize("kind", ["thread", "process"])
async def test_racing_directory_swaps_never_create_outside(
    ws: Path, outside: Path, kind: str
) -> None:
    config = _raced(ws)
    before = snapshot(outside)
    with swapper(kind, ws / "d", outside, directory=True) as racer:
        for i in range(RACE_TRIES):
            target = ws / "d" / ("sub/deeper" if i % 2 else "") / f"new{i}.txt"
            if i % 3 == 0:
                args = {"file_path": str(target), "old_string": "", "new_string": "made\n"}
                done = await call(config, args, "edit")
            else:
                done = await call(config, {"file_path": str(target), "content": "made\n"})
            assert MARKER not in done.response_text
    assert racer.swaps > 0
    assert snapshot(outside) == before


async def test_dotdot_after_a_symlink_writes_in_the_real_parent(ws: Path, tmp_path: Path) -> None:
    """``W/lnk/../../out/f.txt`` with ``W/lnk -> W/a/b`` is ``W/out/f.txt``, inside."""
    (ws / "a" / "b").mkdir(parents=True)
    (ws / "lnk").symlink_to(ws / "a" / "b")
    config = yolo(ws)
    path = f"{ws}/lnk/../../out/f.txt"
    done = await call(config, {"file_path": path, "content": "x\n"})
    assert done.response_text == f"Successfully created and wrote to new file: {path}."
    assert (ws / "out" / "f.txt").read_text() == "x\n"
    assert os.listdir(ws / "out") == ["f.txt"]
    assert not (ws.parent / "out").exists()
    edit = {"file_path": f"{ws}/lnk/../../out/g.txt", "old_string": "", "new_string": "y\n"}
    done = await call(config, edit, "edit")
    assert done.status == "success", done.response_text
    assert sorted(os.listdir(ws / "out")) == ["f.txt", "g.txt"]
    assert not (ws.parent / "out").exists()


async def test_project_memory_symlinked_outside_is_neither_shown_nor_written(
    ws: Path, outside: Path, tmp_path: Path
) -> None:
    target = _bait(outside)
    (ws / "QWEN.md").symlink_to(target)
    before = snapshot(outside)
    config = Config(ws, home_dir=tmp_path / "qwen-home")
    shown: list[ToolCallConfirmationDetails] = []

    async def confirm(
        request: ToolCallRequest, details: ToolCallConfirmationDetails
    ) -> tuple[ToolConfirmationOutcome, ToolConfirmationPayload | None]:
        shown.append(details)
        return ToolConfirmationOutcome.PROCEED_ONCE, None

    registry = ToolRegistry([SaveMemoryTool(config)])
    request = ToolCallRequest("save_memory", {"fact": "pwned", "scope": "project"})
    done = await run_tool_call(registry, config, request, confirm=confirm)
    assert done.status == "error"
    assert MARKER not in done.response_text and MARKER not in repr(shown)
    assert config.workspace_error() in done.response_text
    assert done.error_type in (
        ToolErrorType.MEMORY_TOOL_EXECUTION_ERROR,
        ToolErrorType.PATH_NOT_IN_WORKSPACE,
    )
    assert snapshot(outside) == before
