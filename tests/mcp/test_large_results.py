"""A very large tool result: saved once, readable where the model is told to read it, shown once.

The model is told to read a saved output with ``read_file``; the saved-output directory (the
project temp dir) is a read-only root of the workspace: read tools accept it, write tools do
not, and a symlink planted there still leads nowhere outside. ``call --json`` shows the bounded
form, never the whole output a second time in ``returnDisplay``.
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from qwen_tools import Config, ToolResult
from qwen_tools.contract.declarative import BaseDeclarativeTool
from qwen_tools.contract.kinds import Kind
from qwen_tools.execution.output_budget import apply_output_budget
from qwen_tools.execution.persisted_output import allow_reading_saved_output, truncate_and_save
from support.cli_env import isolated_env
from support.processes import MARK_VAR, process_guard

EXE = Path(sys.executable).with_name("qwen-tools")
BIG = Path(__file__).parent / "servers" / "big_output_server.py"
SIZE = 10_000_000
SAVED_TO = re.compile(r"Full output saved to: (\S+)")


@pytest.fixture(autouse=True)
def _no_leftovers(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.delenv("QWEN_RUNTIME_DIR", raising=False)
    yield from process_guard(monkeypatch, timeout=10)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / ".qwen").mkdir(parents=True)
    servers = {"big": {"command": sys.executable, "args": [str(BIG)], "trust": True}}
    (root / ".qwen" / "settings.json").write_text(json.dumps({"mcpServers": servers}))
    return root


def run(ws: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = isolated_env(ws.parent, **{MARK_VAR: os.environ[MARK_VAR]})
    return subprocess.run(
        [str(EXE), *args], cwd=ws, env=env, input="", capture_output=True, text=True, timeout=300
    )


def call_json(ws: Path, name: str, args: dict[str, Any], *extra: str) -> dict[str, Any]:
    done = run(ws, "call", name, json.dumps(args), "--json", *extra)
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


@pytest.fixture
def saved(ws: Path) -> tuple[dict[str, Any], Path]:
    """The ``--json`` answer of a 10 MB MCP result, and the file it was saved to."""
    done = run(ws, "call", "big__big", json.dumps({"chars": SIZE}), "--json")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("\n") == 1
    answer: dict[str, Any] = json.loads(done.stdout)
    found = SAVED_TO.search(answer["responseText"])
    assert found is not None, answer["responseText"][:500]
    return answer, Path(found.group(1))


def test_the_answer_shows_the_bounded_form_once(saved: tuple[dict[str, Any], Path]) -> None:
    answer, path = saved
    assert answer["returnDisplay"] == answer["responseText"]
    assert len(json.dumps(answer)) < 3 * 2_000 + 10_000  # three previews of 2,000 and headers
    assert path.read_text().endswith("END-OF-BIG-OUTPUT")


def test_the_saved_file_is_private(saved: tuple[dict[str, Any], Path], ws: Path) -> None:
    _answer, path = saved
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    home_tmp = ws.parent / "home" / ".qwen" / "tmp"
    project_tmp = path.parent.parent
    assert project_tmp.parent == home_tmp
    assert stat.S_IMODE(project_tmp.stat().st_mode) == 0o700
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_read_file_reads_the_saved_output_in_a_later_call(
    saved: tuple[dict[str, Any], Path], ws: Path
) -> None:
    _answer, path = saved
    lines = path.read_text().count("\n") + 1
    head = call_json(ws, "read_file", {"file_path": str(path), "limit": 2})
    assert head["error"] is None, head["responseText"]
    assert "line 000000000" in head["responseText"]
    tail = call_json(ws, "read_file", {"file_path": str(path), "offset": lines - 3, "limit": 5})
    assert tail["error"] is None, tail["responseText"]
    assert "END-OF-BIG-OUTPUT" in tail["responseText"]


def test_the_saved_output_dir_is_not_writable_by_the_tools(
    saved: tuple[dict[str, Any], Path], ws: Path
) -> None:
    _answer, path = saved
    target = path.parent / "planted.txt"
    wrote = call_json(
        ws, "write_file", {"file_path": str(target), "content": "x"}, "--approval-mode", "yolo"
    )
    assert wrote["error"] is not None and not target.exists()
    edited = call_json(
        ws,
        "edit",
        {"file_path": str(path), "old_string": "line 000000000", "new_string": "changed"},
        "--approval-mode",
        "yolo",
    )
    assert edited["error"] is not None
    assert path.read_text().startswith("line 000000000")


def test_a_symlink_planted_in_the_saved_output_dir_leads_nowhere(
    saved: tuple[dict[str, Any], Path], ws: Path, tmp_path: Path
) -> None:
    _answer, path = saved
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET\n")
    link = path.parent / "link.txt"
    link.symlink_to(secret)
    read = call_json(ws, "read_file", {"file_path": str(link)})
    assert read["error"] is not None
    assert "TOP-SECRET" not in json.dumps(read)


# -- in process ---------------------------------------------------------------------------------


def test_the_temp_dir_becomes_a_readonly_root_of_ours(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    config = Config(root, home_dir=tmp_path / "home")
    directory = allow_reading_saved_output(config)
    assert directory == config.get_project_temp_dir()
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    text, saved = truncate_and_save(
        "\n".join(f"row {i}" for i in range(5000)), "demo", directory, threshold=1000, lines=100
    )
    assert saved is not None and saved in text
    assert config.workspace.is_path_readable(saved)
    assert not config.workspace.is_path_within_workspace(saved)
    assert not config.workspace.is_path_readable(directory.parent / "elsewhere.txt")


def test_a_temp_dir_of_ours_open_to_others_is_closed_first(tmp_path: Path) -> None:
    config = Config(tmp_path, home_dir=tmp_path / "home")
    directory = config.get_project_temp_dir()
    directory.mkdir(parents=True)
    directory.chmod(0o777)
    assert allow_reading_saved_output(config) == directory
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700


def test_a_symlinked_temp_dir_is_not_made_readable(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    config = Config(tmp_path / "ws", home_dir=tmp_path / "home")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    directory = config.get_project_temp_dir()
    directory.parent.mkdir(parents=True)
    directory.symlink_to(elsewhere)
    assert allow_reading_saved_output(config) is None
    assert config.workspace.readonly_directories == ()
    assert not config.workspace.is_path_readable(elsewhere / "x")


class _Loud(BaseDeclarativeTool[dict[str, Any]]):
    """A tool whose display repeats its whole (large) output."""

    def __init__(self) -> None:
        super().__init__("loud", "Loud", "Returns a lot.", Kind.OTHER, {"type": "object"})

    def create_invocation(self, params: dict[str, Any]) -> Any:
        raise NotImplementedError


def test_the_output_budget_bounds_a_display_that_repeats_the_output(tmp_path: Path) -> None:
    config = Config(tmp_path, home_dir=tmp_path / "home")
    text = "\n".join(f"row {i} " + "y" * 40 for i in range(100_000))
    budgeted = apply_output_budget(
        _Loud(), "call_1", ToolResult(llm_content=text, return_display=text), config
    )
    assert isinstance(budgeted.llm_content, str) and len(budgeted.llm_content) < 30_000
    assert budgeted.return_display == budgeted.llm_content
    short = apply_output_budget(
        _Loud(), "call_2", ToolResult(llm_content=text, return_display="Returned a lot"), config
    )
    assert short.return_display == "Returned a lot"
