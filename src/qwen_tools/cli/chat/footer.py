"""The footer under the input box: directory (git branch), model, approval mode, context left.

As Qwen Code's footer: the working directory with ``~`` for the home directory and the git
branch in brackets, then the model, the approval mode and how much of the model's context
window the last request left. The branch is read from ``.git/HEAD`` (no ``git`` process per
redraw). The line is shortened from the left of the directory to fit the terminal's width.
"""

from __future__ import annotations

import os
from pathlib import Path


def git_branch(start: Path) -> str | None:
    """The checked-out branch of the repository holding ``start`` (a short hash if detached)."""
    for directory in (start, *start.parents):
        head = directory / ".git" / "HEAD"
        try:
            text = head.read_text(encoding="utf-8").strip()
        except OSError:
            continue
        if text.startswith("ref: refs/heads/"):
            return text[len("ref: refs/heads/") :]
        return text[:7] or None
    return None


def short_directory(path: Path) -> str:
    """``path`` with the home directory shown as ``~``."""
    home = os.path.expanduser("~")
    text = os.fspath(path)
    if home not in ("", "/") and (text == home or text.startswith(home + os.sep)):
        return "~" + text[len(home) :]
    return text


def context_left(used_tokens: int, window: int) -> str:
    """``97% context left`` (Qwen Code rounds the same way)."""
    if window <= 0:
        return ""
    left = max(0.0, 1 - used_tokens / window) * 100
    return f"{left:.0f}% context left"


def footer_line(
    directory: Path, model: str, mode: str, used_tokens: int, window: int, width: int
) -> tuple[str, str]:
    """The footer's left (directory and branch) and right (model, mode, context) parts, the
    left one shortened (``…`` at its start) so that both fit in ``width`` columns."""
    branch = git_branch(directory)
    left = short_directory(directory) + (f" ({branch})" if branch else "")
    right = "  ".join(
        part for part in (model, f"{mode} mode", context_left(used_tokens, window)) if part
    )
    room = width - len(right) - 3
    if len(left) > room:
        left = "…" + left[len(left) - max(room - 1, 0) :] if room > 1 else ""
    return left, right
