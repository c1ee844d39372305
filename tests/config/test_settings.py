"""settings.json loading (``_config.settings``): files, precedence, format, env vars, v1 keys."""

from __future__ import annotations

import json

import pytest

from qwen_tools.config.settings import SettingScope, SettingsError, load_settings
from qwen_tools.config.tool_settings import (
    ApprovalMode,
    ToolSettings,
    parse_tool_settings,
)
from support.settings_layout import Layout, write

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
