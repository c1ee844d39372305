"""The ``serve`` command line: help, usage errors, a missing SDK, bad settings."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from .conftest import EXE


def run(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(EXE), *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=60
    )


def test_help_lists_the_options(ws: Path, env: dict[str, str]) -> None:
    helped = run(["serve", "--help"], env, ws)
    assert helped.returncode == 0
    for option in ("--transport", "--host", "--port", "--approval-mode", "--cwd"):
        assert option in helped.stdout
    assert "serve" in run(["--help"], env, ws).stdout


def test_usage_errors(ws: Path, env: dict[str, str]) -> None:
    for args in (["--port", "70000"], ["--port", "http"], ["--transport", "sse"]):
        done = run(["serve", *args], env, ws)
        assert done.returncode == 2 and done.stdout == "", args


def test_missing_sdk_is_explained(ws: Path, env: dict[str, str]) -> None:
    probe = (
        "import sys; sys.modules['mcp'] = None; "
        "from qwen_tools.cli.main import main; sys.exit(main(['serve']))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], env=env, cwd=ws, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert "pip install 'qwen-tools[mcp]'" in done.stderr and done.stdout == ""


def test_bad_settings_exit_3(ws: Path, env: dict[str, str]) -> None:
    (ws / ".qwen").mkdir()
    (ws / ".qwen" / "settings.json").write_text('{"tools": {"approvalMode": 42}}')
    done = run(["serve"], env, ws)
    assert done.returncode == 3 and "settings.json" in done.stderr and done.stdout == ""
