"""Slash commands about the session: ``/stats``, ``/model``, ``/memory``, ``/mcp``, ``/copy``,
``/resume``, and the summary printed when the chat ends.

``/model NAME`` switches the model (the menu of ``/model`` is :mod:`.model_menu`). They read
what the chat app keeps (:class:`SessionHost`): the agent session's stats, the model,
the context files, the MCP manager of the workspace session and the last answer.
"""

from __future__ import annotations

import base64
import sys
import time
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from rich.console import Console

    from qwen_tools.agent.session import AgentSession
    from qwen_tools.agent.stats import SessionStats
    from qwen_tools.config.config import Config
    from qwen_tools.model.model_config import ModelConfig
    from qwen_tools.registry.registry import ToolRegistry
    from qwen_tools.session.session import Session


class SessionHost(Protocol):
    """What these commands read (the chat app)."""

    console: Console
    config: Config
    registry: ToolRegistry
    model: ModelConfig
    session: Session
    started: float
    turns: int
    last_answer: str

    @property
    def agent(self) -> AgentSession | None:
        """The agent session (``None`` before it is open)."""

    def refresh_memory(self) -> None:
        """Read the context files again and use them from the next request on."""

    def resume(self, wanted: str) -> None:
        """Continue a saved chat."""

    def switch_model(self, name: str) -> None:
        """Use the model ``name`` from the next request on."""


def _tokens(host: SessionHost) -> tuple[int, int, int]:
    agent = host.agent
    if agent is None:
        return 0, 0, 0
    usage = agent.stats.usage_json()
    return usage["input_tokens"], usage["output_tokens"], usage["cache_read_input_tokens"]


def _tool_calls(host: SessionHost) -> int:
    agent = host.agent
    return 0 if agent is None else sum(tool.count for tool in agent.stats.tools.values())


def _duration(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    if hours:
        return f"{hours}h {minutes}m {secs}s"
    return f"{minutes}m {secs}s" if minutes else f"{secs}s"


def stats(host: SessionHost, _arg: str) -> bool:
    """Tokens, requests, tool calls (count, success, failures, time per tool), session time,
    and Qwen Code's interaction summary (success rate, user agreement, code changes, API time
    against tool time)."""
    from rich.table import Table

    agent = host.agent
    prompt, output, cached = _tokens(host)
    host.console.print(
        f"[bold]Session stats[/]  turns {host.turns}  ·  time "
        f"{_duration(time.monotonic() - host.started)}\n"
        f"Tokens: input {prompt:,}  output {output:,}  cached {cached:,}  "
        f"requests {0 if agent is None else sum(m.requests for m in agent.stats.models.values())}",
        highlight=False,
    )
    models = {} if agent is None else agent.stats.models
    if len(models) > 1:  # the model was switched: each one's share
        for name, used in models.items():
            host.console.print(
                f"  {name}: input {used.prompt:,}  output {used.candidates:,}  "
                f"cached {used.cached:,}  requests {used.requests}",
                highlight=False,
            )
    tools = {} if agent is None else agent.stats.tools
    if not tools:
        host.console.print("[dim]No tool calls yet.[/]")
        return False
    assert agent is not None
    for line in _interaction(agent.stats):
        host.console.print(line, highlight=False)
    table = Table(box=None, padding=(0, 2), header_style="bold")
    for column in ("Tool", "Calls", "Success", "Failed", "Time"):
        table.add_column(column, justify="left" if column == "Tool" else "right")
    for name, tool in sorted(tools.items()):
        table.add_row(
            name, str(tool.count), str(tool.success), str(tool.fail), f"{tool.duration_ms:.0f} ms"
        )
    host.console.print(table)
    return False


def _short(seconds: float) -> str:
    """A duration as Qwen Code writes it: ``340ms``, ``2.5s``, ``1m 3s``."""
    if seconds < 1:
        return f"{seconds * 1000:.0f}ms"
    return f"{seconds:.1f}s" if seconds < 60 else _duration(seconds)


def _interaction(stats: SessionStats) -> list[str]:
    """Qwen Code's "Interaction Summary" and API time against tool time (rich markup)."""
    tools = stats.tools.values()
    calls, ok, failed = (
        sum(t.count for t in tools),
        sum(t.success for t in tools),
        sum(t.fail for t in tools),
    )
    lines = [
        f"Tool calls: {calls} ( [green]✓ {ok}[/] [red]✗ {failed}[/] )",
        f"Success rate: {ok / calls * 100 if calls else 0:.1f}%",
    ]
    accepted = sum(t.decisions["accept"] for t in tools)
    reviewed = accepted + sum(t.decisions["reject"] + t.decisions["modify"] for t in tools)
    if reviewed:
        lines.append(
            f"User agreement: {accepted / reviewed * 100:.1f}% [dim]({reviewed} reviewed)[/]"
        )
    if stats.lines_added or stats.lines_removed:
        lines.append(f"Code changes: [green]+{stats.lines_added}[/] [red]-{stats.lines_removed}[/]")
    api, tool = stats.api_ms / 1000, sum(t.duration_ms for t in tools) / 1000
    active = api + tool
    if active:
        lines.append(
            f"API time: {_short(api)} [dim]({api / active * 100:.1f}%)[/]  ·  "
            f"tool time: {_short(tool)} [dim]({tool / active * 100:.1f}%)[/]"
        )
    return lines


def model(host: SessionHost, arg: str) -> bool:
    """``/model NAME``: switch to it; without a name (the app opens the menu instead) the model
    in use and where it is served."""
    if arg:
        host.switch_model(arg)
        return False
    host.console.print(
        f"Model: [bold]{host.model.model}[/]  [dim]{host.model.base_url}[/]", highlight=False
    )
    return False


def memory(host: SessionHost, arg: str) -> bool:
    """``/memory show|add TEXT|refresh``."""
    action, _, text = arg.partition(" ")
    action = action or "show"
    agent = host.agent
    if action == "add":
        from qwen_tools.tools.save_memory.memory_file import (
            add_memory_entry,
            memory_file_path,
            read_memory_file,
            write_memory_file,
        )

        if not text.strip():
            host.console.print("[red]Usage:[/] /memory add TEXT")
            return False
        path = memory_file_path(host.config, "global")
        write_memory_file(path, add_memory_entry(read_memory_file(path), text.strip()))
        host.refresh_memory()
        host.console.print(f"Saved to memory: {text.strip()}  [dim]({path})[/]", highlight=False)
        return False
    if action == "refresh":
        host.refresh_memory()
    elif action != "show":
        host.console.print("[red]Usage:[/] /memory [show|add TEXT|refresh]")
        return False
    context = None if agent is None else agent.context
    if context is None or not context.paths:
        host.console.print("Memory: no context files (QWEN.md) loaded.")
        return False
    word = "Refreshed memory" if action == "refresh" else "Memory"
    host.console.print(
        f"{word}: {len(context.paths)} file(s), {len(context.text):,} characters", highlight=False
    )
    for file in context.paths:
        host.console.print(f"  [dim]{file}[/]", highlight=False)
    if action == "show":
        host.console.print(context.text, markup=False, highlight=False)
    return False


def mcp(host: SessionHost, _arg: str) -> bool:
    """The configured MCP servers, their status and tools."""
    manager = host.session.mcp_manager
    names = [] if manager is None else manager.server_names
    if manager is None or not names:
        host.console.print("No MCP servers configured.")
        return False
    tools_by_server: dict[str, list[str]] = {}
    for tool in manager.tools():
        server = getattr(tool, "server_name", "")
        tools_by_server.setdefault(server, []).append(tool.server_tool_name)
    for name in names:
        status = manager.status(name)
        value = getattr(status, "value", str(status))
        colour = "green" if value == "connected" else "yellow"
        tools = sorted(tools_by_server.get(name, []))
        host.console.print(
            f"[{colour}]●[/] [bold]{name}[/] [dim]{value}, {len(tools)} tool(s)[/]",
            highlight=False,
        )
        error = manager.last_error(name)
        if error:
            host.console.print(f"    {error}", style="red", markup=False, highlight=False)
        for tool_name in tools:
            host.console.print(f"    - {tool_name}", highlight=False)
    return False


def copy(host: SessionHost, _arg: str) -> bool:
    """The last answer to the clipboard, with the terminal's OSC 52 sequence."""
    if not host.last_answer:
        host.console.print("No answer to copy yet.")
        return False
    encoded = base64.b64encode(host.last_answer.encode()).decode()
    sys.stdout.write(f"\x1b]52;c;{encoded}\x07")
    sys.stdout.flush()
    host.console.print(f"Copied the last answer ({len(host.last_answer):,} characters).")
    return False


def resume(host: SessionHost, arg: str) -> bool:
    """``/resume``: the saved chats of this project; ``/resume N|ID``: continue one."""
    if arg:
        host.resume(arg)
        return False
    from qwen_tools.cli.chat.saved_chats import list_chats

    chats = list_chats(host.config)
    if not chats:
        host.console.print("No saved chats in this project yet.")
        return False
    for number, chat in enumerate(chats[:10], start=1):
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(chat.saved_at))
        host.console.print(
            f"{number}. {chat.chat_id}  [dim]{when}, {len(chat.messages)} messages[/]  "
            f"{chat.title}",
            highlight=False,
        )
    host.console.print("[dim]/resume N continues one (N from this list, or its id).[/]")
    return False


def compress(host: SessionHost, _arg: str) -> bool:
    """Not reached in chat: the app runs ``/compress`` itself (it awaits the model)."""
    host.console.print("Usage: /compress [INSTRUCTIONS]")
    return False


def summary(host: SessionHost) -> None:
    """What is printed when the chat ends: turns, tool calls, tokens, time."""
    prompt, output, _cached = _tokens(host)
    host.console.print(
        f"[bold]Session summary[/]  turns {host.turns}  ·  tool calls {_tool_calls(host)}  ·  "
        f"tokens {prompt:,} in / {output:,} out  ·  time "
        f"{_duration(time.monotonic() - host.started)}",
        highlight=False,
    )
