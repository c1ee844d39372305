"""Shared pieces for the hook tests: hook scripts on disk, settings that name them, a workspace.

Hook scripts are real programs (Python run by the test's interpreter) written into the test's
tmp dir; each may record what it received on stdin into a file the test reads back.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from support.processes import process_guard


@pytest.fixture(autouse=True)
def _no_leftovers(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    yield from process_guard(monkeypatch, timeout=5.0)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = Path(os.path.realpath(tmp_path)) / "ws"
    (root / ".qwen").mkdir(parents=True)
    (root / "notes.txt").write_text("alpha\n")
    return root


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """Settings lookups that stay inside the test (no real ~/.qwen, no /etc/qwen-code)."""
    home = tmp_path / "home"
    (home / ".qwen").mkdir(parents=True, exist_ok=True)
    return {
        "HOME": str(home),
        "QWEN_HOME": str(home / ".qwen"),
        "QWEN_CODE_SYSTEM_SETTINGS_PATH": str(tmp_path / "system-settings.json"),
        "QWEN_CODE_SYSTEM_DEFAULTS_PATH": str(tmp_path / "system-defaults.json"),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
    }


def hook_script(directory: Path, name: str, body: str) -> str:
    """Write a Python hook program; the shell command that runs it.

    ``body`` runs with ``data`` (the parsed stdin JSON), ``raw`` (the stdin text) and ``record``
    (append ``data`` as one JSON line to ``<name>.jsonl`` next to the script) defined.
    """
    path = directory / f"{name}.py"
    log = directory / f"{name}.jsonl"
    path.write_text(
        "import json, os, sys, time\n"
        "raw = sys.stdin.read()\n"
        "data = json.loads(raw) if raw.strip() else None\n"
        "def record():\n"
        f"    with open({str(log)!r}, 'a') as f:\n"
        "        f.write(json.dumps(data) + '\\n')\n" + body + "\n"
    )
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(path))}"


def records(directory: Path, name: str) -> list[dict[str, Any]]:
    """What a hook script recorded, one input per run."""
    log = directory / f"{name}.jsonl"
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


def write_hooks(ws: Path, hooks: dict[str, Any], **other: Any) -> None:
    """The workspace's ``.qwen/settings.json`` with ``hooks`` (and other top-level keys)."""
    (ws / ".qwen" / "settings.json").write_text(json.dumps({"hooks": hooks, **other}))


def command_hook(command: str, matcher: str | None = None, **extra: Any) -> dict[str, Any]:
    """One definition holding one command hook."""
    definition: dict[str, Any] = {"hooks": [{"type": "command", "command": command, **extra}]}
    if matcher is not None:
        definition["matcher"] = matcher
    return definition
