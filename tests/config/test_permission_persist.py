"""Writing an "Always allow" rule into a settings file: kept text, narrow scope, refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qwen_tools.config.permission_persist import (
    PermissionPersistError,
    persist_allow_rules,
    scope_settings_file,
)

RULE = "Bash(git commit *)"


def _project(ws: Path) -> tuple[Path, Path]:
    return scope_settings_file("project", ws, ws.parent / "home" / ".qwen")


def test_a_missing_file_is_created_with_the_rule(tmp_path: Path) -> None:
    path, root = _project(tmp_path)
    assert persist_allow_rules(path, root, [RULE]) is True
    assert json.loads(path.read_text()) == {"permissions": {"allow": [RULE]}}
    assert persist_allow_rules(path, root, [RULE]) is False  # listed once


def test_comments_and_other_keys_stay(tmp_path: Path) -> None:
    path, root = _project(tmp_path)
    path.parent.mkdir()
    path.write_text(
        '{\n  // my model\n  "model": {"name": "x"},\n'
        '  "permissions": {\n    "deny": ["Bash(rm *)"], /* keep */\n    "allow": ["Read"]\n  }\n}\n'
    )
    persist_allow_rules(path, root, [RULE, "Read"])
    text = path.read_text()
    assert "// my model" in text and "/* keep */" in text
    assert text.startswith('{\n  // my model\n  "model": {"name": "x"},')
    data = json.loads(text.replace("// my model", "").replace("/* keep */", ""))
    assert data == {
        "model": {"name": "x"},
        "permissions": {"deny": ["Bash(rm *)"], "allow": ["Read", RULE]},
    }


def test_user_scope_writes_the_user_file(tmp_path: Path) -> None:
    home = tmp_path / "home" / ".qwen"
    path, root = scope_settings_file("user", tmp_path / "ws", home)
    assert path == home / "settings.json" and root == home.parent
    persist_allow_rules(path, root, [RULE])
    assert json.loads(path.read_text())["permissions"]["allow"] == [RULE]
    assert not (tmp_path / "ws").exists()


def test_a_settings_file_linked_outside_is_refused(tmp_path: Path) -> None:
    ws, outside = tmp_path / "ws", tmp_path / "outside.json"
    outside.write_text('{"x": 1}\n')
    (ws / ".qwen").mkdir(parents=True)
    (ws / ".qwen" / "settings.json").symlink_to(outside)
    path, root = _project(ws)
    with pytest.raises(PermissionPersistError, match="outside") as caught:
        persist_allow_rules(path, root, [RULE])
    assert "Nothing was written" in str(caught.value)
    assert outside.read_text() == '{"x": 1}\n'
    assert (ws / ".qwen" / "settings.json").is_symlink()


def test_a_qwen_dir_linked_outside_is_refused(tmp_path: Path) -> None:
    ws, elsewhere = tmp_path / "ws", tmp_path / "elsewhere"
    ws.mkdir()
    elsewhere.mkdir()
    (ws / ".qwen").symlink_to(elsewhere)
    path, root = _project(ws)
    with pytest.raises(PermissionPersistError, match="outside"):
        persist_allow_rules(path, root, [RULE])
    assert list(elsewhere.iterdir()) == []


def test_a_link_inside_the_workspace_is_followed(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / ".qwen").mkdir(parents=True)
    (ws / "shared.json").write_text("{}\n")
    (ws / ".qwen" / "settings.json").symlink_to(ws / "shared.json")
    path, root = _project(ws)
    persist_allow_rules(path, root, [RULE])
    assert (ws / ".qwen" / "settings.json").is_symlink()
    assert json.loads((ws / "shared.json").read_text())["permissions"]["allow"] == [RULE]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('{"permissions": {"allow": [', "not a valid settings file"),
        ("[1, 2]", "not a valid settings file"),
        ('{"permissions": []}', '"permissions" is not an object'),
        ('{"permissions": {"allow": "Read"}}', '"permissions.allow" is not a list'),
    ],
)
def test_a_bad_file_is_left_alone(tmp_path: Path, text: str, reason: str) -> None:
    path, root = _project(tmp_path)
    path.parent.mkdir()
    path.write_text(text)
    with pytest.raises(PermissionPersistError, match=reason) as caught:
        persist_allow_rules(path, root, [RULE])
    assert str(caught.value).startswith(f"Could not save the permission rule to {path}: ")
    assert path.read_text() == text


def test_an_unreadable_file_is_left_alone(tmp_path: Path) -> None:
    """A settings "file" that cannot be read (a directory here: the tests may run as root,
    who reads any mode) gets one message and nothing is written."""
    path, root = _project(tmp_path)
    path.mkdir(parents=True)
    with pytest.raises(PermissionPersistError, match="cannot read it"):
        persist_allow_rules(path, root, [RULE])
    assert path.is_dir() and list(path.iterdir()) == []
