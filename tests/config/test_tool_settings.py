"""The typed view of the settings (``_config.tool_settings``), approval modes and folder trust."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from qwen_tools.config.settings import SettingScope, SettingsError, load_settings
from qwen_tools.config.tool_settings import (
    ApprovalMode,
    FileFilteringSettings,
    McpServerConfig,
    parse_tool_settings,
)
from support.settings_layout import Layout, write

# -- typed view and errors -------------------------------------------------------------------


def test_parse_tool_settings_reads_every_key(layout: Layout) -> None:
    write(
        layout.user_file,
        {
            "tools": {
                "core": ["read_file", "edit"],
                "exclude": ["x"],
                "allowed": ["y"],
                "discoveryCommand": "d",
                "callCommand": "c",
                "approvalMode": "AUTO_EDIT",
                "truncateToolOutputThreshold": -1,
                "truncateToolOutputLines": 50.0,
                "toolOutputBatchBudget": 1234,
                "useRipgrep": False,
                "shell": {"defaultTimeoutMs": 3000},
                "sandbox": True,
                "webSearch": {"provider": [{"type": "tavily"}], "default": "tavily"},
            },
            "mcp": {"serverCommand": "srv", "allowed": ["a*", "", "a*", "b"], "excluded": ["z"]},
            "context": {
                "fileFiltering": {
                    "respectGitIgnore": False,
                    "respectQwenIgnore": False,
                    "customIgnoreFiles": [".myignore"],
                },
                "includeDirectories": ["../lib"],
            },
            "permissions": {"allow": ["Read"], "ask": ["Bash"], "deny": ["Write"]},
            "mcpServers": {
                "full": {
                    "command": "node",
                    "args": ["s.js"],
                    "env": {"A": "1", "PORT": 8080, "FLAG": True},
                    "cwd": "/srv",
                    "headers": {"X": "y"},
                    "timeout": 30000,
                    "trust": True,
                    "includeTools": ["t1"],
                    "excludeTools": ["t2"],
                    "description": "full server",
                    "oauth": {"enabled": True},
                    "discoveryTimeoutMs": 1000,
                }
            },
        },
    )
    s = parse_tool_settings(layout.load())
    assert s.core == ("read_file", "edit")
    assert (s.exclude, s.allowed) == (("x",), ("y",))
    assert (s.discovery_command, s.call_command) == ("d", "c")
    assert s.approval_mode is ApprovalMode.AUTO_EDIT
    assert s.truncate_tool_output_threshold == -1
    assert s.truncate_tool_output_lines == 50
    assert s.tool_output_batch_budget == 1234
    assert s.use_ripgrep is False
    assert s.shell_default_timeout_ms == 3000
    assert s.sandbox == "default"
    assert s.web_search == {"provider": [{"type": "tavily"}], "default": "tavily"}
    assert s.mcp_server_command == "srv"
    assert s.mcp_allowed == ("a*", "b")
    assert s.mcp_excluded == ("z",)
    assert s.file_filtering == FileFilteringSettings(False, False, (".myignore",))
    assert s.include_directories == ("../lib",)
    assert (s.permissions_allow, s.permissions_ask, s.permissions_deny) == (
        ("Read",),
        ("Bash",),
        ("Write",),
    )
    assert s.mcp_servers["full"] == McpServerConfig(
        command="node",
        args=("s.js",),
        env={"A": "1", "PORT": "8080", "FLAG": "true"},
        cwd="/srv",
        headers={"X": "y"},
        timeout=30000,
        trust=True,
        include_tools=("t1",),
        exclude_tools=("t2",),
        description="full server",
        extra={"oauth": {"enabled": True}, "discoveryTimeoutMs": 1000},
    )
    assert s.mcp_servers["full"].transport == "stdio"
    assert s.trusted is True


def test_defaults_match_qwen_code(layout: Layout) -> None:
    s = parse_tool_settings(layout.load())
    assert s.core is None
    assert s.approval_mode is None
    assert s.truncate_tool_output_threshold == 25000
    assert s.truncate_tool_output_lines == 1000
    assert s.tool_output_batch_budget == 200000
    assert s.use_ripgrep is True
    assert s.mcp_allowed is None
    assert s.file_filtering.custom_ignore_files == (".agentignore", ".aiignore")
    assert s.shell_default_timeout_ms == 120000
    assert s.sandbox is None


@pytest.mark.parametrize(
    ("tools", "expected_core", "expected_sandbox", "expected_mcp_allowed"),
    [
        ({"core": [], "sandbox": False}, None, None, None),
        ({"sandbox": "podman"}, None, "podman", None),
    ],
)
def test_empty_core_is_unset_and_sandbox_normalised(
    layout: Layout,
    tools: dict[str, Any],
    expected_core: Any,
    expected_sandbox: Any,
    expected_mcp_allowed: Any,
) -> None:
    write(layout.user_file, {"tools": tools})
    s = parse_tool_settings(layout.load())
    assert s.core == expected_core
    assert s.sandbox == expected_sandbox
    assert s.mcp_allowed == expected_mcp_allowed


def test_sandbox_network_defaults_off_and_reads_a_boolean(layout: Layout) -> None:
    assert parse_tool_settings(layout.load()).sandbox_network is False
    write(layout.user_file, {"tools": {"sandbox": "bwrap", "sandboxNetwork": True}})
    s = parse_tool_settings(layout.load())
    assert (s.sandbox, s.sandbox_network) == ("bwrap", True)
    write(layout.user_file, {"tools": {"sandboxNetwork": "yes"}})
    with pytest.raises(SettingsError) as info:
        parse_tool_settings(layout.load())
    assert info.value.key == "tools.sandboxNetwork"


def test_empty_mcp_allowed_admits_nothing(layout: Layout) -> None:
    write(layout.user_file, {"mcp": {"allowed": []}})
    assert parse_tool_settings(layout.load()).mcp_allowed == ()


def test_wrong_type_names_file_and_key(layout: Layout) -> None:
    write(layout.user_file, {"tools": {"truncateToolOutputThreshold": 100}})
    write(layout.workspace_file, {"tools": {"truncateToolOutputThreshold": "abc"}})
    with pytest.raises(SettingsError) as info:
        parse_tool_settings(layout.load())
    err = info.value
    assert err.key == "tools.truncateToolOutputThreshold"
    assert err.path == layout.workspace_file
    assert str(err) == (
        'Invalid value for "tools.truncateToolOutputThreshold" in '
        f'{layout.workspace_file}: expected an integer, got "abc"'
    )


@pytest.mark.parametrize(
    ("settings", "key", "fragment"),
    [
        ({"tools": {"approvalMode": "sometimes"}}, "tools.approvalMode", '"sometimes"'),
        ({"tools": {"approvalMode": 3}}, "tools.approvalMode", "expected a string"),
        ({"tools": {"useRipgrep": "yes"}}, "tools.useRipgrep", "expected a boolean"),
        ({"tools": {"core": "read_file"}}, "tools.core", "expected a list of strings"),
        ({"tools": {"exclude": [1]}}, "tools.exclude", "expected a list of strings"),
        ({"tools": {"toolOutputBatchBudget": True}}, "tools.toolOutputBatchBudget", "integer"),
        ({"tools": {"truncateToolOutputLines": 1.5}}, "tools.truncateToolOutputLines", "1.5"),
        ({"tools": {"sandbox": 1}}, "tools.sandbox", "a boolean or a string"),
        ({"tools": {"webSearch": []}}, "tools.webSearch", "expected an object"),
        ({"tools": {"shell": {"defaultTimeoutMs": "1s"}}}, "tools.shell.defaultTimeoutMs", "integer"),
        ({"tools": "everything"}, "tools", "expected an object"),
        ({"context": {"fileFiltering": {"respectGitIgnore": "no"}}}, "context.fileFiltering.respectGitIgnore", "boolean"),
        ({"mcp": {"allowed": "a"}}, "mcp.allowed", "list of strings"),
        ({"permissions": {"deny": [{"x": 1}]}}, "permissions.deny", "list of strings"),
        ({"mcpServers": []}, "mcpServers", "expected an object"),
    ],
)  # fmt: skip
def test_bad_values_raise_with_file_and_key(
    layout: Layout, settings: dict[str, Any], key: str, fragment: str
) -> None:
    write(layout.user_file, settings)
    with pytest.raises(SettingsError) as info:
        parse_tool_settings(layout.load())
    assert info.value.key == key
    assert info.value.path == layout.user_file
    assert str(info.value).startswith(f'Invalid value for "{key}" in {layout.user_file}: ')
    assert fragment in str(info.value)


def test_unknown_keys_are_kept_and_ignored(layout: Layout) -> None:
    write(
        layout.user_file,
        {
            "$version": 4,
            "ui": {"theme": 42},
            "futureFeature": [1, {"x": None}],
            "tools": {"someNewKnob": {"deep": True}, "eager": "not-a-list", "core": ["edit"]},
            "mcp": {"toolIdleTimeoutMs": "later"},
            "model": "unknown-shape",
        },
    )
    loaded = layout.load()
    assert loaded.merged["futureFeature"] == [1, {"x": None}]
    assert loaded.merged["ui"] == {"theme": 42}
    assert parse_tool_settings(loaded).core == ("edit",)


# -- approval mode ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "mode"),
    [
        ("plan", ApprovalMode.PLAN),
        ("default", ApprovalMode.DEFAULT),
        ("auto-edit", ApprovalMode.AUTO_EDIT),
        ("auto_edit", ApprovalMode.AUTO_EDIT),
        ("AutoEdit", ApprovalMode.AUTO_EDIT),
        ("YOLO", ApprovalMode.YOLO),
        (" Plan ", ApprovalMode.PLAN),
        ("auto", ApprovalMode.AUTO),
        ("AUTO", ApprovalMode.AUTO),
    ],
)
def test_approval_mode_parse(text: str, mode: ApprovalMode) -> None:
    assert ApprovalMode.parse(text) is mode


@pytest.mark.parametrize("text", ["sometimes", "", "auto-accept", "yolo!"])
def test_approval_mode_parse_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="plan, default, auto-edit, auto, yolo"):
        ApprovalMode.parse(text)


def test_approval_mode_from_settings(layout: Layout) -> None:
    write(layout.user_file, {"tools": {"approvalMode": "auto"}})
    assert parse_tool_settings(layout.load()).approval_mode is ApprovalMode.AUTO
    write(layout.user_file, {"tools": {"approvalMode": "autoedit"}})
    assert parse_tool_settings(layout.load()).approval_mode is ApprovalMode.AUTO_EDIT


# -- folder trust and the home directory -----------------------------------------------------


def _enable_trust(layout: Layout, rules: dict[str, str] | None) -> None:
    write(layout.user_file, {"security": {"folderTrust": {"enabled": True}}, "tools": {"callCommand": "user"}})  # fmt: skip
    write(layout.workspace_file, {"tools": {"callCommand": "workspace", "approvalMode": "yolo"}})
    if rules is not None:
        write(layout.qwen_home / "trustedFolders.json", rules)


def test_trust_disabled_by_default_keeps_workspace(layout: Layout) -> None:
    write(layout.workspace_file, {"tools": {"callCommand": "workspace"}})
    write(layout.qwen_home / "trustedFolders.json", {str(layout.project): "DO_NOT_TRUST"})
    loaded = layout.load()
    assert loaded.trusted is True
    assert loaded.get("tools.callCommand") == "workspace"


def test_untrusted_folder_drops_workspace_settings(layout: Layout) -> None:
    _enable_trust(layout, {str(layout.project): "DO_NOT_TRUST"})
    loaded = layout.load()
    assert loaded.trusted is False
    assert loaded.get("tools.callCommand") == "user"
    assert SettingScope.WORKSPACE not in [f.scope for f in loaded.files]
    assert loaded.origin("tools.callCommand") == layout.user_file
    settings = parse_tool_settings(loaded)
    assert settings.trusted is False
    assert settings.call_command == "user"


def test_untrusted_folder_caps_approval_mode_from_settings(layout: Layout) -> None:
    _enable_trust(layout, {str(layout.project): "DO_NOT_TRUST"})
    write(layout.user_file, {"security": {"folderTrust": {"enabled": True}}, "tools": {"approvalMode": "yolo"}})  # fmt: skip
    assert parse_tool_settings(layout.load()).approval_mode is ApprovalMode.DEFAULT
    write(layout.user_file, {"security": {"folderTrust": {"enabled": True}}, "tools": {"approvalMode": "plan"}})  # fmt: skip
    assert parse_tool_settings(layout.load()).approval_mode is ApprovalMode.PLAN


def test_no_matching_trust_rule_means_untrusted(layout: Layout) -> None:
    _enable_trust(layout, None)
    assert layout.load().trusted is False


@pytest.mark.parametrize(
    "rules",
    [
        pytest.param({"{project}": "TRUST_FOLDER"}, id="folder"),
        pytest.param({"{work}": "TRUST_FOLDER"}, id="ancestor"),
        pytest.param({"{work}/sibling": "TRUST_PARENT"}, id="parent-of-sibling"),
        pytest.param({"{work}": "DO_NOT_TRUST", "{project}": "TRUST_FOLDER"}, id="deeper-wins"),
    ],
)
def test_trusted_folder_keeps_workspace_settings(layout: Layout, rules: dict[str, str]) -> None:
    work = layout.project.parent
    _enable_trust(
        layout,
        {k.format(project=layout.project, work=work): v for k, v in rules.items()},
    )
    loaded = layout.load()
    assert loaded.trusted is True
    assert loaded.get("tools.callCommand") == "workspace"
    assert parse_tool_settings(loaded).approval_mode is ApprovalMode.YOLO


def test_distrust_wins_a_tie_and_deeper_distrust_wins(layout: Layout) -> None:
    work = layout.project.parent
    _enable_trust(layout, {str(work): "TRUST_FOLDER", str(layout.project): "DO_NOT_TRUST"})
    assert layout.load().trusted is False
    _enable_trust(layout, {f"{layout.project}/x": "TRUST_PARENT", str(layout.project): "DO_NOT_TRUST"})  # fmt: skip
    assert layout.load().trusted is False


def test_workspace_cannot_enable_or_disable_trust_for_itself(layout: Layout) -> None:
    write(layout.workspace_file, {"security": {"folderTrust": {"enabled": True}}, "tools": {"callCommand": "ws"}})  # fmt: skip
    loaded = layout.load()
    assert loaded.trusted is True
    assert loaded.get("tools.callCommand") == "ws"


def test_malformed_trust_file_is_an_error(layout: Layout) -> None:
    _enable_trust(layout, None)
    write(layout.qwen_home / "trustedFolders.json", "[")
    with pytest.raises(SettingsError) as info:
        layout.load()
    assert info.value.path == layout.qwen_home / "trustedFolders.json"


def test_project_dir_equal_to_home_skips_workspace_file(layout: Layout) -> None:
    write(layout.user_file, {"tools": {"exclude": ["a"]}, "mcp": {"allowed": ["s"]}})
    loaded = layout.load(workspace=layout.home)
    assert [f.scope for f in loaded.files] == [
        SettingScope.SYSTEM_DEFAULTS,
        SettingScope.USER,
        SettingScope.SYSTEM,
    ]
    # Read once only: concat arrays would otherwise double.
    assert loaded.get("mcp.allowed") == ["s"]


def test_qwen_home_elsewhere_still_skips_home_dir_workspace(layout: Layout, tmp_path: Path) -> None:
    custom_home = tmp_path / "custom-qwen"
    write(custom_home / "settings.json", {"tools": {"callCommand": "custom"}})
    write(layout.home / ".qwen" / "settings.json", {"tools": {"callCommand": "legacy"}})
    loaded = load_settings(layout.home, qwen_home_dir=custom_home, env=layout.env)
    assert loaded.get("tools.callCommand") == "custom"
    assert SettingScope.WORKSPACE not in [f.scope for f in loaded.files]
