"""Real workspaces for tests: git repositories and the qwen-diff fixture, prepared as its harness does."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
# Recorded answers of Qwen Code 0.24.4 and the harness that records them (copied from the reference).
QWEN_DIFF = REPO / "tests" / "data" / "qwen-diff"
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


def run_qwen_diff_harness(
    script: Path, cli: Path, root: Path, *options: str, timeout: float = 240
) -> dict[str, Any]:
    """Drive ``cli`` with the qwen-diff harness on ``script`` and the fixture; its results.

    ``options`` go to ``run_qwen.py`` as they are (``--settings FILE``, ``--grep-backend``...);
    everything it creates stays under ``root``. Fails the test when the harness fails.
    """
    out = root / "ours.json"
    done = subprocess.run(
        [
            sys.executable,
            str(QWEN_DIFF / "run_qwen.py"),
            str(script),
            str(QWEN_DIFF / "fixture"),
            str(out),
            *options,
            "--qwen",
            str(cli),
            "--tmp-root",
            str(root),
            "--timeout",
            "120",
        ],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    results: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return results
