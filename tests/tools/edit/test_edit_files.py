"""``edit`` keeps a file's format (encoding, BOM, CRLF, final newline, mode), serialises edits
of one file, reports file-system failures as the reference does, supports modify-with-editor,
and runs through the whole call pipeline."""

from __future__ import annotations

import asyncio
import codecs
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from qwen_tools import ApprovalMode, Config, ToolCallRequest, ToolRegistry, run_tool_call
from qwen_tools.contract.abort import AbortSignal
from qwen_tools.contract.display import FileDiff
from qwen_tools.contract.errors import StructuredToolError, ToolErrorType
from qwen_tools.contract.function_response import function_response_for_result, response_text
from qwen_tools.contract.modifiable import ModifiableTool
from qwen_tools.contract.results import ToolResult
from qwen_tools.tools.edit.tool import EditTool


def write(path: Path, data: bytes) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return str(path)


async def edit_read(config: Config, path: str, old: str, new: str, **extra: Any) -> ToolResult:
    config.session.read_cache.record_read(path, full=True)
    params = {"file_path": path, "old_string": old, "new_string": new, **extra}
    return await EditTool(config).build_and_execute(params)


def model_text(result: ToolResult) -> str:
    return response_text(function_response_for_result("edit", "c1", result))


async def test_crlf_and_trailing_spaces_are_preserved(ws: Path) -> None:
    config = Config(ws)
    path = write(ws / "crlf.txt", b"alpha\r\nbeta  \r\ngamma\r\n")
    result = await edit_read(config, path, "beta", "BETA")
    assert model_text(result) == (
        f"The file: {path} has been updated. Showing lines 1-4 of 4 from the edited file:"
        "\n\n---\n\nalpha\nBETA  \ngamma\n"
    )
    assert Path(path).read_bytes() == b"alpha\r\nBETA  \r\ngamma\r\n"


async def test_crlf_old_string_matches_and_new_lines_become_crlf(ws: Path) -> None:
    config = Config(ws)
    path = write(ws / "crlf.txt", b"one\r\ntwo\r\nthree\r\n")
    result = await edit_read(config, path, "one\r\ntwo", "1\n2\n2b")
    assert result.error is None
    assert Path(path).read_bytes() == b"1\r\n2\r\n2b\r\nthree\r\n"


async def test_utf8_bom_is_kept(ws: Path) -> None:
    config = Config(ws)
    path = write(ws / "bom.txt", codecs.BOM_UTF8 + b"first\nsecond\n")
    assert (await edit_read(config, path, "second", "2nd")).error is None
    assert Path(path).read_bytes() == codecs.BOM_UTF8 + b"first\n2nd\n"


async def test_utf16_file_stays_utf16(ws: Path) -> None:
    config = Config(ws)
    original = "caf\u00e9 line\r\nsecond \u2603\r\n"
    path = write(ws / "u16.txt", codecs.BOM_UTF16_LE + original.encode("utf-16-le"))
    result = await edit_read(config, path, "second \u2603", "zweite \u2603")
    assert result.error is None
    expected = "caf\u00e9 line\r\nzweite \u2603\r\n"
    assert Path(path).read_bytes() == codecs.BOM_UTF16_LE + expected.encode("utf-16-le")


async def test_latin1_file_stays_latin1(ws: Path) -> None:
    config = Config(ws)
    text = (
        "Le caf\u00e9 est tr\u00e8s bon, n'est-ce pas? Il fait beau aujourd'hui \u00e0 Paris, "
        "et les \u00e9l\u00e8ves sont d\u00e9j\u00e0 partis.\n"
    ) * 3
    path = write(ws / "latin.txt", text.encode("latin-1"))
    result = await edit_read(config, path, "Paris", "Lyon", replace_all=True)
    assert result.error is None
    assert Path(path).read_bytes() == text.replace("Paris", "Lyon").encode("latin-1")


async def test_missing_final_newline_is_kept(ws: Path) -> None:
    config = Config(ws)
    path = write(ws / "nofinal.txt", b"a\nb\nc")
    result = await edit_read(config, path, "c", "C")
    assert model_text(result).endswith(
        "Showing lines 1-3 of 3 from the edited file:\n\n---\n\na\nb\nC"
    )
    assert Path(path).read_bytes() == b"a\nb\nC"


async def test_file_mode_is_kept(ws: Path) -> None:
    config = Config(ws)
    path = write(ws / "run.sh", b"#!/bin/sh\necho hi\n")
    os.chmod(path, 0o750)
    assert (await edit_read(config, path, "echo hi", "echo bye")).error is None
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o750
    assert Path(path).read_text() == "#!/bin/sh\necho bye\n"


async def test_edit_through_symlink_inside_workspace(ws: Path) -> None:
    config = Config(ws)
    target = write(ws / "real.txt", b"value = 1\n")
    link = ws / "link.txt"
    link.symlink_to(target)
    assert (await edit_read(config, str(link), "1", "2")).error is None
    assert link.is_symlink()
    assert Path(target).read_text() == "value = 2\n"


async def test_edits_of_different_files_run_concurrently(ws: Path) -> None:
    config = Config(ws)
    paths = [write(ws / f"f{i}.txt", f"value {i}\n".encode()) for i in range(5)]
    results = await asyncio.gather(*(edit_read(config, p, "value", "VALUE") for p in paths))
    assert all(r.error is None for r in results)
    assert [Path(p).read_text() for p in paths] == [f"VALUE {i}\n" for i in range(5)]


async def test_edits_of_one_file_are_serialised_and_none_is_lost(ws: Path) -> None:
    config = Config(ws)
    lines = [f"line {i}" for i in range(20)]
    path = write(ws / "shared.txt", ("\n".join(lines) + "\n").encode())
    config.session.read_cache.record_read(path, full=True)
    tool = EditTool(config)
    calls = [
        tool.build_and_execute(
            {"file_path": path, "old_string": f"line {i}\n", "new_string": f"LINE {i}\n"}
        )
        for i in range(0, 20, 2)
    ]
    results = await asyncio.gather(*calls)
    assert [r.error for r in results] == [None] * 10
    expected = [f"LINE {i}" if i % 2 == 0 else f"line {i}" for i in range(20)]
    assert Path(path).read_text() == "\n".join(expected) + "\n"


async def test_modify_context_round_trip(ws: Path) -> None:
    config = Config(ws)
    path = write(ws / "m.txt", b"alpha\r\nbeta\r\ngamma\r\n")
    tool = EditTool(config)
    assert isinstance(tool, ModifiableTool)
    context = tool.get_modify_context()
    params = {
        "file_path": path,
        "old_string": "beta",
        "new_string": "BETA",
        "expected_replacements": 1,
    }
    assert context.get_file_path(params) == path
    current = await context.get_current_content(params)
    proposed = await context.get_proposed_content(params)
    assert (current, proposed) == ("alpha\nbeta\ngamma\n", "alpha\nBETA\ngamma\n")
    user = "alpha\nBETA (by hand)\ngamma\n"
    updated = context.create_updated_params(current, user, params)
    assert updated == {
        "file_path": path,
        "old_string": current,
        "new_string": user,
        "modified_by_user": True,
        "ai_proposed_content": proposed,
    }
    config.session.read_cache.record_read(path, full=True)
    result = await tool.build_and_execute(updated)
    assert result.error is None
    assert Path(path).read_bytes() == b"alpha\r\nBETA (by hand)\r\ngamma\r\n"
    display = result.return_display
    assert isinstance(display, FileDiff)
    assert display.diff_stat is not None
    assert (display.diff_stat.model_added_lines, display.diff_stat.user_added_lines) == (1, 1)


async def test_modify_context_for_a_new_file_and_a_refused_edit(ws: Path) -> None:
    context = EditTool(Config(ws)).get_modify_context()
    new = {"file_path": str(ws / "new.txt"), "old_string": "", "new_string": "hello\n"}
    assert await context.get_current_content(new) == ""
    assert await context.get_proposed_content(new) == "hello\n"
    updated = context.create_updated_params("", "hello there\n", new)
    assert (updated["old_string"], updated["ai_proposed_content"]) == ("", "hello\n")
    path = write(ws / "x.txt", b"x\n")
    refused = {"file_path": path, "old_string": "nope", "new_string": "y"}
    assert await context.get_proposed_content(refused) == "x\n"


async def test_through_the_pipeline(ws: Path) -> None:
    config = Config(ws, approval_mode=ApprovalMode.YOLO)
    registry = ToolRegistry([EditTool(config)])
    path = str(ws / "p/new.txt")
    request = ToolCallRequest("edit", {"file_path": path, "old_string": "", "new_string": "a\n"})
    done = await run_tool_call(registry, config, request)
    assert done.response_text == (
        f"Created new file: {path} with provided content. Showing lines 1-2 of 2 from the "
        "edited file:\n\n---\n\na\n"
    )
    request = ToolCallRequest("edit", {"file_path": path, "old_string": "zzz", "new_string": "b"})
    done = await run_tool_call(registry, config, request)
    assert done.response_text.startswith("Failed to edit, 0 occurrences found for old_string")
    strict = Config(ws)
    registry = ToolRegistry([EditTool(strict)])
    request = ToolCallRequest("edit", {"file_path": path, "old_string": "a", "new_string": "b"})
    done = await run_tool_call(registry, strict, request)  # default mode: confirmation first
    assert done.response_text.startswith(f"File {path} has not been read in this session.")


async def test_write_failure(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import qwen_tools.tools.edit.tool as edit_module

    def refuse(path: str, *_args: Any, **_kwargs: Any) -> None:
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(edit_module, "write_text_atomic", refuse)
    config = Config(ws)
    path = write(ws / "a.txt", b"alpha\n")
    result = await edit_read(config, path, "alpha", "beta")
    message = f"EACCES: permission denied, open '{path}'"
    assert result.llm_content == f"Error executing edit: {message}"
    assert result.return_display == f"Error writing file: {message}"
    assert result.error is not None
    assert (result.error.message, result.error.type) == (message, ToolErrorType.FILE_WRITE_FAILURE)
    assert model_text(result) == message


async def test_preparation_failure(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import qwen_tools.tools.edit.tool as edit_module

    def unreadable(path: str, *_args: Any) -> None:
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(edit_module, "read_current", unreadable)
    config = Config(ws)
    path = write(ws / "a.txt", b"alpha\n")
    result = await edit_read(config, path, "alpha", "beta")
    message = f"EACCES: permission denied, open '{path}'"
    assert result.llm_content == f"Error preparing edit: {message}"
    assert result.error is not None
    assert (result.error.message, result.error.type) == (
        message,
        ToolErrorType.EDIT_PREPARATION_FAILURE,
    )
    invocation = EditTool(config).build({"file_path": path, "old_string": "a", "new_string": "b"})
    with pytest.raises(StructuredToolError) as raised:
        await invocation.should_confirm_execute(AbortSignal())
    assert raised.value.message == f"Error preparing edit: {message}"


async def test_file_disappearing_after_the_read_is_refused(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import qwen_tools.tools.edit.tool as edit_module

    real = edit_module.read_current

    def read_then_delete(path: str, *args: Any) -> Any:
        current = real(path, *args)
        os.unlink(path)
        return current

    monkeypatch.setattr(edit_module, "read_current", read_then_delete)
    config = Config(ws)
    path = write(ws / "a.txt", b"alpha\n")
    result = await edit_read(config, path, "alpha", "beta")
    assert model_text(result) == (
        f"File {path} disappeared after the model read it (stat now returns ENOENT). Re-read "
        "with the read_file tool \u2014 the path may have been deleted or moved \u2014 before "
        "retrying editing it."
    )
    assert result.error is not None
    assert result.error.type is ToolErrorType.FILE_CHANGED_SINCE_READ
    assert not os.path.exists(path)


async def test_parent_directory_failure(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(path: str, *_args: Any, **_kwargs: Any) -> None:
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(os, "mkdir", refuse)
    path = str(ws / "deep/new.txt")
    params = {"file_path": path, "old_string": "", "new_string": "x"}
    result = await EditTool(Config(ws)).build_and_execute(params)
    message = f"EACCES: permission denied, mkdir '{ws / 'deep'}'"
    assert result.llm_content == f"Error executing edit: {message}"
    assert result.error is not None
    assert (result.error.message, result.error.type) == (message, ToolErrorType.FILE_WRITE_FAILURE)
