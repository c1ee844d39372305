"""The CLI's way to open a :class:`~qwen_tools.Session` from a command's arguments.

``call`` opens it with MCP servers connected on demand (a built-in or discovered tool never waits
for an MCP server); listing commands, ``serve``, ``run`` and ``chat`` connect them all first
(they declare every tool). ``call --session NAME`` opens a named session.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from qwen_tools.config.config import Config
from qwen_tools.config.settings import SettingsError
from qwen_tools.config.tool_settings import ApprovalMode

if TYPE_CHECKING:
    from collections.abc import Iterable

    from qwen_tools.session.session import McpMode, Session


class CliConfigError(Exception):
    """Settings could not be loaded; the message is ready to print."""


def _include_dirs(args: argparse.Namespace) -> list[str]:
    dirs: list[str] = []
    for entry in getattr(args, "include_directories", None) or []:
        dirs.extend(d.strip() for d in entry.split(",") if d.strip())
    return dirs


def load_config(args: argparse.Namespace) -> Config:
    """Load the settings for ``--cwd`` (and ``--approval-mode``); raises :class:`CliConfigError`.

    The read tools may read the outputs saved by earlier calls (the project temp dir, a
    read-only root: :func:`~qwen_tools.execution.persisted_output.allow_reading_saved_output`).
    """
    mode = getattr(args, "approval_mode", None)
    try:
        config = Config.load(
            getattr(args, "cwd", None),
            include_directories=_include_dirs(args),
            approval_mode=ApprovalMode.parse(mode) if mode else None,
        )
    except SettingsError as exc:
        raise CliConfigError(str(exc)) from None
    except (OSError, ValueError) as exc:
        raise CliConfigError(f"Cannot open the workspace: {exc}") from None
    from qwen_tools.execution.persisted_output import allow_reading_saved_output

    allow_reading_saved_output(config)
    return config


def person_at_terminal() -> bool:
    """Whether a person can answer prompts (stdin and stderr are terminals): ``call`` then
    accepts the plan-mode tools, and ``tools`` and ``schema`` list them."""
    return sys.stdin.isatty() and sys.stderr.isatty()


def open_session(
    args: argparse.Namespace,
    *,
    interactive: bool = True,
    mcp: McpMode = "connect",
    name: str | None = None,
    exclude_tools: Iterable[str] = (),
) -> Session:
    """The command's session for ``--cwd`` (not entered yet); raises :class:`CliConfigError`.

    ``interactive``: whether a person can answer prompts (headless sessions do without the
    plan-mode tools, as Qwen Code's do). The tools of ``tools.discoveryCommand`` are discovered
    when the session is entered (problems are logged on stderr, never fatal). The read tools
    may read the outputs saved by earlier calls (the project temp dir, a read-only root).
    """
    from qwen_tools.session.session import Session

    mode = getattr(args, "approval_mode", None)
    try:
        return Session(
            getattr(args, "cwd", None),
            include_directories=_include_dirs(args),
            approval_mode=ApprovalMode.parse(mode) if mode else None,
            interactive=interactive,
            mcp=mcp,
            name=name,
            exclude_tools=exclude_tools,
            experimental_lsp=bool(getattr(args, "experimental_lsp", False)),
        )
    except SettingsError as exc:
        raise CliConfigError(str(exc)) from None
    except (OSError, ValueError) as exc:
        raise CliConfigError(f"Cannot open the workspace: {exc}") from None


def report_config_error(error: CliConfigError) -> None:
    """Print a settings problem without a traceback."""
    print(f"qwen-tools: {error}", file=sys.stderr)
