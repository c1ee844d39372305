"""``save_memory`` through the real pipeline: memory files in a temp Qwen home and project."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from qwen_tools import (
    ApprovalMode,
    Config,
    ToolCallConfirmationDetails,
    ToolCallRequest,
    ToolConfirmationOutcome,
    ToolConfirmationPayload,
    ToolErrorType,
    ToolRegistry,
    run_tool_call,
)
from qwen_tools.config.settings import load_settings
from qwen_tools.execution.call_types import CompletedToolCall
from qwen_tools.tools.save_memory.memory_file import add_memory_entry
from qwen_tools.tools.save_memory.tool import SaveMemoryTool


class Answers:
    """A confirmation handler that gives one answer and records what it was shown."""

    def __init__(self, outcome: ToolConfirmationOutcome = ToolConfirmationOutcome.PROCEED_ONCE):
        self.outcome = outcome
        self.shown: list[ToolCallConfirmationDetails] = []

    async def __call__(
        self, request: ToolCallRequest, details: ToolCallConfirmationDetails
    ) -> tuple[ToolConfirmationOutcome, ToolConfirmationPayload | None]:
        self.shown.append(details)
        return self.outcome, None


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return Path(os.path.realpath(tmp_path)) / "qwen-home"


@pytest.fixture
def config(ws: Path, home: Path) -> Config:
    return Config(ws, home_dir=home)


async def save(config: Config, args: object, answers: Answers | None = None) -> CompletedToolCall:
    registry = ToolRegistry([SaveMemoryTool(config)])
    return await run_tool_call(
        registry, config, ToolCallRequest("save_memory", args), confirm=answers or Answers()
    )


# -- the file format ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "fact", "after"),
    [
        ("", "I like tea", "## Qwen Added Memories\n- I like tea\n"),
        ("# Notes", "x", "# Notes\n\n## Qwen Added Memories\n- x\n"),
        ("# Notes\n", "x", "# Notes\n\n## Qwen Added Memories\n- x\n"),
        ("# Notes\n\n", "x", "# Notes\n\n## Qwen Added Memories\n- x\n"),
        ("# N\r\n", "x", "# N\r\n\n## Qwen Added Memories\n- x\n"),
        ("a\n", "- - dash", "a\n\n## Qwen Added Memories\n- dash\n"),
        ("", "  --x  ", "## Qwen Added Memories\n- x\n"),
        (
            "# Top\n## Qwen Added Memories\n- a\n## Other\nkeep\n",
            "b",
            "# Top\n## Qwen Added Memories\n- a\n- b\n\n## Other\nkeep\n",
        ),
        (
            "## Qwen Added Memories\n\n- a\n\n\n## Other\nkeep\n\n\n",
            "b",
            "## Qwen Added Memories\n- a\n- b\n\n## Other\nkeep\n",
        ),
        ("## Qwen Added Memories\n- a", "b", "## Qwen Added Memories\n- a\n- b\n"),
        ("## Qwen Added Memories", "b", "## Qwen Added Memories\n- b\n"),
    ],
)
def test_memory_entries_follow_the_reference_layout(before: str, fact: str, after: str) -> None:
    assert add_memory_entry(before, fact) == after


# -- through the pipeline -------------------------------------------------------------------


async def test_global_save_creates_the_file_after_showing_its_diff(
    config: Config, home: Path
) -> None:
    answers = Answers()
    done = await save(config, {"fact": "I like tea", "scope": "global"}, answers)
    assert done.status == "success"
    assert done.response_text == 'Okay, I\'ve remembered that in global memory: "I like tea"'
    assert done.display == done.response_text
    target = home / "QWEN.md"
    assert target.read_bytes() == b"## Qwen Added Memories\n- I like tea\n"
    (details,) = answers.shown
    assert details.type == "edit"
    assert details.title == f"Confirm Memory Save: {target} (global)"
    assert details.file_path == str(target)
    assert details.original_content == ""
    assert details.new_content == "## Qwen Added Memories\n- I like tea\n"
    assert "+- I like tea" in details.file_diff
    assert details.file_diff.startswith("Index: QWEN.md\n")


async def test_existing_file_keeps_every_other_byte(config: Config, home: Path) -> None:
    home.mkdir()
    original = b"# Mine\n\xff\xfe raw bytes\n\n## Qwen Added Memories\n- old\n\n## Later\ntail\n"
    (home / "QWEN.md").write_bytes(original)
    done = await save(config, {"fact": "- new fact", "scope": "global"})
    assert done.status == "success"
    assert done.response_text.endswith('in global memory: "- new fact"')
    assert (home / "QWEN.md").read_bytes() == (
        b"# Mine\n\xff\xfe raw bytes\n\n## Qwen Added Memories\n- old\n- new fact\n\n## Later\ntail\n"
    )


async def test_project_scope_writes_the_project_file(config: Config, ws: Path, home: Path) -> None:
    done = await save(config, {"fact": "uses tabs", "scope": "project"})
    assert done.response_text == 'Okay, I\'ve remembered that in project memory: "uses tabs"'
    assert (ws / "QWEN.md").read_text() == "## Qwen Added Memories\n- uses tabs\n"
    assert not (home / "QWEN.md").exists()


async def test_cancel_leaves_the_file_alone(config: Config, home: Path) -> None:
    done = await save(
        config, {"fact": "nope", "scope": "global"}, Answers(ToolConfirmationOutcome.CANCEL)
    )
    assert done.status == "cancelled"
    assert not (home / "QWEN.md").exists()


async def test_always_allow_covers_that_file_and_scope_only(config: Config, ws: Path) -> None:
    first = Answers(ToolConfirmationOutcome.PROCEED_ALWAYS)
    await save(config, {"fact": "one", "scope": "global"}, first)
    config.approval_mode = ApprovalMode.DEFAULT  # the generic edit rule switched to auto-edit
    again = Answers()
    done = await save(config, {"fact": "two", "scope": "global"}, again)
    assert done.status == "success" and again.shown == []
    other = Answers()
    await save(config, {"fact": "three", "scope": "project"}, other)
    assert len(other.shown) == 1
    assert (ws / "QWEN.md").read_text() == "## Qwen Added Memories\n- three\n"


async def test_without_scope_the_model_is_asked_to_choose(config: Config, home: Path) -> None:
    answers = Answers()
    done = await save(config, {"fact": "where?"}, answers)
    assert done.status == "success"
    assert done.response_text == (
        "Please specify where to save this memory:\n\n"
        f"Global: {home / 'QWEN.md'} (shared across all projects)\n"
        f"Project: {config.target_dir / 'QWEN.md'} (current project only)"
    )
    assert answers.shown == []
    assert not home.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"fact": "  \n"}, 'Parameter "fact" must be a non-empty string.'),
        ({}, "params must have required property 'fact'"),
        ({"fact": "x", "scope": "team"}, "params/scope must be equal to one of the allowed values"),
    ],
)
async def test_invalid_params_are_refused(config: Config, args: object, message: str) -> None:
    done = await save(config, args)
    assert done.status == "error"
    assert done.error_type is ToolErrorType.INVALID_TOOL_PARAMS
    assert done.response_text == message


async def test_unwritable_memory_file_is_a_typed_error(config: Config, home: Path) -> None:
    (home / "QWEN.md").mkdir(parents=True)
    config.approval_mode = ApprovalMode.YOLO
    done = await save(config, {"fact": "x", "scope": "global"})
    assert done.status == "error"
    assert done.error_type is ToolErrorType.MEMORY_TOOL_EXECUTION_ERROR
    assert done.response_text == (
        "[MemoryTool] Failed to add memory entry: EISDIR: illegal operation on a directory, "
        f"read '{home / 'QWEN.md'}'"
    )
    assert done.display == f"Error saving memory: {done.response_text}"


async def test_plan_mode_blocks_the_write(config: Config, home: Path) -> None:
    config.approval_mode = ApprovalMode.PLAN
    done = await save(config, {"fact": "x", "scope": "global"})
    assert done.status == "error" and done.error_type is ToolErrorType.EXECUTION_DENIED
    assert not home.exists()


def _loaded(tmp_path: Path, ws: Path, home: Path, file_name: object) -> Config:
    (ws / ".qwen").mkdir()
    (ws / ".qwen" / "settings.json").write_text(json.dumps({"context": {"fileName": file_name}}))
    env = {
        "HOME": str(tmp_path),
        "QWEN_CODE_SYSTEM_SETTINGS_PATH": str(tmp_path / "system.json"),
        "QWEN_CODE_SYSTEM_DEFAULTS_PATH": str(tmp_path / "defaults.json"),
        "QWEN_CODE_TRUSTED_FOLDERS_PATH": str(tmp_path / "trusted.json"),
    }
    loaded = load_settings(ws, qwen_home_dir=home, env=env)
    return Config(ws, home_dir=home, loaded_settings=loaded)


async def test_context_file_name_setting_picks_the_file(
    tmp_path: Path, ws: Path, home: Path
) -> None:
    config = _loaded(tmp_path, ws, home, [" AGENTS.md ", "QWEN.md"])
    done = await save(config, {"fact": "x", "scope": "global"})
    assert done.status == "success"
    assert (home / "AGENTS.md").read_text() == "## Qwen Added Memories\n- x\n"


async def test_a_context_file_name_with_a_path_is_refused(
    tmp_path: Path, ws: Path, home: Path
) -> None:
    config = _loaded(tmp_path, ws, home, "../escape.md")
    done = await save(config, {"fact": "x", "scope": "global"})
    assert done.status == "error"
    assert done.response_text == (
        "Invalid GEMINI.md filename: ../escape.md. Filenames cannot contain path separators "
        "or be '.' or '..'."
    )
    assert not (tmp_path / "escape.md").exists()
