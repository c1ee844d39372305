"""``edit`` on real files: the reference's messages, byte for byte, and its error table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from qwen_tools.config.config import Config
from qwen_tools.contract.abort import AbortSignal
from qwen_tools.contract.confirmation import EditConfirmationDetails
from qwen_tools.contract.display import FileDiff
from qwen_tools.contract.errors import StructuredToolError, ToolErrorType
from qwen_tools.contract.function_response import function_response_for_result, response_text
from qwen_tools.contract.invocation import ToolLocation
from qwen_tools.contract.kinds import Kind
from qwen_tools.contract.results import ToolResult
from qwen_tools.tools.edit.tool import EditTool
from qwen_tools.tools.read_file import ReadFileTool
from support.one_call import run_call

HELPERS = (
    'def greet(name):\n    return "hello, " + name\n\n\ndef shout(text):\n'
    '    return text.upper() + "!"\n'
)
NO_MATCH = (
    "No edits made. The exact text in old_string was not found. Ensure you're not escaping "
    "content incorrectly and check whitespace, indentation, and context. Use read_file tool "
    "to verify."
)


def write(path: Path, data: str | bytes) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return str(path)


def mark_read(config: Config, path: str) -> None:
    config.session.read_cache.record_read(path, full=True)


async def run(config: Config, params: dict[str, Any]) -> ToolResult:
    """The tool's result for valid params (invalid ones raise ``ToolParamsError``)."""
    return await EditTool(config).build_and_execute(params)


def model_text(result: ToolResult) -> str:
    return response_text(function_response_for_result("edit", "c1", result))


async def edit_read(config: Config, path: str, old: str, new: str, **extra: Any) -> ToolResult:
    mark_read(config, path)
    return await run(config, {"file_path": path, "old_string": old, "new_string": new, **extra})


def test_identity_and_schema(ws: Path) -> None:
    tool = EditTool(Config(ws))
    assert (tool.name, tool.display_name, tool.kind) == ("edit", "Edit", Kind.EDIT)
    schema = tool.schema.parameters_json_schema
    assert schema["required"] == ["file_path", "old_string", "new_string"]
    assert {k: v["type"] for k, v in schema["properties"].items()} == {
        "file_path": "string",
        "old_string": "string",
        "new_string": "string",
        "replace_all": "boolean",
        "expected_replacements": "integer",
    }
    assert schema["properties"]["expected_replacements"]["minimum"] == 1
    assert "additionalProperties" not in schema  # the hidden params pass through


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("", "The 'file_path' parameter must be non-empty."),
        ("   ", "The 'file_path' parameter must be non-empty."),
        ("rel.txt", "File path must be absolute: rel.txt"),
        (" src/a.py ", "File path must be absolute: src/a.py"),
    ],
)
def test_path_validation(ws: Path, path: str, message: str) -> None:
    params = {"file_path": path, "old_string": "a", "new_string": "b"}
    assert EditTool(Config(ws)).validate_tool_params(params) == message


def test_schema_errors(ws: Path) -> None:
    tool = EditTool(Config(ws))
    base = {"file_path": str(ws / "a"), "old_string": "a", "new_string": "b"}
    assert tool.validate_tool_params({**base, "expected_replacements": 0}) == (
        "params/expected_replacements must be >= 1"
    )
    assert tool.validate_tool_params({"file_path": str(ws / "a"), "old_string": "a"}) == (
        "params must have required property 'new_string'"
    )
    assert tool.validate_tool_params({**base, "replace_all": "true"}) is None


async def test_unread_file_is_refused_and_unchanged(ws: Path) -> None:
    path = write(ws / "src/util/helpers.py", HELPERS)
    result = await run(Config(ws), {"file_path": path, "old_string": "hello", "new_string": "x"})
    assert model_text(result) == (
        f"File {path} has not been read in this session. Use the read_file tool first to load "
        "the current content (a partial read with offset / limit is fine \u2014 you only need to "
        "have seen the bytes you intend to edit) before editing it."
    )
    assert result.error is not None
    assert result.error.type is ToolErrorType.EDIT_REQUIRES_PRIOR_READ
    assert result.return_display == "Error: read_file required before editing this file."
    assert Path(path).read_text() == HELPERS


async def test_partial_read_with_read_file_then_edit(ws: Path) -> None:
    config = Config(ws)
    path = write(ws / "src/util/helpers.py", HELPERS)
    read = await ReadFileTool(config).build_and_execute({"file_path": path, "limit": 2})
    assert read.error is None
    result = await run(
        config,
        {
            "file_path": path,
            "old_string": 'return "hello, " + name',
            "new_string": 'return "goodbye, " + name',
        },
    )
    assert model_text(result) == (
        f"The file: {path} has been updated. Showing lines 1-6 of 7 from the edited file:"
        '\n\n---\n\ndef greet(name):\n    return "goodbye, " + name\n\n\ndef shout(text):\n'
        '    return text.upper() + "!"'
    )
    assert Path(path).read_text() == HELPERS.replace("hello", "goodbye")


async def test_stale_read_is_refused(ws: Path) -> None:
    config = Config(ws)
    path = write(ws / "a.txt", "one\n")
    mark_read(config, path)
    write(ws / "a.txt", "one two\n")
    result = await run(config, {"file_path": path, "old_string": "one", "new_string": "1"})
    assert model_text(result) == (
        f"File {path} has been modified since you last read it (mtime or size changed). Re-read "
        "it with the read_file tool before editing it to ensure your changes are based on "
        "current content."
    )
    assert result.error is not None
    assert result.error.type is ToolErrorType.FILE_CHANGED_SINCE_READ


async def test_multiple_occurrences_and_replace_all(ws: Path) -> None:
    config = Config(ws)
    path = write(ws / "data/dup.txt", "foo one\nfoo two\nfoo three\n")
    result = await edit_read(config, path, "foo", "bar")
    assert model_text(result) == (
        f"Failed to edit. Found 3 occurrences for old_string in {path} but replace_all was "
        "not enabled."
    )
    assert result.error is not None
    assert result.error.type is ToolErrorType.EDIT_EXPECTED_OCCURRENCE_MISMATCH
    assert result.return_display == (
        "Error: Failed to edit because the text matches multiple locations. Provide more "
        "context or set replace_all to true."
    )
    result = await edit_read(config, path, "foo", "bar", replace_all="true")
    assert model_text(result) == (
        f"The file: {path} has been updated. Showing lines 1-4 of 4 from the edited file:"
        "\n\n---\n\nbar one\nbar two\nbar three\n"
    )


async def test_expected_replacements(ws: Path) -> None:
    config = Config(ws)
    path = write(ws / "dup.txt", "foo one\nfoo two\nfoo three\n")
    result = await edit_read(config, path, "foo", "bar", expected_replacements=2)
    assert model_text(result) == (
        f"Failed to edit, Expected 2 occurrences but found 3 for old_string in file: {path}"
    )
    assert result.return_display == "Error: Failed to edit, expected 2 occurrences but found 3."
    assert result.error is not None
    assert result.error.type is ToolErrorType.EDIT_EXPECTED_OCCURRENCE_MISMATCH
    result = await edit_read(config, path, "foo", "bar", expected_replacements=1)
    assert model_text(result) == (
        f"Failed to edit, Expected 1 occurrence but found 3 for old_string in file: {path}"
    )
    result = await edit_read(config, path, "foo", "bar", expected_replacements=3)
    assert result.error is None
    assert Path(path).read_text() == "bar one\nbar two\nbar three\n"
    # expected_replacements governs even when replace_all is set
    result = await edit_read(config, path, "bar", "baz", expected_replacements=2, replace_all=True)
    assert result.error is not None


async def test_not_found_message_with_and_without_hint(ws: Path) -> None:
    config = Config(ws)
    path = write(ws / "src/util/helpers.py", HELPERS)
    result = await edit_read(config, path, "this text does not occur", "x")
    assert (
        model_text(result)
        == f"Failed to edit, 0 occurrences found for old_string in {path}. {NO_MATCH}"
    )
    assert result.return_display == "Error: Failed to edit, could not find the string to replace."
    assert result.error is not None
    assert result.error.type is ToolErrorType.EDIT_NO_OCCURRENCE_FOUND
    result = await edit_read(config, path, "def shout(txt):\n    return txt.upper()", "x")
    assert model_text(result) == (
        f"Failed to edit, 0 occurrences found for old_string in {path}. {NO_MATCH}\n\n"
        "The closest match in the file (lines 5-6) is:\n"
        "  5: def shout(text):\n"
        '  6:     return text.upper() + "!"'
    )
    assert result.return_display == "Error: Failed to edit, could not find the string to replace."


async def test_identical_strings_and_no_change(ws: Path) -> None:
    config = Config(ws)
    path = write(ws / "a.txt", "x = 1\n")
    result = await edit_read(config, path, "x = 1", "x = 1")
    assert model_text(result) == (
        f"No changes to apply. The old_string and new_string are identical in file: {path}"
    )
    assert result.return_display == (
        "Error: No changes to apply. The old_string and new_string are identical."
    )
    assert result.error is not None
    assert result.error.type is ToolErrorType.EDIT_NO_CHANGE
    # a tolerant match that normalises to the new string is caught the same way
    result = await edit_read(config, path, "x = 1   ", "x = 1")
    assert model_text(result).startswith("No changes to apply. The old_string and new_string")


async def test_create_new_file_with_parents(ws: Path) -> None:
    config = Config(ws)
    path = str(ws / "new/made.txt")
    result = await run(
        config, {"file_path": path, "old_string": "", "new_string": "made 1\nmade 2\n"}
    )
    assert model_text(result) == (
        f"Created new file: {path} with provided content. Showing lines 1-3 of 3 from the "
        "edited file:\n\n---\n\nmade 1\nmade 2\n"
    )
    assert Path(path).read_text() == "made 1\nmade 2\n"
    assert isinstance(result.return_display, FileDiff)
    assert result.return_display.original_content is None
    # the write counts as a read: editing right away needs no read_file
    result = await run(config, {"file_path": path, "old_string": "made 2", "new_string": "two"})
    assert result.error is None
    assert Path(path).read_text() == "made 1\ntwo\n"


async def test_create_over_existing_file_and_missing_file(ws: Path) -> None:
    config = Config(ws)
    path = write(ws / "exists.txt", "content\n")
    result = await edit_read(config, path, "", "other")
    assert model_text(result) == f"File already exists, cannot create: {path}"
    assert result.return_display == (
        "Error: Failed to edit. Attempted to create a file that already exists."
    )
    assert result.error is not None
    assert result.error.type is ToolErrorType.ATTEMPT_TO_CREATE_EXISTING_FILE
    missing = str(ws / "missing.txt")
    result = await run(config, {"file_path": missing, "old_string": "a", "new_string": "b"})
    assert model_text(result) == f"File not found: {missing}"
    assert result.return_display == (
        "Error: File not found. Cannot apply edit. Use an empty old_string to create a new file."
    )
    assert result.error is not None
    assert result.error.type is ToolErrorType.FILE_NOT_FOUND


async def test_directory_target(ws: Path) -> None:
    (ws / "sub").mkdir()
    result = await run(
        Config(ws), {"file_path": str(ws / "sub"), "old_string": "a", "new_string": "b"}
    )
    assert model_text(result) == (
        f"{ws / 'sub'} is a directory. The Edit / WriteFile tools only operate on regular files. "
        "Use a different mechanism (e.g. the shell tool) if you need to edit the contents of "
        "this directory."
    )


async def test_tolerant_matches(ws: Path) -> None:
    config = Config(ws)
    path = write(ws / "v.js", "value = 1;\nother = 2;\n")
    result = await edit_read(config, path, "value = 1;   ", "value = 2;")
    assert result.error is None
    assert Path(path).read_text() == "value = 2;\nother = 2;\n"
    path = write(ws / "q.js", "const greeting = 'Don't';\n")
    result = await edit_read(config, path, "const greeting = \u2018Don\u2019t\u2019;", "x")
    assert result.error is None
    assert Path(path).read_text() == "x\n"


async def test_deletion_consumes_newline_and_dollar_is_literal(ws: Path) -> None:
    config = Config(ws)
    path = write(ws / "d.txt", "keep1\nremove me\nkeep2\n")
    assert (await edit_read(config, path, "remove me", "")).error is None
    assert Path(path).read_text() == "keep1\nkeep2\n"
    path = write(ws / "p.txt", "price = 0\n")
    assert (await edit_read(config, path, "price = 0", "price = $1 $& $' $$")).error is None
    assert Path(path).read_text() == "price = $1 $& $' $$\n"


async def test_new_string_trailing_whitespace_is_kept(ws: Path) -> None:
    config = Config(ws)
    path = write(ws / "t.txt", "a\nb\n")
    assert (await edit_read(config, path, "a", "a   ")).error is None
    assert Path(path).read_bytes() == b"a   \nb\n"


async def test_outside_workspace_and_symlink_out_are_refused(ws: Path, outside: Path) -> None:
    config = Config(ws)
    secret = str(outside / "secret.txt")
    mark_read(config, secret)
    message = f"File path must be within one of the workspace directories: {ws}"
    done = await run_call(
        EditTool(config), {"file_path": secret, "old_string": "top", "new_string": "x"}
    )
    assert done.response_text == message
    link = ws / "link.txt"
    link.symlink_to(outside / "secret.txt")
    params = {"file_path": str(link), "old_string": "top", "new_string": "x"}
    done = await run_call(EditTool(config), params)
    assert done.response_text == message
    assert done.error_type is ToolErrorType.INVALID_TOOL_PARAMS
    assert (outside / "secret.txt").read_text() == "top secret\n"


async def test_description_locations_and_unescaping(ws: Path) -> None:
    tool = EditTool(Config(ws))
    target = ws / "my file.txt"
    base = {"file_path": str(ws / "my\\ file.txt"), "old_string": "a", "new_string": "b"}
    invocation = tool.build(dict(base))
    assert invocation.params["file_path"] == str(target)
    assert invocation.get_description() == "my file.txt"
    assert invocation.tool_locations() == [ToolLocation(str(target))]
    assert tool.build({**base, "old_string": ""}).get_description() == "Create my file.txt"
    assert tool.build({**base, "new_string": "a"}).get_description() == (
        "No file changes to my file.txt"
    )


async def test_confirmation_details_and_errors(ws: Path) -> None:
    config = Config(ws)
    path = write(ws / "sub/a.txt", "alpha\nbeta\n")
    tool = EditTool(config)
    invocation = tool.build({"file_path": path, "old_string": "beta", "new_string": "BETA"})
    with pytest.raises(StructuredToolError) as raised:
        await invocation.should_confirm_execute(AbortSignal())
    assert raised.value.error_type is ToolErrorType.EDIT_REQUIRES_PRIOR_READ
    assert raised.value.message.startswith(f"File {path} has not been read in this session.")
    mark_read(config, path)
    details = await invocation.should_confirm_execute(AbortSignal())
    assert isinstance(details, EditConfirmationDetails)
    assert details.title == "Confirm Edit: sub/a.txt"
    assert (details.file_name, details.file_path) == ("a.txt", path)
    assert details.original_content == "alpha\nbeta\n"
    assert details.new_content == "alpha\nBETA\n"
    assert "--- a.txt\tCurrent\n+++ a.txt\tProposed\n" in details.file_diff
    assert "-beta\n+BETA\n" in details.file_diff
    assert Path(path).read_text() == "alpha\nbeta\n"  # confirming writes nothing
    missing = tool.build({"file_path": path, "old_string": "zzz", "new_string": "y"})
    with pytest.raises(StructuredToolError) as raised:
        await missing.should_confirm_execute(AbortSignal())
    assert raised.value.error_type is ToolErrorType.EDIT_NO_OCCURRENCE_FOUND
    assert raised.value.message.startswith("Failed to edit, 0 occurrences found")


async def test_success_display_is_a_file_diff_with_stats(ws: Path) -> None:
    config = Config(ws)
    path = write(ws / "a.txt", "alpha\nbeta\n")
    result = await edit_read(config, path, "beta", "BETA\ngamma")
    display = result.return_display
    assert isinstance(display, FileDiff)
    assert (display.file_name, display.file_path) == ("a.txt", path)
    assert display.original_content == "alpha\nbeta\n"
    assert display.new_content == "alpha\nBETA\ngamma\n"
    assert display.diff_stat is not None
    assert (display.diff_stat.model_added_lines, display.diff_stat.model_removed_lines) == (2, 1)
    assert display.diff_stat.user_added_lines == 0
