"""``ShellParams``: the params of ``run_shell_command``, typed as its schema declares them."""

from __future__ import annotations

from typing import Required, TypedDict

__all__ = ["ShellParams"]


class ShellParams(TypedDict, total=False):
    """``run_shell_command``'s params: the command, and how, where and how long to run it."""

    command: Required[str]
    is_background: bool
    timeout: int
    description: str
    directory: str
