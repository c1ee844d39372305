"""Real directory trees and git repositories for the ignore-rule tests."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable
from pathlib import Path


def git(*args: str, cwd: Path) -> None:
    """Run git in ``cwd`` without the user's or the system's git configuration."""
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", *args], cwd=cwd, check=True, env=env, capture_output=True)


def make(root: Path, files: Iterable[str], **contents: str) -> None:
    """Create empty files (``dir/`` entries create directories) plus named files with text."""
    for name in files:
        target = root / name
        if name.endswith("/"):
            target.mkdir(parents=True, exist_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.touch()
    for name, text in contents.items():
        (root / name.replace("__", "/")).parent.mkdir(parents=True, exist_ok=True)
        (root / name.replace("__", "/")).write_text(text)
