"""Confined rg still honours the ignore files it reads outside the workspace, as the Python
engine does: ignore files of the workspace's parent directories (up to the repository's top)
and git's global excludes file (found through ``core.excludesFile``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from qwen_tools.config.config import Config
from qwen_tools.contract.abort import AbortSignal
from qwen_tools.tools.grep.tool import GrepTool
from support.workspaces import git_init


@pytest.fixture
def nested(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A workspace one level below a repository's top, with a user git config of its own."""
    root = Path(os.path.realpath(tmp_path))
    home = root / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[core]\n\texcludesFile = ~/global-ignore\n")
    (home / "global-ignore").write_text("*.globally\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    repo = root / "repo"
    repo.mkdir()
    git_init(repo)
    (repo / ".gitignore").write_text("by-parent.txt\n")
    (repo / ".ignore").write_text("by-parent-ignore.txt\n")
    (repo / ".git" / "info" / "exclude").write_text("by-exclude.txt\n")
    ws = repo / "sub"
    ws.mkdir()
    for name in (
        "kept.txt",
        "by-parent.txt",
        "by-parent-ignore.txt",
        "by-exclude.txt",
        "x.globally",
    ):
        (ws / name).write_text("needle\n")
    return ws


@pytest.mark.parametrize("engine", ["ripgrep", "python"])
async def test_outside_ignore_files_apply(nested: Path, engine: str) -> None:
    tool = GrepTool(Config(nested), engine=engine)  # type: ignore[arg-type]
    result = await tool.build({"pattern": "needle"}).execute(AbortSignal())
    assert result.llm_content == (
        'Found 1 match for pattern "needle" in the workspace directory:\n---\n'
        f"{nested}/kept.txt:1:needle"
    )


async def test_a_worker_started_earlier_uses_the_current_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Python engine's idle worker keeps the environment it started with: the global
    excludes file is found in ours, at each search."""
    warm = Path(os.path.realpath(tmp_path)) / "warm"
    warm.mkdir()
    (warm / "a.txt").write_text("needle\n")
    tool = GrepTool(Config(warm), engine="python")
    await tool.build({"pattern": "needle"}).execute(AbortSignal())  # a worker is now idle
    home = Path(os.path.realpath(tmp_path)) / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[core]\n\texcludesFile = ~/global-ignore\n")
    (home / "global-ignore").write_text("*.globally\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    git_init(warm)
    (warm / "x.globally").write_text("needle\n")
    result = await tool.build({"pattern": "needle"}).execute(AbortSignal())
    assert result.llm_content == (
        'Found 1 match for pattern "needle" in the workspace directory:\n---\n'
        f"{warm}/a.txt:1:needle"
    )
