"""``write_file`` against real files, through the whole call pipeline, with exact strings.

Write errors and the confirmation step are in ``test_write_file_errors.py``.
"""

from __future__ import annotations

import asyncio
import json
import stat
from pathlib import Path

import pytest

from qwen_tools import Config, FileDiff, Kind, ToolErrorType
from qwen_tools.tools.write_file.tool import WriteFileTool
from support.file_tools import NEVER_READ, call, read_first, yolo
from support.workspaces import QWEN_DIFF

# -- identity, schema, validation ---------------------------------------------------------


def test_identity_and_schema(ws: Path) -> None:
    tool = WriteFileTool(Config(ws))
    assert (tool.name, tool.display_name, tool.kind) == ("write_file", "WriteFile", Kind.EDIT)
    schema = tool.schema.parameters_json_schema
    shapes = json.loads((QWEN_DIFF / "tool-shapes.json").read_text())
    reference = next(t for t in shapes["tools"] if t["name"] == "write_file")["parameters"]
    assert schema["required"] == reference["required"] == ["file_path", "content"]
    assert {k: v["type"] for k, v in schema["properties"].items()} == {
        k: v["type"] for k, v in reference["properties"].items()
    }
    assert "read_file" in tool.description and "absolute" in tool.description


@pytest.mark.parametrize(
    ("file_path", "message"),
    [
        ("", 'Missing or empty "file_path"'),
        ("   ", 'Missing or empty "file_path"'),
        ("rel.txt", "File path must be absolute: rel.txt"),
        (" rel.txt ", "File path must be absolute: rel.txt"),
    ],
)
async def test_validation_messages(ws: Path, file_path: str, message: str) -> None:
    done = await call(yolo(ws), {"file_path": file_path, "content": "x"})
    assert done.response_text == message
    assert done.error_type is ToolErrorType.INVALID_TOOL_PARAMS


async def test_missing_content_is_a_schema_error(ws: Path) -> None:
    done = await call(yolo(ws), {"file_path": str(ws / "a.txt")})
    assert done.response_text == "params must have required property 'content'"


async def test_directory_is_refused(ws: Path) -> None:
    (ws / "sub").mkdir()
    done = await call(yolo(ws), {"file_path": str(ws / "sub"), "content": "x"})
    assert done.response_text == f"Path is a directory, not a file: {ws}/sub"


async def test_symlink_to_a_directory_is_refused_by_the_prior_read_check(ws: Path) -> None:
    (ws / "sub").mkdir()
    (ws / "link").symlink_to(ws / "sub")
    done = await call(yolo(ws), {"file_path": str(ws / "link"), "content": "x"})
    assert done.response_text == (
        f"{ws}/link is a directory. The Edit / WriteFile tools only operate on regular files. "
        "Use a different mechanism (e.g. the shell tool) if you need to overwrite the contents "
        "of this directory."
    )
    assert done.error_type is ToolErrorType.TARGET_IS_DIRECTORY


async def test_escaped_path_is_unescaped(ws: Path) -> None:
    done = await call(yolo(ws), {"file_path": f"{ws}/my\\ file.txt", "content": "x"})
    assert done.response_text == f"Successfully created and wrote to new file: {ws}/my file.txt."
    assert (ws / "my file.txt").read_text() == "x"


async def test_outside_workspace_is_refused(ws: Path, outside: Path) -> None:
    config = yolo(ws)
    target = outside / "new.txt"
    done = await call(config, {"file_path": str(target), "content": "x"})
    assert done.response_text == config.workspace_error()
    assert done.response_text == f"File path must be within one of the workspace directories: {ws}"
    assert not target.exists()
    # through a symlinked file and a symlinked directory inside the workspace
    (ws / "link.txt").symlink_to(outside / "secret.txt")
    (ws / "out").symlink_to(outside)
    for path in (ws / "link.txt", ws / "out" / "made.txt"):
        done = await call(config, {"file_path": str(path), "content": "x"})
        assert done.response_text == config.workspace_error()
    assert (outside / "secret.txt").read_text() == "top secret\n"
    assert not (outside / "made.txt").exists()
    # an included directory is part of the workspace
    wider = yolo(ws, include_directories=[outside])
    done = await call(wider, {"file_path": str(target), "content": "x"})
    assert done.response_text == f"Successfully created and wrote to new file: {target}."


# -- writing ------------------------------------------------------------------------------


async def test_new_file_in_missing_directories(ws: Path) -> None:
    target = ws / "new" / "deeper" / "created.txt"
    done = await call(yolo(ws), {"file_path": str(target), "content": "made 1\nmade 2\n"})
    assert done.status == "success"
    assert done.response_text == f"Successfully created and wrote to new file: {target}."
    assert target.read_bytes() == b"made 1\nmade 2\n"
    display = done.display
    assert isinstance(display, FileDiff)
    assert (display.file_name, display.file_path) == ("created.txt", str(target))
    assert (display.original_content, display.new_content) == ("", "made 1\nmade 2\n")
    assert display.file_diff.startswith(
        "Index: created.txt\n"
        + "=" * 67
        + "\n--- created.txt\tOriginal\n+++ created.txt\tWritten\n"
    )
    assert "+made 1\n+made 2\n" in display.file_diff
    assert display.diff_stat is not None
    assert (display.diff_stat.model_added_lines, display.diff_stat.model_added_chars) == (2, 12)


async def test_overwrite_after_a_read(ws: Path) -> None:
    target = ws / "src" / "app.py"
    target.parent.mkdir()
    target.write_text("print('hi')\n")
    config = yolo(ws)
    await read_first(config, target)
    done = await call(config, {"file_path": str(target), "content": "print('bye')\n"})
    assert done.response_text == f"Successfully overwrote file: {target}."
    assert target.read_text() == "print('bye')\n"
    assert isinstance(done.display, FileDiff)
    assert done.display.original_content == "print('hi')\n"
    assert "-print('hi')\n+print('bye')\n" in done.display.file_diff


async def test_overwrite_without_a_read_is_refused(ws: Path) -> None:
    target = ws / "bom.txt"
    target.write_bytes(b"\xef\xbb\xbfkeep me\n")
    done = await call(yolo(ws), {"file_path": str(target), "content": "clobbered"})
    assert done.status == "error"
    assert done.response_text == NEVER_READ.format(p=target)
    assert done.error_type is ToolErrorType.EDIT_REQUIRES_PRIOR_READ
    assert done.display == "Error: read_file required before overwriting this file."
    assert target.read_bytes() == b"\xef\xbb\xbfkeep me\n"


async def test_overwrite_after_an_outside_change_is_refused(ws: Path) -> None:
    target = ws / "notes.txt"
    target.write_text("one\n")
    config = yolo(ws)
    await read_first(config, target)
    target.write_text("one\ntwo\n")
    done = await call(config, {"file_path": str(target), "content": "three\n"})
    assert done.response_text == (
        f"File {target} has been modified since you last read it (mtime or size changed). "
        "Re-read it with the read_file tool before overwriting it to ensure your changes are "
        "based on current content."
    )
    assert done.error_type is ToolErrorType.FILE_CHANGED_SINCE_READ
    assert target.read_text() == "one\ntwo\n"


@pytest.mark.parametrize(
    ("original", "content", "expected"),
    [
        (b"\xef\xbb\xbfold\n", "new\n", b"\xef\xbb\xbfnew\n"),
        (
            "\ufeffold\n".encode("utf-16-le"),
            "nouveau \u00e9t\u00e9\n",
            "\ufeffnouveau \u00e9t\u00e9\n".encode("utf-16-le"),
        ),
        (
            "\ufeffold\n".encode("utf-16-be"),
            "\u4e2d\u6587\n",
            "\ufeff\u4e2d\u6587\n".encode("utf-16-be"),
        ),
        (b"alpha\r\nbeta\r\n", "alpha\nBETA\ngamma\n", b"alpha\r\nBETA\r\ngamma\r\n"),
        (b"mixed\nlines\r\n", "a\r\nb\nc", b"a\r\nb\r\nc"),
        (b"plain\n", "x\r\ny\n", b"x\r\ny\n"),
    ],
    ids=["utf8-bom", "utf16le-bom", "utf16be-bom", "crlf", "mixed-becomes-crlf", "lf-kept"],
)
async def test_format_is_kept(ws: Path, original: bytes, content: str, expected: bytes) -> None:
    target = ws / "file.txt"
    target.write_bytes(original)
    config = yolo(ws)
    await read_first(config, target)
    done = await call(config, {"file_path": str(target), "content": content})
    assert done.response_text == f"Successfully overwrote file: {target}."
    assert target.read_bytes() == expected


async def test_new_file_is_utf8_without_bom(ws: Path) -> None:
    target = ws / "new.txt"
    await call(yolo(ws), {"file_path": str(target), "content": "caf\u00e9\r\nok\n"})
    assert target.read_bytes() == "caf\u00e9\r\nok\n".encode()


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o755])
async def test_mode_is_kept(ws: Path, mode: int) -> None:
    target = ws / "script.sh"
    target.write_text("#!/bin/sh\n")
    target.chmod(mode)
    config = yolo(ws)
    await read_first(config, target)
    await call(config, {"file_path": str(target), "content": "#!/bin/sh\necho hi\n"})
    assert stat.S_IMODE(target.stat().st_mode) == mode
    assert target.read_text() == "#!/bin/sh\necho hi\n"


async def test_symlink_inside_the_workspace_writes_its_target(ws: Path) -> None:
    real = ws / "real.txt"
    real.write_text("old\n")
    (ws / "alias.txt").symlink_to(real)
    config = yolo(ws)
    await read_first(config, ws / "alias.txt")
    done = await call(config, {"file_path": str(ws / "alias.txt"), "content": "new\n"})
    assert done.response_text == f"Successfully overwrote file: {ws}/alias.txt."
    assert (ws / "alias.txt").is_symlink()
    assert real.read_text() == "new\n"


async def test_a_write_counts_as_a_read(ws: Path) -> None:
    target = ws / "fresh.txt"
    config = yolo(ws)
    first = await call(config, {"file_path": str(target), "content": "v1\n"})
    assert first.response_text == f"Successfully created and wrote to new file: {target}."
    second = await call(config, {"file_path": str(target), "content": "v2\n"})
    assert second.response_text == f"Successfully overwrote file: {target}."
    edit_args = {"file_path": str(target), "old_string": "v2", "new_string": "v3"}
    edited = await call(config, edit_args, "edit")
    assert edited.status == "success", edited.response_text
    third = await call(config, {"file_path": str(target), "content": "v4\n"})
    assert third.response_text == f"Successfully overwrote file: {target}."
    assert target.read_text() == "v4\n"


async def test_modified_by_user(ws: Path) -> None:
    target = ws / "doc.md"
    params = {
        "file_path": str(target),
        "content": "user text\n",
        "modified_by_user": True,
        "ai_proposed_content": "model text\nsecond\n",
    }
    done = await call(yolo(ws), params)
    assert done.response_text == (
        f"Successfully created and wrote to new file: {target}. "
        "User modified the `content` to be: user text\n"
    )
    assert isinstance(done.display, FileDiff)
    stat_ = done.display.diff_stat
    assert stat_ is not None
    assert (stat_.model_added_lines, stat_.user_added_lines, stat_.user_removed_lines) == (2, 1, 2)


async def test_record_as_artifact_is_accepted(ws: Path) -> None:
    for flag in (True, False, "false"):
        target = ws / f"page-{flag}.html"
        args = {"file_path": str(target), "content": "<p>", "record_as_artifact": flag}
        done = await call(yolo(ws), args)
        assert done.response_text == f"Successfully created and wrote to new file: {target}."


async def test_concurrent_writes_to_one_file_are_serialised(ws: Path) -> None:
    config = yolo(ws)
    target = ws / "race.txt"
    done = await asyncio.gather(
        *(call(config, {"file_path": str(target), "content": f"writer {i}\n"}) for i in range(2))
    )
    texts = sorted(d.response_text for d in done)
    assert texts == [
        f"Successfully created and wrote to new file: {target}.",
        f"Successfully overwrote file: {target}.",
    ]
