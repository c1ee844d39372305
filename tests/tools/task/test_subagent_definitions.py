"""Subagent definition files: parsing, validation messages, precedence and reloading."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from qwen_tools.config.config import Config
from qwen_tools.subagents.definitions import (
    SubagentDefinition,
    SubagentDefinitionError,
    parse_subagent_definition,
)
from qwen_tools.tools.task.catalog import SubagentLoader

PROMPT = "You review code carefully."


def parse(front: str, body: str = PROMPT) -> SubagentDefinition:
    return parse_subagent_definition(f"---\n{front}\n---\n{body}\n", "/x/a.md", "project")


def parse_error(front: str, body: str = PROMPT) -> str:
    with pytest.raises(SubagentDefinitionError) as caught:
        parse(front, body)
    return caught.value.message


def write_agent(folder: Path, file: str, front: str, body: str = PROMPT) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / file
    path.write_text(f"---\n{front}\n---\n{body}\n", encoding="utf-8")
    return path


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = Path(os.path.realpath(tmp_path)) / "qwen-home"
    path.mkdir()
    return path


@pytest.fixture
def loader(ws: Path, home: Path) -> SubagentLoader:
    return SubagentLoader(Config(ws, home_dir=home))


# -- parsing ------------------------------------------------------------------------------------


def test_comma_separated_tools_and_trimmed_body() -> None:
    definition = parse_subagent_definition(
        "---\nname: rev\ndescription: Reviews\ntools: read_file, grep_search\n---\n"
        "\n  You review code carefully.  \n",
        "/p/.qwen/agents/rev.md",
        "project",
    )
    assert definition.name == "rev"
    assert definition.description == "Reviews"
    assert definition.tools == ("read_file", "grep_search")
    assert definition.system_prompt == PROMPT
    assert definition.file_path == "/p/.qwen/agents/rev.md"
    assert definition.level == "project"


def test_bom_and_crlf_are_normalised() -> None:
    text = "\ufeff---\r\nname: rev\r\ndescription: Reviews\r\n---\r\nLine one here.\r\nTwo\r\n"
    definition = parse_subagent_definition(text, "/x/rev.md", "user")
    assert definition.system_prompt == "Line one here.\nTwo"


@pytest.mark.parametrize(
    "text",
    ["no front matter at all\n", "---\nname: rev\ndescription: d\n---", "---\n---\nbody here\n"],
)
def test_missing_front_matter(text: str) -> None:
    with pytest.raises(SubagentDefinitionError) as caught:
        parse_subagent_definition(text, "/x/a.md", "project")
    assert caught.value.message == (
        "Failed to parse subagent file: Invalid format: missing YAML frontmatter"
    )


def test_missing_name_and_description() -> None:
    assert parse_error("description: d") == (
        'Failed to parse subagent file: Missing "name" in frontmatter'
    )
    assert parse_error("name: rev\ndescription: ''") == (
        'Failed to parse subagent file: Missing "description" in frontmatter'
    )


@pytest.mark.parametrize(
    ("name", "errors"),
    [
        ("-bad", "Name cannot start with a hyphen or underscore"),
        ("bad_", "Name cannot end with a hyphen or underscore"),
        ("main", '"main" is a reserved name and cannot be used'),
        ("Config", '"Config" is a reserved name and cannot be used'),
        ("a", "Name must be at least 2 characters long"),
        ("x" * 51, "Name must be 50 characters or less"),
        (
            "'-a b'",
            "Name can only contain letters, numbers, hyphens, and underscores, "
            "Name cannot start with a hyphen or underscore",
        ),
    ],
)
def test_name_rules(name: str, errors: str) -> None:
    message = parse_error(f"name: {name}\ndescription: d")
    assert message == f"Failed to parse subagent file: Validation failed: {errors}"


def test_unicode_letters_are_valid_names() -> None:
    assert parse("name: 审查-bot\ndescription: d").name == "审查-bot"


def test_all_errors_in_reference_order() -> None:
    message = parse_error("name: main\ndescription: '  '\nmodel: ' '", body="short")
    assert message == (
        "Failed to parse subagent file: Validation failed: "
        '"main" is a reserved name and cannot be used, '
        "Description is required and cannot be empty, "
        "System prompt must be at least 10 characters long, "
        "Model must be a non-empty string"
    )
    assert parse_error("name: rev\ndescription: d", body="   ").endswith(
        "Validation failed: System prompt is required and cannot be empty"
    )


def test_run_config_checks() -> None:
    assert parse_error("name: rev\ndescription: d\nrunConfig:\n  max_turns: 2.5").endswith(
        "Validation failed: max_turns must be an integer"
    )
    assert parse_error(
        "name: rev\ndescription: d\nrunConfig:\n  max_turns: 'x'\n  max_time_minutes: 0"
    ).endswith(
        "Validation failed: max_time_minutes must be greater than 0, max_turns must be a number"
    )
    assert parse_error("name: rev\ndescription: d\ntools: ['', read_file]").endswith(
        "Validation failed: Tool name cannot be empty"
    )


def test_max_turns_sources() -> None:
    both = parse("name: rev\ndescription: d\nmaxTurns: '7'\nrunConfig:\n  max_turns: 3")
    assert both.effective_max_turns == 7
    legacy = parse("name: rev\ndescription: d\nrunConfig:\n  max_turns: 3")
    assert legacy.effective_max_turns == 3
    for bad in ("0", "1.5", "abc", "true"):
        dropped = parse(f"name: rev\ndescription: d\nmaxTurns: {bad}")
        assert dropped.max_turns is None


def test_models() -> None:
    assert parse("name: rev\ndescription: d\nmodel: qwen3-coder").model_override == "qwen3-coder"
    assert parse("name: rev\ndescription: d\nmodel: inherit").model_override is None
    legacy = parse("name: rev\ndescription: d\nmodelConfig:\n  model: older")
    assert legacy.model == "older"


def test_yaml_core_schema() -> None:
    definition = parse("name: no\ndescription: 2024-01-02\nmaxTurns: 017\ntools: [on, off]")
    assert definition.name == "no"
    assert definition.description == "2024-01-02"
    assert definition.max_turns == 17
    assert definition.tools == ("on", "off")
    assert parse("name: rev\ndescription: true").description == "true"


def test_nulls_are_dropped() -> None:
    definition = parse("name: rev\ndescription: d\nmodel: null\ntools: [read_file, ~, glob]")
    assert definition.model is None
    assert definition.tools == ("read_file", "glob")


def test_invalid_yaml_falls_back_to_line_reader() -> None:
    definition = parse(
        "name: rev\ndescription: Use it: for reviews, always\ntools:\n  - read_file\n  - glob\n"
        'runConfig:\n  max_turns: 4\nmodel: "quoted: model"'
    )
    assert definition.description == "Use it: for reviews, always"
    assert definition.tools == ("read_file", "glob")
    assert definition.effective_max_turns == 4
    assert definition.model == "quoted: model"


def test_optional_fields(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="qwen_tools")
    definition = parse(
        "name: rev\ndescription: d\ncolor: magenta\nbackground: 'true'\n"
        "permissionMode: acceptEdits\nmcpServers: {a: {command: x}, b: 1}\nhooks: {Stop: []}"
    )
    assert definition.color is None
    assert "invalid color 'magenta'" in caplog.text
    assert definition.background is True
    assert definition.approval_mode == "auto-edit"
    assert definition.mcp_servers == {"a": {"command": "x"}}
    assert definition.hooks == {"Stop": []}
    explicit = parse("name: rev\ndescription: d\napprovalMode: plan\npermissionMode: auto")
    assert explicit.approval_mode == "plan"


def test_invalid_approval_mode_rejects_the_file() -> None:
    valid = "Valid values: plan, default, auto-edit, auto, yolo, bubble"
    assert parse_error("name: rev\ndescription: d\napprovalMode: fast") == (
        f'Failed to parse subagent file: Invalid "approvalMode" value "fast". {valid}'
    )
    assert parse_error("name: rev\ndescription: d\napprovalMode: 3") == (
        'Failed to parse subagent file: Invalid "approvalMode" value: expected a string, '
        f"got number. {valid}"
    )


def test_executor_blocks() -> None:
    good = parse(
        "name: ext\ndescription: d\nexecutor: {kind: acp, command: ' claude ', args: [-v]}"
    )
    assert good.executor == {"kind": "acp", "command": "claude", "args": ["-v"]}
    with pytest.raises(SubagentDefinitionError) as caught:
        parse("name: ext\ndescription: d\nexecutor: {kind: shell, command: x}")
    assert caught.value.message.startswith("Agent file /x/a.md has an invalid executor block")
    assert caught.value.refused_name == "ext"
    with pytest.raises(SubagentDefinitionError) as caught:
        parse("name: ext\ndescription: d\nexecutor: {kind: acp, command: x}", body="short")
    assert "it declares an executor but failed to load (Validation failed: System prompt" in (
        caught.value.message
    )
    with pytest.raises(SubagentDefinitionError) as caught:
        parse("name: box\ndescription: d\nexecutionBackend: vm")
    assert caught.value.message == (
        'Agent definition has an invalid executionBackend declaration: expected "container". '
        "Refusing to run it locally."
    )


# -- the catalogue ------------------------------------------------------------------------------


def test_builtins_only_without_files(loader: SubagentLoader) -> None:
    catalog = loader.catalog()
    assert catalog.names == ["general-purpose", "Explore"]
    assert catalog.skipped == []


def test_precedence_and_case_insensitive_lookup(
    loader: SubagentLoader, ws: Path, home: Path
) -> None:
    write_agent(ws / ".qwen" / "agents", "rev.md", "name: rev\ndescription: project rev")
    write_agent(home / "agents", "rev.md", "name: REV\ndescription: user rev")
    write_agent(home / "agents", "helper.md", "name: helper\ndescription: user helper")
    write_agent(home / "agents", "gp.md", "name: General-Purpose\ndescription: my own gp")
    catalog = loader.catalog()
    assert catalog.names == ["rev", "General-Purpose", "helper", "Explore"]  # files in name order
    found = catalog.resolve("Rev")
    assert found is not None and found.description == "project rev"
    assert found.level == "project"
    general = catalog.resolve("general-purpose")
    assert general is not None and general.level == "user"
    assert catalog.resolve("nobody") is None


def test_invalid_files_are_skipped_and_logged(
    loader: SubagentLoader, ws: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="qwen_tools")
    folder = ws / ".qwen" / "agents"
    write_agent(folder, "ok.md", "name: ok-agent\ndescription: fine")
    bad = write_agent(folder, "bad.md", "name: -bad\ndescription: d")
    (folder / "plain.md").write_text("just text\n")
    (folder / "notes.txt").write_text("---\nname: txt\n---\nignored because of the extension\n")
    (folder / "dir.md").mkdir()
    catalog = loader.catalog()
    assert catalog.names == ["ok-agent", "general-purpose", "Explore"]
    reasons = {Path(item.path).name: item.reason for item in catalog.skipped}
    assert reasons["bad.md"] == (
        "Failed to parse subagent file: Validation failed: "
        "Name cannot start with a hyphen or underscore"
    )
    assert reasons["plain.md"].endswith("Invalid format: missing YAML frontmatter")
    assert reasons["dir.md"].startswith("Failed to read subagent file: ")
    assert f"Skipped invalid file {bad}: Failed to parse subagent file" in caplog.text


def test_refused_executor_blocks_lower_levels(loader: SubagentLoader, ws: Path, home: Path) -> None:
    write_agent(ws / ".qwen" / "agents", "ext.md", "name: helper\ndescription: d\nexecutor: 5")
    write_agent(home / "agents", "helper.md", "name: helper\ndescription: user helper")
    catalog = loader.catalog()
    with pytest.raises(SubagentDefinitionError) as caught:
        catalog.resolve("HELPER")
    assert "has an invalid executor block" in caught.value.message


def test_project_level_skipped_when_it_is_the_user_folder(tmp_path: Path) -> None:
    root = Path(os.path.realpath(tmp_path))
    write_agent(root / ".qwen" / "agents", "rev.md", "name: rev\ndescription: d")
    catalog = SubagentLoader(Config(root, home_dir=root / ".qwen")).catalog()
    rev = catalog.resolve("rev")
    assert rev is not None and rev.level == "user"
    assert [level for level, _ in catalog.levels] == ["user", "builtin"]


def test_reloads_when_files_change(loader: SubagentLoader, home: Path) -> None:
    first = loader.catalog()
    assert loader.catalog() is first
    path = write_agent(home / "agents", "late.md", "name: late\ndescription: added later")
    second = loader.catalog()
    assert second.names[0] == "late"
    path.write_text(f"---\nname: late\ndescription: edited text\n---\n{PROMPT}\n")
    os.utime(path, ns=(1, 1))
    third = loader.catalog()
    late = third.resolve("late")
    assert late is not None and late.description == "edited text"
    path.unlink()
    assert loader.catalog().resolve("late") is None
