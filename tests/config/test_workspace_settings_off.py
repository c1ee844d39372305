"""``workspace_settings=False``: the workspace's own files configure nothing (the session pool's
untrusted templates), while every other settings file still applies; the default is unchanged."""

from __future__ import annotations

import json
from pathlib import Path

from qwen_tools import Session
from qwen_tools.config.settings import SettingScope, load_settings
from qwen_tools.tools.lsp.enabled import lsp_server_configs
from qwen_tools.tools.task.catalog import SubagentLoader
from support.settings_layout import Layout


def _write(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")


def test_the_workspace_file_is_not_read_and_the_others_are(layout: Layout) -> None:
    _write(layout.user_file, {"tools": {"approvalMode": "plan"}, "a": "user"})
    _write(layout.workspace_file, {"tools": {"approvalMode": "yolo"}, "b": "workspace"})
    _write(layout.system_file, {"c": "system"})
    default = layout.load()
    assert default.workspace_settings and default.get("b") == "workspace"
    assert default.get("tools.approvalMode") == "yolo"
    off = load_settings(
        layout.project, qwen_home_dir=layout.qwen_home, env=layout.env, workspace_settings=False
    )
    assert not off.workspace_settings
    assert [f.scope for f in off.files] == [
        SettingScope.SYSTEM_DEFAULTS,
        SettingScope.USER,
        SettingScope.SYSTEM,
    ]
    assert off.get("b") is None and off.get("tools.approvalMode") == "plan"
    assert (off.get("a"), off.get("c")) == ("user", "system")


def test_a_session_without_workspace_settings(layout: Layout) -> None:
    server = {"command": "sh", "args": ["-c", "exit 0"]}
    _write(layout.workspace_file, {"mcpServers": {"ws": server}, "lsp": {"enabled": True}})
    _write(layout.user_file, {"lsp": {"enabled": True}})
    _write(layout.project / ".mcp.json", {"mcpServers": {"project": server}})
    _write(layout.project / ".lsp.json", {"python": {"command": "pylsp"}})
    agent = "---\nname: mine\ndescription: d\n---\nYou help with the project.\n"
    _write(layout.project / ".qwen" / "agents" / "mine.md", agent)

    local = Session(layout.project, env=layout.env)
    assert set(local.settings.mcp_servers) == {"ws", "project"}
    assert [c.name for c in lsp_server_configs(local.config)] == ["pylsp"]
    assert "mine" in SubagentLoader(local.config).catalog().names
    local.close_sync()

    pooled = Session(layout.project, env=layout.env, workspace_settings=False)
    assert pooled.settings.mcp_servers == {} and not pooled.config.workspace_settings
    assert lsp_server_configs(pooled.config) == []
    assert "mine" not in SubagentLoader(pooled.config).catalog().names
    pooled.close_sync()
