"""Helpers of the discovery tests: Python scripts in a workspace, and configs that run them."""

from __future__ import annotations

import shlex
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path

from qwen_tools import Config
from qwen_tools.config.tool_settings import ApprovalMode, ToolSettings


def script(ws: Path, name: str, body: str) -> Path:
    """Write a Python script into the workspace."""
    path = ws / name
    path.write_text(textwrap.dedent(body).lstrip())
    return path


def py(path: Path, *args: str) -> str:
    """A command line running ``path`` with this interpreter."""
    return shlex.join([sys.executable, str(path), *args])


def make_config(
    ws: Path,
    *,
    discovery: str | None = None,
    call: str | None = None,
    allowed: Sequence[str] = (),
    exclude: Sequence[str] = (),
    mode: ApprovalMode = ApprovalMode.DEFAULT,
) -> Config:
    """A config on ``ws`` with the given discovery and call commands."""
    settings = ToolSettings(
        discovery_command=discovery,
        call_command=call,
        allowed=tuple(allowed),
        exclude=tuple(exclude),
    )
    return Config(ws, settings=settings, approval_mode=mode, home_dir=ws.parent / "home")
