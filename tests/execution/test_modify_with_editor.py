"""Modify with editor: the user rewrites a proposed write in a real editor process."""

from __future__ import annotations

import asyncio
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from qwen_tools import (
    AbortController,
    AbortSignal,
    CompletedToolCall,
    Config,
    EditConfirmationDetails,
    FileDiff,
    ToolCallConfirmationDetails,
    ToolCallRequest,
    ToolConfirmationOutcome,
    ToolConfirmationPayload,
    ToolErrorType,
    ToolRegistry,
    is_modifiable,
    run_tool_call,
)
from qwen_tools.execution.modify import (
    MODIFY_DIR_NAME,
    modify_with_editor,
    resolve_editor_command,
)
from qwen_tools.tools.read_file import ReadFileTool
from qwen_tools.tools.write_file.modify import WriteFileModifyContext
from qwen_tools.tools.write_file.tool import WriteFileTool

MODIFY = ToolConfirmationOutcome.MODIFY_WITH_EDITOR
ONCE = ToolConfirmationOutcome.PROCEED_ONCE
CANCEL = ToolConfirmationOutcome.CANCEL


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = Path(os.path.realpath(tmp_path)) / "ws"
    root.mkdir()
    return root


@pytest.fixture(autouse=True)
def no_editor(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)


def make_editor(tmp_path: Path, body: str, name: str = "editor.sh") -> tuple[str, Path]:
    """A shell script "editor": it logs its arguments, then runs ``body`` on the new file."""
    log = tmp_path / f"{name}.log"
    script = tmp_path / name
    script.write_text(
        "#!/bin/sh\n"
        "for last; do :; done\n"
        f'printf "%s\\n%s\\n" "$last" "$QWEN_TOOLS_ORIGINAL" >> "{log}"\n'
        f'cp "$QWEN_TOOLS_ORIGINAL" "{log}.original"\n'
        f"{body}\n"
    )
    script.chmod(0o755)
    return str(script), log


class Answers:
    """A confirmation handler answering from a script and keeping what it was shown."""

    def __init__(self, outcomes: Sequence[ToolConfirmationOutcome]) -> None:
        self.outcomes = list(outcomes)
        self.seen: list[ToolCallConfirmationDetails] = []

    async def __call__(
        self, _request: ToolCallRequest, details: ToolCallConfirmationDetails
    ) -> tuple[ToolConfirmationOutcome, ToolConfirmationPayload | None]:
        self.seen.append(details)
        assert self.outcomes, "asked more often than expected"
        return self.outcomes.pop(0), None


async def write(
    config: Config, tool: WriteFileTool, args: dict[str, Any], answers: Answers, **kw: Any
) -> CompletedToolCall:
    registry = ToolRegistry([tool, ReadFileTool(config)])
    return await run_tool_call(
        registry, config, ToolCallRequest("write_file", args), confirm=answers, **kw
    )


def edit_details(answers: Answers, index: int) -> EditConfirmationDetails:
    details = answers.seen[index]
    assert isinstance(details, EditConfirmationDetails)
    return details


def assert_temp_files_removed(log: Path) -> None:
    paths = log.read_text().splitlines()
    assert len(paths) == 2
    temp_dir = os.path.join(tempfile.gettempdir(), MODIFY_DIR_NAME)
    for path in paths:
        assert os.path.dirname(path) == temp_dir
        assert not os.path.exists(path)


async def test_modify_then_proceed(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    editor, log = make_editor(tmp_path, 'printf "edited by user\\n" > "$last"')
    monkeypatch.setenv("EDITOR", editor)
    target = ws / "notes.txt"
    target.write_text("current\n")
    config = Config(ws)
    tool = WriteFileTool(config)
    await run_tool_call(
        ToolRegistry([ReadFileTool(config)]),
        config,
        ToolCallRequest("read_file", {"file_path": str(target)}),
    )
    answers = Answers([MODIFY, ONCE])
    done = await write(config, tool, {"file_path": str(target), "content": "model\n"}, answers)
    assert done.status == "success", done.response_text
    assert target.read_text() == "edited by user\n"
    assert done.response_text == (
        f"Successfully overwrote file: {target}. User modified the `content` to be: edited by user\n"
    )
    first, second = edit_details(answers, 0), edit_details(answers, 1)
    assert first.new_content == "model\n" and second.new_content == "edited by user\n"
    assert "+edited by user\n" in second.file_diff and "+model" not in second.file_diff
    assert second.title == "Confirm Write: notes.txt"
    # the editor got the proposal as its argument and the current content in the environment
    new_path, old_path = log.read_text().splitlines()
    assert os.path.basename(new_path).startswith("qwen-tools-modify-notes-new-")
    assert new_path.endswith(".txt")
    assert os.path.basename(old_path).startswith("qwen-tools-modify-notes-old-")
    assert Path(f"{log}.original").read_text() == "current\n"
    assert_temp_files_removed(log)
    assert isinstance(done.display, FileDiff) and done.display.diff_stat is not None
    assert done.display.diff_stat.user_added_lines == 1


async def test_visual_wins_over_editor(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    visual, _ = make_editor(tmp_path, 'printf "from visual" > "$last"', "visual.sh")
    editor, _ = make_editor(tmp_path, 'printf "from editor" > "$last"')
    monkeypatch.setenv("VISUAL", visual)
    monkeypatch.setenv("EDITOR", editor)
    assert resolve_editor_command() == [visual]
    config = Config(ws)
    answers = Answers([MODIFY, ONCE])
    target = ws / "v.txt"
    await write(config, WriteFileTool(config), {"file_path": str(target), "content": "m"}, answers)
    assert target.read_text() == "from visual"


def test_editor_command_is_split_like_a_shell() -> None:
    assert resolve_editor_command({"EDITOR": "code --wait"}) == ["code", "--wait"]
    assert resolve_editor_command({"VISUAL": "  ", "EDITOR": "'my ed' -f"}) == ["my ed", "-f"]
    assert resolve_editor_command({}) is None


async def test_no_editor_asks_again(ws: Path) -> None:
    config = Config(ws)
    answers = Answers([MODIFY, MODIFY, ONCE])
    target = ws / "plain.txt"
    done = await write(
        config,
        WriteFileTool(config),
        {"file_path": str(target), "content": "as proposed\n"},
        answers,
    )
    assert len(answers.seen) == 3
    assert {edit_details(answers, i).new_content for i in range(3)} == {"as proposed\n"}
    assert done.response_text == f"Successfully created and wrote to new file: {target}."
    assert target.read_text() == "as proposed\n"


async def test_cancel_after_modify_leaves_the_file_untouched(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    editor, log = make_editor(tmp_path, 'printf "rewritten\\n" > "$last"')
    monkeypatch.setenv("EDITOR", editor)
    config = Config(ws)
    answers = Answers([MODIFY, CANCEL])
    target = ws / "never.txt"
    done = await write(
        config, WriteFileTool(config), {"file_path": str(target), "content": "x\n"}, answers
    )
    assert done.status == "cancelled"
    assert done.response_text == "[Operation Cancelled] Reason: User did not allow tool call"
    assert isinstance(done.display, FileDiff) and done.display.new_content == "rewritten\n"
    assert not target.exists()
    assert_temp_files_removed(log)


async def test_editor_that_deletes_the_file_means_empty_content(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    editor, log = make_editor(tmp_path, 'rm -f "$last"')
    monkeypatch.setenv("EDITOR", editor)
    config = Config(ws)
    answers = Answers([MODIFY, ONCE])
    target = ws / "emptied.txt"
    done = await write(
        config, WriteFileTool(config), {"file_path": str(target), "content": "x\n"}, answers
    )
    assert done.response_text == (
        f"Successfully created and wrote to new file: {target}. User modified the `content` to be: "
    )
    assert target.read_text() == ""
    assert_temp_files_removed(log)


async def test_failing_editor_asks_again_unchanged(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    editor, log = make_editor(tmp_path, 'printf "ignored" > "$last"; exit 3')
    monkeypatch.setenv("EDITOR", editor)
    config = Config(ws)
    answers = Answers([MODIFY, ONCE])
    target = ws / "kept.txt"
    done = await write(
        config, WriteFileTool(config), {"file_path": str(target), "content": "model\n"}, answers
    )
    assert edit_details(answers, 1).new_content == "model\n"
    assert done.response_text == f"Successfully created and wrote to new file: {target}."
    assert target.read_text() == "model\n"
    assert_temp_files_removed(log)
    monkeypatch.setenv("EDITOR", str(tmp_path / "no-such-editor"))
    answers = Answers([MODIFY, CANCEL])
    done = await write(
        config, WriteFileTool(config), {"file_path": str(ws / "b.txt"), "content": "b"}, answers
    )
    assert len(answers.seen) == 2 and done.status == "cancelled"


async def test_abort_while_the_editor_runs(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    editor, log = make_editor(tmp_path, "exec sleep 3600")
    monkeypatch.setenv("EDITOR", editor)
    config = Config(ws)
    controller = AbortController()
    answers = Answers([MODIFY])
    target = ws / "aborted.txt"

    async def abort_once_the_editor_runs() -> None:
        for _ in range(3000):  # bounded: fails only if the editor never starts
            if Path(f"{log}.original").exists():
                break
            await asyncio.sleep(0.01)
        controller.abort()

    aborter = asyncio.ensure_future(abort_once_the_editor_runs())
    # Bounded far below the editor's 3600 s: fails only if the abort does not end the wait.
    done = await asyncio.wait_for(
        write(
            config,
            WriteFileTool(config),
            {"file_path": str(target), "content": "x"},
            answers,
            signal=controller.signal,
        ),
        120,
    )
    await aborter
    assert done.status == "cancelled"
    assert done.response_text == "[Operation Cancelled] Reason: Tool call cancelled by user."
    assert not target.exists()
    assert_temp_files_removed(log)


class BadRewriteTool(WriteFileTool):
    """A write_file whose modify step produces params that fail validation."""

    def get_modify_context(self) -> WriteFileModifyContext:
        class Context(WriteFileModifyContext):
            def create_updated_params(
                self, old_content: str, modified_proposed: str, original_params: dict[str, Any]
            ) -> dict[str, Any]:
                return {**original_params, "file_path": "relative.txt"}

        return Context()


async def test_rebuild_failure_is_an_error(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    editor, _ = make_editor(tmp_path, "true")
    monkeypatch.setenv("EDITOR", editor)
    config = Config(ws)
    answers = Answers([MODIFY])
    target = ws / "bad.txt"
    done = await write(
        config, BadRewriteTool(config), {"file_path": str(target), "content": "x"}, answers
    )
    assert done.status == "error"
    assert done.response_text == "File path must be absolute: relative.txt"
    assert done.error_type is ToolErrorType.INVALID_TOOL_PARAMS
    assert not target.exists()


async def test_modify_with_editor_directly(ws: Path, tmp_path: Path) -> None:
    tool = WriteFileTool(Config(ws))
    assert is_modifiable(tool) and not is_modifiable(ReadFileTool(Config(ws)))
    params = {"file_path": str(ws / ".bashrc"), "content": "proposed"}
    assert await modify_with_editor(tool, params, AbortSignal.never()) is None
    editor, log = make_editor(tmp_path, 'printf "mine" > "$last"')
    updated = await modify_with_editor(tool, params, AbortSignal.never(), [editor])
    assert updated == {
        "file_path": str(ws / ".bashrc"),
        "content": "mine",
        "ai_proposed_content": "proposed",
        "modified_by_user": True,
    }
    new_path, _old = log.read_text().splitlines()
    assert os.path.basename(new_path).startswith("qwen-tools-modify-.bashrc-new-")
    assert_temp_files_removed(log)
