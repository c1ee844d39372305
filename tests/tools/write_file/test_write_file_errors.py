"""``write_file``: write errors (real permission failures) and the confirmation step."""

from __future__ import annotations

import errno
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

import qwen_tools.fs.atomic
import qwen_tools.fs.diff  # noqa: F401
from qwen_tools import (
    AbortSignal,
    ApprovalMode,
    Config,
    EditConfirmationDetails,
    FileDiff,
    StructuredToolError,
    ToolCallConfirmationDetails,
    ToolCallRequest,
    ToolConfirmationOutcome,
    ToolConfirmationPayload,
    ToolErrorType,
)
from qwen_tools.tools.write_file.failures import write_error
from qwen_tools.tools.write_file.tool import WriteFileTool
from support.file_tools import NEVER_READ, call, read_first, yolo

# -- write errors -------------------------------------------------------------------------


@contextmanager
def unprivileged() -> Iterator[None]:
    """Drop to ``nobody`` while root (root ignores permission bits); no-op otherwise."""
    if os.geteuid() != 0:
        yield
        return
    os.setegid(65534)
    os.seteuid(65534)
    try:
        yield
    finally:
        os.seteuid(0)
        os.setegid(0)


@pytest.fixture
def open_ws() -> Iterator[Path]:
    """A workspace every user can traverse (pytest's own tmp dirs are private to root)."""
    base = Path(os.path.realpath(tempfile.mkdtemp(prefix="qwen-tools-wf-")))
    base.chmod(0o755)
    root = base / "ws"
    root.mkdir()
    root.chmod(0o755)
    yield root
    for dirpath, _dirs, _files in os.walk(base):
        os.chmod(dirpath, 0o755)
    shutil.rmtree(base)


async def warm_up(config: Config, root: Path) -> None:
    """One successful write while privileged, so every lazily loaded module is in memory.

    The interpreter may live where ``nobody`` cannot read (e.g. under /root), and a failed
    lazy import (a codec, jsonschema's resources) would stay failed for the whole process.
    """
    done = await call(config, {"file_path": str(root / "warm-up.txt"), "content": "warm\n"})
    assert done.status == "success", done.response_text


async def test_permission_denied(open_ws: Path) -> None:
    locked = open_ws / "locked"
    locked.mkdir()
    existing = locked / "existing.txt"
    existing.write_text("keep\n")
    existing.chmod(0o644)
    locked.chmod(0o555)
    config = yolo(open_ws)
    await warm_up(config, open_ws)
    await read_first(config, existing)
    for target in (locked / "new.txt", existing):
        with unprivileged():
            done = await call(config, {"file_path": str(target), "content": "nope\n"})
        assert done.response_text == f"Permission denied writing to file: {target} (EACCES)"
        assert done.error_type is ToolErrorType.PERMISSION_DENIED
    assert not (locked / "new.txt").exists()
    assert existing.read_text() == "keep\n"


async def test_missing_directory_that_cannot_be_created(open_ws: Path) -> None:
    locked = open_ws / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    target = locked / "sub" / "new.txt"
    config = yolo(open_ws)
    await warm_up(config, open_ws)
    with unprivileged():
        done = await call(config, {"file_path": str(target), "content": "x"})
    assert done.response_text == f"Permission denied writing to file: {target} (EACCES)"
    assert done.error_type is ToolErrorType.PERMISSION_DENIED


async def test_parent_is_a_regular_file(ws: Path) -> None:
    (ws / "plain.txt").write_text("I am a file\n")
    target = ws / "plain.txt" / "child.txt"
    done = await call(yolo(ws), {"file_path": str(target), "content": "x"})
    assert done.response_text == (
        f"Could not stat {target} to verify prior read (ENOTDIR). Re-read with the read_file "
        "tool, then retry overwriting it."
    )
    assert done.error_type is ToolErrorType.PRIOR_READ_VERIFICATION_FAILED
    assert (ws / "plain.txt").read_text() == "I am a file\n"


@pytest.mark.parametrize(
    ("error", "message", "error_type"),
    [
        (
            OSError(errno.ENOSPC, "No space left on device", "/t/.x.tmp"),
            "No space left on device: /w/f.txt (ENOSPC)",
            ToolErrorType.NO_SPACE_LEFT,
        ),
        (
            IsADirectoryError(errno.EISDIR, "Is a directory", "/w/f.txt"),
            "Target is a directory, not a file: /w/f.txt (EISDIR)",
            ToolErrorType.TARGET_IS_DIRECTORY,
        ),
        (
            PermissionError(errno.EACCES, "Permission denied", "/w/.f.txt.1.tmp"),
            "Permission denied writing to file: /w/f.txt (EACCES)",
            ToolErrorType.PERMISSION_DENIED,
        ),
        (
            OSError(errno.EROFS, "Read-only file system", "/w/.f.txt.1.tmp"),
            "Error writing to file '/w/f.txt': atomicWriteFile(\"/w/f.txt\"): EROFS: "
            "read-only file system, open '/w/.f.txt.1.tmp' (EROFS)",
            ToolErrorType.FILE_WRITE_FAILURE,
        ),
        (
            ValueError("embedded null byte"),
            "Error writing to file: embedded null byte",
            ToolErrorType.FILE_WRITE_FAILURE,
        ),
    ],
)
def test_write_error_messages(
    error: BaseException, message: str, error_type: ToolErrorType
) -> None:
    result = write_error(error, "/w/f.txt")
    assert result.error is not None
    assert (result.error.message, result.error.type) == (message, error_type)
    assert result.llm_content == result.return_display == message


# -- confirmation -------------------------------------------------------------------------


async def test_confirmation_details(ws: Path) -> None:
    target = ws / "notes" / "todo.txt"
    target.parent.mkdir()
    target.write_text("one\ntwo\n")
    config = Config(ws)
    await read_first(config, target)
    tool = WriteFileTool(config)
    invocation = tool.build({"file_path": str(target), "content": "one\nthree\n"})
    assert invocation.get_description() == "Writing to notes/todo.txt"
    assert [loc.path for loc in invocation.tool_locations()] == [str(target)]
    details = await invocation.should_confirm_execute(AbortSignal.never())
    assert isinstance(details, EditConfirmationDetails)
    assert details.title == "Confirm Write: notes/todo.txt"
    assert (details.file_name, details.file_path) == ("todo.txt", str(target))
    assert (details.original_content, details.new_content) == ("one\ntwo\n", "one\nthree\n")
    assert "--- todo.txt\tCurrent\n+++ todo.txt\tProposed\n" in details.file_diff
    assert " one\n-two\n+three\n" in details.file_diff
    new = tool.build({"file_path": str(ws / "n.txt"), "content": "x"})
    new_details = await new.should_confirm_execute(AbortSignal.never())
    assert isinstance(new_details, EditConfirmationDetails)
    assert new_details.original_content == ""


async def test_confirmation_runs_the_prior_read_check(ws: Path) -> None:
    target = ws / "unread.txt"
    target.write_text("secret plans\n")
    config = Config(ws)
    invocation = WriteFileTool(config).build({"file_path": str(target), "content": "x"})
    with pytest.raises(StructuredToolError) as caught:
        await invocation.should_confirm_execute(AbortSignal.never())
    assert caught.value.message == NEVER_READ.format(p=target)
    assert caught.value.error_type is ToolErrorType.EDIT_REQUIRES_PRIOR_READ
    asked: list[ToolCallConfirmationDetails] = []

    async def confirm(
        _request: ToolCallRequest, details: ToolCallConfirmationDetails
    ) -> tuple[ToolConfirmationOutcome, ToolConfirmationPayload | None]:
        asked.append(details)
        return ToolConfirmationOutcome.PROCEED_ONCE, None

    done = await call(config, {"file_path": str(target), "content": "x"}, confirm=confirm)
    assert done.response_text == NEVER_READ.format(p=target)
    assert asked == []
    assert target.read_text() == "secret plans\n"


async def test_confirm_then_write_and_always_allow_switches_to_auto_edit(ws: Path) -> None:
    config = Config(ws)
    answers = [ToolConfirmationOutcome.PROCEED_ALWAYS]
    titles: list[str] = []

    async def confirm(
        _request: ToolCallRequest, details: ToolCallConfirmationDetails
    ) -> tuple[ToolConfirmationOutcome, ToolConfirmationPayload | None]:
        titles.append(details.title)
        return answers.pop(0), None

    done = await call(config, {"file_path": str(ws / "a.txt"), "content": "a"}, confirm=confirm)
    assert done.status == "success"
    assert titles == ["Confirm Write: a.txt"]
    assert config.approval_mode is ApprovalMode.AUTO_EDIT
    again = await call(config, {"file_path": str(ws / "b.txt"), "content": "b"}, confirm=confirm)
    assert again.status == "success" and titles == ["Confirm Write: a.txt"]


async def test_cancelled_confirmation_leaves_the_file_alone(ws: Path) -> None:
    async def confirm(
        _request: ToolCallRequest, _details: ToolCallConfirmationDetails
    ) -> tuple[ToolConfirmationOutcome, ToolConfirmationPayload | None]:
        return ToolConfirmationOutcome.CANCEL, None

    target = ws / "no.txt"
    done = await call(Config(ws), {"file_path": str(target), "content": "x"}, confirm=confirm)
    assert done.status == "cancelled"
    assert done.response_text == "[Operation Cancelled] Reason: User did not allow tool call"
    assert isinstance(done.display, FileDiff) and done.display.new_content == "x"
    assert not target.exists()
