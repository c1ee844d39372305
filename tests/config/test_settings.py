"""Tests for settings.json loading (``_config.settings``) and the typed view (``_config.tool_settings``)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from qwen_tools._config.settings import LoadedSettings, SettingScope, SettingsError, load_settings
from qwen_tools._config.tool_settings import (
    ApprovalMode,
    FileFilteringSettings,
    McpServerConfig,
    ToolSettings,
    parse_tool_settings,
)


@dataclass
class Layout:
    """A fake machine: home with ``.qwen``, a project, and the system settings directory."""

    home: Path
    qwen_home: Path
    project: Path
    etc: Path
    env: dict[str, str]

    @property
    def user_file(self) -> Path:
        return self.qwen_home / "settings.json"

    @property
    def workspace_file(self) -> Path:
        return self.project / ".qwen" / "settings.json"

    @property
    def system_file(self) -> Path:
        return self.etc / "settings.json"

    @property
    def defaults_file(self) -> Path:
        return self.etc / "system-defaults.json"

    def load(self, workspace: Path | None = None) -> LoadedSettings:
        return load_settings(workspace or self.project, qwen_home_dir=self.qwen_home, env=self.env)


@pytest.fixture
def layout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Layout:
    home = tmp_path / "home"
    project = tmp_path / "work" / "project"
    etc = tmp_path / "etc"
    for directory in (home / ".qwen", project, etc):
        directory.mkdir(parents=True)
    env = {
        "HOME": str(home),
        "QWEN_CODE_SYSTEM_SETTINGS_PATH": str(etc / "settings.json"),
        "QWEN_CODE_SYSTEM_DEFAULTS_PATH": str(etc / "system-defaults.json"),
    }
    for name, value in env.items():  # belt and braces: never read the real /etc
        monkeypatch.setenv(name, value)
    return Layout(home, home / ".qwen", project, etc, env)


def write(path: Path, content: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return path


# -- files and precedence ------------------------------------------------------------------


def test_missing_files_give_defaults(layout: Layout) -> None:
    loaded = layout.load()
    assert loaded.merged == {}
    assert loaded.trusted is True
    assert [f.scope for f in loaded.files] == [
        SettingScope.SYSTEM_DEFAULTS,
        SettingScope.USER,
        SettingScope.WORKSPACE,
        SettingScope.SYSTEM,
    ]
    assert not any(f.exists for f in loaded.files)
    assert loaded.files[0].path == layout.defaults_file
    assert loaded.files[2].path == layout.workspace_file
    assert parse_tool_settings(loaded) == ToolSettings()


def test_system_defaults_path_defaults_to_dir_of_system_settings(layout: Layout) -> None:
    del layout.env["QWEN_CODE_SYSTEM_DEFAULTS_PATH"]
    write(layout.defaults_file, {"tools": {"callCommand": "from-defaults"}})
    loaded = layout.load()
    assert loaded.files[0].path == layout.etc / "system-defaults.json"
    assert loaded.get("tools.callCommand") == "from-defaults"


def test_precedence_across_all_four_scopes(layout: Layout) -> None:
    write(layout.defaults_file, {"tools": {"a": "defaults", "b": "defaults", "c": "defaults", "d": "defaults"}})  # fmt: skip
    write(layout.user_file, {"tools": {"b": "user", "c": "user", "d": "user"}})
    write(layout.workspace_file, {"tools": {"c": "workspace", "d": "workspace"}})
    write(layout.system_file, {"tools": {"d": "system"}})
    loaded = layout.load()
    assert loaded.merged["tools"] == {"a": "defaults", "b": "user", "c": "workspace", "d": "system"}
    assert loaded.origin("tools.a") == layout.defaults_file
    assert loaded.origin("tools.b") == layout.user_file
    assert loaded.origin("tools.c") == layout.workspace_file
    assert loaded.origin("tools.d") == layout.system_file
    assert loaded.origin("tools.nope") is None
    assert loaded.origin("tools") == layout.system_file
    assert all(f.exists for f in loaded.files)


def test_get_with_default_and_path_tuple(layout: Layout) -> None:
    write(layout.user_file, {"mcpServers": {"my.server": {"command": "x"}}, "tools": {"n": None}})
    loaded = layout.load()
    assert loaded.get("tools.missing", 7) == 7
    assert loaded.get("tools.n", 7) is None
    assert loaded.get(("mcpServers", "my.server", "command")) == "x"
    assert loaded.get("mcpServers.my.server.command") is None
    assert loaded.origin(("mcpServers", "my.server")) == layout.user_file


def test_deep_merge_of_objects_and_scalar_replacement(layout: Layout) -> None:
    write(
        layout.user_file, {"tools": {"shell": {"pager": "less", "showColor": True}}, "x": {"y": 1}}
    )
    write(layout.workspace_file, {"tools": {"shell": {"showColor": False, "defaultTimeoutMs": 5}}, "x": 3})  # fmt: skip
    merged = layout.load().merged
    assert merged["tools"]["shell"] == {"pager": "less", "showColor": False, "defaultTimeoutMs": 5}
    assert merged["x"] == 3


def test_array_strategies(layout: Layout) -> None:
    write(
        layout.user_file,
        {
            "tools": {"core": ["read_file", "grep"], "exclude": ["a", "b"], "visible": ["v"]},
            "mcp": {"allowed": ["s1", "s2"], "excluded": ["e1"]},
            "context": {"includeDirectories": ["/one", "/two"]},
            "permissions": {"allow": ["Read", "Bash(ls)"], "deny": ["Edit"]},
        },
    )
    write(
        layout.workspace_file,
        {
            "tools": {"core": ["edit"], "exclude": ["b", "c", "a"], "visible": "w"},
            "mcp": {"allowed": ["s2", "s3"], "excluded": ["e1"]},
            "context": {"includeDirectories": ["/two"]},
            "permissions": {"allow": ["Bash(ls)", "Write"], "ask": ["Shell"], "deny": ["Edit"]},
        },
    )
    write(layout.system_file, {"permissions": {"deny": ["Edit", "WebFetch"]}})
    merged = layout.load().merged
    assert merged["tools"]["core"] == ["edit"]  # replace
    assert merged["tools"]["exclude"] == ["a", "b", "c"]  # union, order kept
    assert merged["tools"]["visible"] == ["v", "w"]  # a scalar joins a union array
    assert merged["mcp"]["allowed"] == ["s1", "s2", "s2", "s3"]  # concat keeps duplicates
    assert merged["mcp"]["excluded"] == ["e1", "e1"]
    assert merged["context"]["includeDirectories"] == ["/one", "/two", "/two"]
    assert merged["permissions"] == {
        "allow": ["Read", "Bash(ls)", "Write"],
        "ask": ["Shell"],
        "deny": ["Edit", "WebFetch"],
    }


def test_mcp_servers_shallow_merge(layout: Layout) -> None:
    write(
        layout.user_file,
        {
            "mcpServers": {
                "alpha": {"command": "node", "args": ["a.js"], "env": {"K": "v"}},
                "beta": {"httpUrl": "https://beta.example/mcp"},
            }
        },
    )
    write(layout.workspace_file, {"mcpServers": {"alpha": {"url": "https://alpha.example/sse"}}})
    loaded = layout.load()
    assert loaded.merged["mcpServers"] == {
        "alpha": {"url": "https://alpha.example/sse"},
        "beta": {"httpUrl": "https://beta.example/mcp"},
    }
    servers = parse_tool_settings(loaded).mcp_servers
    assert servers["alpha"].transport == "sse"
    assert servers["alpha"].command is None
    assert servers["alpha"].args == ()
    assert servers["beta"].transport == "http"


def test_merge_does_not_alias_file_data(layout: Layout) -> None:
    write(layout.user_file, {"tools": {"exclude": ["a"]}, "mcpServers": {"s": {"command": "x"}}})
    loaded = layout.load()
    loaded.merged["tools"]["exclude"].append("z")
    loaded.merged["mcpServers"]["s"]["command"] = "changed"
    user = loaded.files[1]
    assert user.data == {"tools": {"exclude": ["a"]}, "mcpServers": {"s": {"command": "x"}}}


# -- file format -----------------------------------------------------------------------------


def test_jsonc_comments_and_bom(layout: Layout) -> None:
    text = (
        "\ufeff// leading comment\n"
        "{\n"
        '  "tools": { // trailing comment\n'
        '    "callCommand": "http://example.com/x", /* inline */\n'
        '    "discoveryCommand": "echo \\"//not a comment\\" /* nor this */"\n'
        "  },\n"
        "  /* multi\n     line */\n"
        '  "mcp": {"serverCommand": "run"}\n'
        "}\n"
    )
    write(layout.user_file, text)
    loaded = layout.load()
    assert loaded.get("tools.callCommand") == "http://example.com/x"
    assert loaded.get("tools.discoveryCommand") == 'echo "//not a comment" /* nor this */'
    assert loaded.get("mcp.serverCommand") == "run"


def test_trailing_comma_is_rejected(layout: Layout) -> None:
    write(layout.user_file, '{"tools": {"core": ["a",]}}')
    with pytest.raises(SettingsError) as info:
        layout.load()
    assert info.value.path == layout.user_file


def test_malformed_json_names_the_file_and_position(layout: Layout) -> None:
    # Comments before the error must not shift the reported line and column.
    write(layout.workspace_file, '{ /* a\n comment */ "tools": {\n /*x*/ "core": [1 2]\n  }\n}')
    with pytest.raises(SettingsError) as info:
        layout.load()
    err = info.value
    assert err.path == layout.workspace_file
    assert err.key is None
    assert str(err).startswith(f"Malformed JSON in {layout.workspace_file}: line 3 column 19: ")
    assert "\n" not in str(err)


@pytest.mark.parametrize("scope_file", ["defaults_file", "user_file", "system_file"])
def test_malformed_json_in_any_scope_is_an_error(layout: Layout, scope_file: str) -> None:
    path = write(getattr(layout, scope_file), "{oops")
    with pytest.raises(SettingsError, match="Malformed JSON in") as info:
        layout.load()
    assert info.value.path == path
    assert path.read_text(encoding="utf-8") == "{oops"  # never reset or backed up


@pytest.mark.parametrize("content", ["[1, 2]", '"text"', "3", ""])
def test_file_that_is_not_an_object_is_an_error(layout: Layout, content: str) -> None:
    write(layout.user_file, content)
    with pytest.raises(SettingsError) as info:
        layout.load()
    assert info.value.path == layout.user_file
    assert str(layout.user_file) in str(info.value)


def test_nan_is_not_json(layout: Layout) -> None:
    write(layout.user_file, '{"tools": {"toolOutputBatchBudget": NaN}}')
    with pytest.raises(SettingsError, match="Malformed JSON"):
        layout.load()


def test_unreadable_settings_path_is_an_error(layout: Layout) -> None:
    layout.user_file.mkdir()
    with pytest.raises(SettingsError) as info:
        layout.load()
    assert info.value.path == layout.user_file


# -- environment variables -------------------------------------------------------------------


def test_env_var_expansion(layout: Layout) -> None:
    layout.env.update({"TOKEN": "s3cret", "DIR": "/opt/x", "SESSION_ID": "sid", "QWEN_CODE_SESSION_ID": "q"})  # fmt: skip
    write(
        layout.user_file,
        {
            "mcpServers": {
                "srv": {
                    "command": "$DIR/bin/server",
                    "args": ["--token=${TOKEN}", "$UNSET_VAR", "${UNSET_TOO}", "${TOKEN:-x}"],
                    "headers": {"Authorization": "Bearer $TOKEN"},
                    "env": {"SID": "$SESSION_ID", "QSID": "${QWEN_CODE_SESSION_ID}"},
                    "timeout": 5,
                }
            },
            "$DIR": "key names are not expanded",
        },
    )
    loaded = layout.load()
    srv = loaded.merged["mcpServers"]["srv"]
    assert srv["command"] == "/opt/x/bin/server"
    assert srv["args"] == ["--token=s3cret", "$UNSET_VAR", "${UNSET_TOO}", "${TOKEN:-x}"]
    assert srv["headers"] == {"Authorization": "Bearer s3cret"}
    assert srv["env"] == {"SID": "$SESSION_ID", "QSID": "${QWEN_CODE_SESSION_ID}"}
    assert srv["timeout"] == 5
    assert "$DIR" in loaded.merged


def test_env_defaults_to_os_environ(layout: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QT_SETTINGS_TEST_VAR", "from-os")
    write(layout.user_file, {"tools": {"callCommand": "$QT_SETTINGS_TEST_VAR"}})
    loaded = load_settings(layout.project, qwen_home_dir=layout.qwen_home)
    assert loaded.get("tools.callCommand") == "from-os"


# -- v1 migration ----------------------------------------------------------------------------


def test_v1_flat_keys_are_migrated_in_memory(layout: Layout) -> None:
    v1 = {
        "coreTools": ["read_file"],
        "excludeTools": ["run_shell_command"],
        "allowedTools": ["glob"],
        "toolDiscoveryCommand": "discover",
        "toolCallCommand": "call",
        "mcpServerCommand": "mcp-server",
        "allowMCPServers": ["a"],
        "excludeMCPServers": ["b"],
        "approvalMode": "yolo",
        "useRipgrep": False,
        "fileFiltering": {"respectGitIgnore": False},
        "includeDirectories": ["/inc"],
        "autoAccept": True,
        "sandbox": "docker",
        "mcpServers": {"s": {"command": "x"}},
    }
    text = json.dumps(v1)
    write(layout.user_file, text)
    loaded = layout.load()
    assert loaded.merged == {
        "tools": {
            "core": ["read_file"],
            "exclude": ["run_shell_command"],
            "allowed": ["glob"],
            "discoveryCommand": "discover",
            "callCommand": "call",
            "approvalMode": "yolo",
            "useRipgrep": False,
            "autoAccept": True,
            "sandbox": "docker",
        },
        "mcp": {"serverCommand": "mcp-server", "allowed": ["a"], "excluded": ["b"]},
        "context": {"fileFiltering": {"respectGitIgnore": False}, "includeDirectories": ["/inc"]},
        "mcpServers": {"s": {"command": "x"}},
    }
    assert layout.user_file.read_text(encoding="utf-8") == text  # never written back
    settings = parse_tool_settings(loaded)
    assert settings.core == ("read_file",)
    assert settings.approval_mode is ApprovalMode.YOLO
    assert settings.file_filtering.respect_git_ignore is False
    assert settings.sandbox == "docker"


def test_v1_key_does_not_override_v2_key(layout: Layout) -> None:
    write(layout.user_file, {"approvalMode": "yolo", "tools": {"approvalMode": "plan"}})
    loaded = layout.load()
    assert loaded.merged == {"tools": {"approvalMode": "plan"}}


def test_v1_keys_merge_with_other_scopes(layout: Layout) -> None:
    write(layout.user_file, {"excludeTools": ["a"], "includeDirectories": ["/u"]})
    write(layout.workspace_file, {"tools": {"exclude": ["b", "a"]}, "context": {"includeDirectories": ["/w"]}})  # fmt: skip
    settings = parse_tool_settings(layout.load())
    assert settings.exclude == ("a", "b")
    assert settings.include_directories == ("/u", "/w")


def test_versioned_v2_file_is_not_migrated(layout: Layout) -> None:
    write(layout.user_file, {"$version": 4, "coreTools": ["read_file"]})
    loaded = layout.load()
    assert loaded.get("tools.core") is None
    assert loaded.get("coreTools") == ["read_file"]


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
        ("auto", ApprovalMode.DEFAULT),
        ("AUTO", ApprovalMode.DEFAULT),
    ],
)
def test_approval_mode_parse(text: str, mode: ApprovalMode) -> None:
    assert ApprovalMode.parse(text) is mode


@pytest.mark.parametrize("text", ["sometimes", "", "auto-accept", "yolo!"])
def test_approval_mode_parse_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="plan, default, auto-edit, yolo"):
        ApprovalMode.parse(text)


def test_approval_mode_from_settings(layout: Layout) -> None:
    write(layout.user_file, {"tools": {"approvalMode": "auto"}})
    assert parse_tool_settings(layout.load()).approval_mode is ApprovalMode.DEFAULT
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
