"""Calls run both through a pool (or host) session and through a local ``Session`` on a copy of
the same template, and the comparison of their results (workspace paths normalised)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from qwen_tools.execution.call_types import CompletedToolCall

__all__ = ["TEMPLATE", "calls", "local_env", "normalized"]

TEMPLATE: dict[str, str | bytes] = {
    "src/app.py": "def answer():\n    return 41\n",
    "notes.txt": "alpha\nbeta\ngamma\n",
    "data.bin": b"\x00\x01\x02\xff",
}


def calls(ws: str) -> list[tuple[str, dict[str, Any]]]:
    """Reads, searches, an edit, a write, shell commands, a failure and a refusal-prone call."""
    return [
        ("read_file", {"absolute_path": f"{ws}/notes.txt"}),
        ("read_file", {"absolute_path": f"{ws}/notes.txt", "offset": 1, "limit": 1}),
        ("read_file", {"absolute_path": f"{ws}/missing.txt"}),
        ("read_file", {"absolute_path": "/etc/hostname"}),
        ("list_directory", {"path": ws}),
        ("glob", {"pattern": "**/*.py"}),
        ("grep_search", {"pattern": "return"}),
        ("edit", {"file_path": f"{ws}/src/app.py", "old_string": "41", "new_string": "42"}),
        ("write_file", {"file_path": f"{ws}/new.txt", "content": "fresh\n"}),
        ("run_shell_command", {"command": "cat new.txt && ls src && rm data.bin"}),
        ("run_shell_command", {"command": "exit 3"}),
        ("read_file", {"absolute_path": f"{ws}/src/app.py"}),
    ]


def normalized(done: CompletedToolCall, ws: str) -> tuple[str, str, str | None]:
    """Status, model-facing text and error type, with ``ws`` written ``<WS>``."""
    error = done.error_type.value if done.error_type is not None else None
    return done.status, done.response_text.replace(ws, "<WS>"), error


def local_env(tmp: Path, settings: dict[str, Any]) -> dict[str, str]:
    """An environment for a local ``Session``: its own QWEN_HOME and these system settings."""
    import os

    (tmp / "home").mkdir(parents=True, exist_ok=True)
    system = tmp / "system-settings.json"
    system.write_text(json.dumps(settings), encoding="utf-8")
    env = dict(os.environ)
    env.update(
        QWEN_HOME=str(tmp / "home"),
        QWEN_CODE_SYSTEM_SETTINGS_PATH=str(system),
        QWEN_CODE_SYSTEM_DEFAULTS_PATH=str(tmp / "system-defaults.json"),
    )
    return env
