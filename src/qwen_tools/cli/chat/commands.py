"""Slash commands: the table of them, ``/help``, ``/quit``, ``/clear``, ``/tools``, ``/mode``.

The commands about the session (``/stats``, ``/memory``, ``/mcp`` …) live in
:mod:`.session_commands`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from qwen_tools.cli.chat import session_commands as session
from qwen_tools.config.tool_settings import ApprovalMode

if TYPE_CHECKING:
    from rich.console import Console

    from qwen_tools.config.config import Config
    from qwen_tools.registry.registry import ToolRegistry


class CommandHost(session.SessionHost, Protocol):
    """What the commands act on (the chat app)."""

    console: Console
    config: Config
    registry: ToolRegistry

    def new_conversation(self) -> None:
        """Forget the history; the next prompt starts a new conversation."""


@dataclass(frozen=True)
class Command:
    """One slash command: its names, its help line and what it does (``True`` = quit)."""

    names: tuple[str, ...]
    usage: str
    help: str
    run: Callable[[CommandHost, str], bool]


def _help(host: CommandHost, _arg: str) -> bool:
    from rich.table import Table

    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold cyan", no_wrap=True)
    table.add_column()
    for command in COMMANDS:
        table.add_row(command.usage, command.help)
    for keys, text in KEYS:
        table.add_row(keys, text)
    host.console.print(table)
    return False


def _quit(_host: CommandHost, _arg: str) -> bool:
    return True


def _clear(host: CommandHost, _arg: str) -> bool:
    host.new_conversation()
    host.console.clear()
    host.console.print("[dim]New conversation.[/]")
    return False


def _tools(host: CommandHost, _arg: str) -> bool:
    from rich.table import Table

    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True)
    table.add_column(style="cyan", no_wrap=True)
    table.add_column(style="dim", no_wrap=True)
    for tool in sorted(host.registry.get_all_tools(), key=lambda t: t.name):
        table.add_row(tool.name, tool.display_name, tool.kind.value)
    host.console.print(table)
    return False


def _mode(host: CommandHost, arg: str) -> bool:
    modes = ", ".join(mode.value for mode in ApprovalMode)
    if not arg:
        host.console.print(
            f"Approval mode: [bold]{host.config.approval_mode.value}[/] [dim](one of {modes})[/]"
        )
        return False
    try:
        host.config.approval_mode = ApprovalMode.parse(arg)
    except ValueError as exc:
        host.console.print(f"[red]{exc}[/]", highlight=False)
        return False
    host.console.print(f"Approval mode: [bold]{host.config.approval_mode.value}[/]")
    return False


COMMANDS: tuple[Command, ...] = (
    Command(("help", "?"), "/help", "this list", _help),
    Command(("clear", "new"), "/clear", "start a new conversation (clears the screen)", _clear),
    Command(("tools",), "/tools", "the tools the model can call", _tools),
    Command(
        ("approval-mode", "mode"),
        "/approval-mode [MODE]",
        "show or set the approval mode: plan, default, auto-edit, auto, yolo (also /mode)",
        _mode,
    ),
    Command(
        ("model",),
        "/model [NAME]",
        "choose the model (a menu of the endpoint's and the configured ones); switch to NAME",
        session.model,
    ),
    Command(
        ("stats",),
        "/stats",
        "tokens, requests, tool calls (success rate, your agreement, code changes), time",
        session.stats,
    ),
    Command(
        ("memory",),
        "/memory [show|add TEXT|refresh]",
        "the context files (QWEN.md); add a memory; read them again",
        session.memory,
    ),
    Command(("mcp",), "/mcp", "MCP servers, their status and tools", session.mcp),
    Command(("copy",), "/copy", "copy the last answer to the clipboard (OSC 52)", session.copy),
    Command(
        ("resume",),
        "/resume [N|ID]",
        "list the saved chats of this project; continue one",
        session.resume,
    ),
    Command(
        ("compress", "summarize"),
        "/compress [INSTRUCTIONS]",
        "replace the conversation with the model's summary of it",
        session.compress,
    ),
    Command(("quit", "exit"), "/quit", "leave (also Ctrl-D, or Ctrl-C twice)", _quit),
)

KEYS: tuple[tuple[str, str], ...] = (
    ("Enter", "send the prompt"),
    ("Enter during a turn", "send what you typed into the running turn (steer)"),
    ("Ctrl+Q during a turn", "queue what you typed: sent as the next prompt when the turn ends"),
    ("Ctrl-J, Alt-Enter, \\ Enter", "new line"),
    ("Shift-Tab", "cycle the approval mode"),
    ("Tab", "take the highlighted completion (/command, @path)"),
    ("Ctrl-C", "cancel the running turn; clear the prompt; twice on an empty prompt: quit"),
    ("↑/↓", "prompt history"),
    ("Alt-←/→", "move a word left / right"),
    ("Ctrl-L", "clear the screen"),
    ("@PATH", "attach a workspace file to the prompt (Tab completes)"),
    ("!COMMAND", "run a shell command in the workspace (the model sees it with your next prompt)"),
    ("Esc", "cancel the running turn; refuse in a confirmation; leave shell mode"),
    ("Esc Esc", "clear the prompt"),
)


def command_names() -> list[str]:
    """Every ``/name`` (for completion)."""
    return [f"/{name}" for command in COMMANDS for name in command.names]


def command_menu() -> list[tuple[str, str]]:
    """Every ``/name`` with its description (the completion menu shows both)."""
    return [(f"/{name}", command.help) for command in COMMANDS for name in command.names]


def run_command(host: CommandHost, line: str) -> bool:
    """Run a ``/command`` line; ``True`` when the session should end."""
    name, _, arg = line.strip()[1:].partition(" ")
    for command in COMMANDS:
        if name.lower() in command.names:
            return command.run(host, arg.strip())
    host.console.print(f"[red]Unknown command[/] /{name}. Type [bold]/help[/] for the list.")
    return False
