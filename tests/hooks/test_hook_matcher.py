"""Matchers as Qwen Code 0.24.4 reads them (``matchesHookPattern``) and the hooks settings."""

from __future__ import annotations

from pathlib import Path

from qwen_tools.config.settings import load_settings
from qwen_tools.hooks.matcher import matches_hook_pattern, tool_aliases
from qwen_tools.hooks.settings import parse_hook_settings

from .conftest import command_hook, write_hooks


def test_everything_matchers() -> None:
    for matcher in ("", "*", ".*", "  *  "):
        assert matches_hook_pattern(matcher, "write_file")


def test_regexes_are_unanchored() -> None:
    assert matches_hook_pattern("read", "read_file")
    assert matches_hook_pattern("edit", "notebook_edit")
    assert not matches_hook_pattern("^edit$", "notebook_edit")
    assert matches_hook_pattern("(write_file|edit)", "edit")
    assert not matches_hook_pattern("^(?!write_file).*$", "write_file")
    assert matches_hook_pattern("(?!write_file).*", "write_file")


def test_lists_and_stray_pipes() -> None:
    assert matches_hook_pattern("permission_prompt | idle_prompt", "idle_prompt")
    assert not matches_hook_pattern("read_(file|edit)|", "glob")
    assert matches_hook_pattern("read_(file|edit)|", "read_edit")
    assert not matches_hook_pattern("|", "anything")
    assert matches_hook_pattern("^write_file|", "anything")
    assert matches_hook_pattern("foo | *", "bar")


def test_invalid_regex_matches_nothing() -> None:
    assert not matches_hook_pattern("[unclosed", "[unclosed-x")
    assert not matches_hook_pattern("(a", "a")


def test_tool_aliases_match_exactly() -> None:
    aliases = tool_aliases("write_file")
    assert {"Write", "WriteFile"} <= set(aliases)
    assert matches_hook_pattern("Write", "write_file", aliases)
    assert matches_hook_pattern("Write|Edit", "write_file", aliases)
    assert matches_hook_pattern("Bash", "run_shell_command", tool_aliases("run_shell_command"))
    assert not matches_hook_pattern("Read", "grep_search", tool_aliases("grep_search"))


def test_settings_sources_order_and_skips(tmp_path: Path, ws: Path) -> None:
    home = tmp_path / "home" / ".qwen"
    home.mkdir(parents=True)
    (home / "settings.json").write_text(
        '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "user-hook"}]}]}}'
    )
    write_hooks(
        ws,
        {
            "Stop": [
                command_hook("project-hook", timeout=5),
                {"hooks": [{"type": "http", "url": "http://127.0.0.1/"}]},
                {"matcher": "x"},
            ],
            "NoSuchEvent": [command_hook("never")],
            "disabled": ["x"],
        },
    )
    env = {"QWEN_CODE_SYSTEM_SETTINGS_PATH": str(tmp_path / "none.json")}
    loaded = load_settings(ws, qwen_home_dir=home, env=env)
    entries = parse_hook_settings(loaded).for_event("Stop")
    assert [(e.hook.command, e.hook.source, e.hook.timeout_ms) for e in entries] == [
        ("project-hook", "project", 5000),
        ("user-hook", "user", 60000),
    ]
    assert parse_hook_settings(loaded).for_event("NoSuchEvent") == ()
    write_hooks(ws, {"Stop": [command_hook("project-hook")]}, disableAllHooks=True)
    loaded = load_settings(ws, qwen_home_dir=home, env=env)
    assert not parse_hook_settings(loaded)
