"""Real workspaces for tests: git repositories and the qwen-diff fixture, prepared as its harness does."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"
QWEN_DIFF = SHARED / "reference" / "qwen-diff"
FIXED_MTIME = 978307200  # 2001-01-01T00:00:00Z, the harness's pinned mtime


def git_init(path: Path) -> None:
    """Make ``path`` a git repository (no commits), isolated from the user's git config."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(path),
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    subprocess.run(
        ["git", "-c", "init.defaultBranch=main", "init", "-q", str(path)],
        check=True,
        env=env,
        stdout=subprocess.DEVNULL,
    )


def prepare_qwen_diff_workspace(ws: Path, fixture: Path = QWEN_DIFF / "fixture") -> None:
    """Copy the fixture writable, rename ``_gitignore``, ``git init``, pin every mtime."""
    for dirpath, _dirnames, filenames in os.walk(fixture):
        target_dir = ws / Path(dirpath).relative_to(fixture)
        target_dir.mkdir(parents=True, exist_ok=True)
        for name in filenames:
            target = target_dir / (".gitignore" if name == "_gitignore" else name)
            shutil.copyfile(Path(dirpath) / name, target)
    git_init(ws)
    for dirpath, _dirnames, filenames in os.walk(ws, topdown=False):
        if ".git" in Path(dirpath).relative_to(ws).parts:
            continue
        for name in filenames:
            os.utime(Path(dirpath) / name, (FIXED_MTIME, FIXED_MTIME))
        os.utime(dirpath, (FIXED_MTIME, FIXED_MTIME))
