"""Server configurations read as Qwen Code 0.24.4 reads ``.lsp.json`` (and ``lspServers``)."""

from __future__ import annotations

import json
from pathlib import Path

from qwen_tools.lsp.servers import load_server_configs


def _write(root: Path, data: object) -> None:
    (root / ".lsp.json").write_text(json.dumps(data))


def test_named_after_the_command_with_normalised_extensions(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "python": {
                "command": "pylsp",
                "extensionToLanguage": {".PY": "python", "pyi": "python"},
            },
            "rust": {"transport": "stdio"},  # no command: skipped
            "bad": "not an object",
        },
    )
    (config,) = load_server_configs(tmp_path)
    assert config.name == "pylsp"
    assert config.languages == ("python",)
    assert dict(config.extension_to_language) == {"py": "python", "pyi": "python"}
    assert config.language_for("/x/a.Py") == "python"
    assert config.language_for("/x/a.txt") is None
    assert config.workspace_folder == str(tmp_path.resolve())


def test_without_extension_map_the_language_defaults_apply(tmp_path: Path) -> None:
    _write(tmp_path, {"typescript": {"command": "tsls", "args": ["--stdio", 3]}})
    (config,) = load_server_configs(tmp_path)
    assert config.args == ("--stdio",)
    assert config.language_for("a.tsx") == "typescript"
    assert config.language_for("a.py") is None


def test_lsp_json_replaces_a_settings_server_of_the_same_name(tmp_path: Path) -> None:
    _write(tmp_path, {"python": {"command": "pylsp", "args": ["-v"]}})
    settings = {
        "python": {"command": "pylsp"},
        "go": {"command": "gopls", "trustRequired": False},
    }
    configs = {c.name: c for c in load_server_configs(tmp_path, settings)}
    assert configs["pylsp"].args == ("-v",)
    assert configs["gopls"].origin == "settings (lspServers)"
    # an untrusted folder keeps only servers that do not require trust (never .lsp.json's)
    untrusted = load_server_configs(tmp_path, settings, trusted=False)
    assert [c.name for c in untrusted] == ["gopls"]


def test_lsp_servers_may_name_a_file(tmp_path: Path) -> None:
    (tmp_path / "servers.json").write_text(json.dumps({"c": {"command": "clangd"}}))
    assert [c.name for c in load_server_configs(tmp_path, "servers.json")] == ["clangd"]


def test_values_checked_as_the_reference_checks_them(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "python": {
                "command": "pylsp",
                "workspaceFolder": "../outside",
                "startupTimeout": -5,
                "maxRestarts": 0,
                "restartOnCrash": False,
                "env": {"A": 1, "B": True, "C": {"x": 1}},
                "transport": "TCP",
            }
        },
    )
    (config,) = load_server_configs(tmp_path)
    assert config.workspace_folder == str(tmp_path.resolve())
    assert config.startup_timeout_ms == 10_000
    assert config.max_restarts == 0
    assert config.restart_on_crash is False
    assert dict(config.env) == {"A": "1", "B": "true"}
    assert config.transport == "tcp"


def test_malformed_lsp_json_means_no_servers(tmp_path: Path) -> None:
    (tmp_path / ".lsp.json").write_text("{not json")
    assert load_server_configs(tmp_path) == []
