"""A fake machine for the settings tests: home, project and system settings directories."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from qwen_tools.config.settings import LoadedSettings, load_settings


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


def make_layout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Layout:
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
