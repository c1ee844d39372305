"""Asking the user in the terminal whether a tool call may run."""

from __future__ import annotations

import asyncio
import sys
import threading
from typing import TYPE_CHECKING

from qwen_tools.contract.confirmation import (
    ToolCallConfirmationDetails,
    ToolConfirmationOutcome,
    ToolConfirmationPayload,
)

if TYPE_CHECKING:
    from qwen_tools.execution.tool_call import ConfirmationHandler, ToolCallRequest
    from qwen_tools.registry.registry import ToolRegistry


def persisted_choices(rules: tuple[str, ...]) -> list[tuple[str, str, ToolConfirmationOutcome]]:
    """Qwen Code 0.24.4's "Always allow <rules in words> in this project / for this user"."""
    from qwen_tools.execution.always_rules import rule_label

    action = rule_label(rules)
    what = f"Always allow {action}" if action else "Always allow"
    return [
        ("2", f"{what} in this project", ToolConfirmationOutcome.PROCEED_ALWAYS_PROJECT),
        ("3", f"{what} for this user", ToolConfirmationOutcome.PROCEED_ALWAYS_USER),
    ]


def confirmation_choices(
    details: ToolCallConfirmationDetails, modifiable: bool = False
) -> list[tuple[str, str, ToolConfirmationOutcome]]:
    """The answers offered for ``details``: (key, label, outcome), as Qwen Code words them."""
    if details.type == "plan":
        # exit_plan_mode: "always" leaves plan mode for auto-edit, "once" for default
        return [
            ("1", "Yes, and auto-accept edits", ToolConfirmationOutcome.PROCEED_ALWAYS),
            ("2", "Yes, and manually approve edits", ToolConfirmationOutcome.PROCEED_ONCE),
            ("n", "No, keep planning", ToolConfirmationOutcome.CANCEL),
        ]
    always: list[tuple[str, str, ToolConfirmationOutcome]]
    if details.type == "edit":
        always = [
            ("2", "Yes, allow always (auto-accept edits)", ToolConfirmationOutcome.PROCEED_ALWAYS)
        ]
    else:
        always = [] if details.hide_always_allow else persisted_choices(details.permission_rules)
    if details.type == "edit" and modifiable:
        always.append(
            ("3", "Modify with external editor", ToolConfirmationOutcome.MODIFY_WITH_EDITOR)
        )
    return [
        ("1", "Yes, allow once", ToolConfirmationOutcome.PROCEED_ONCE),
        *always,
        ("n", "No (cancel)", ToolConfirmationOutcome.CANCEL),
    ]


def _render(details: ToolCallConfirmationDetails) -> None:
    from rich.console import Console

    from qwen_tools.cli.render import diff_renderable

    console = Console(file=sys.stderr)
    console.rule(f"[bold yellow]{details.title}")
    if details.type == "edit":
        console.print(diff_renderable(details.file_diff))
    elif details.type == "exec":
        console.print(details.command, markup=False, highlight=False)
        for warning in details.warnings:
            console.print(f"[yellow]Warning:[/] {warning}")
    elif details.type == "mcp":
        console.print(f"Server: {details.server_name}\nTool: {details.tool_name}", markup=False)
    elif details.type == "info":
        console.print(details.prompt, markup=False, highlight=False)
        for url in details.urls:
            console.print(f"  - {url}", markup=False)
    else:
        console.print(details.plan, markup=False, highlight=False)


async def _read_line(prompt: str) -> str | None:
    """``input()`` in a daemon thread, so Ctrl-C and exit never wait for it."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[str | None] = loop.create_future()

    def worker() -> None:
        try:
            line: str | None = input(prompt)
        except (EOFError, OSError):
            line = None

        def deliver() -> None:
            if not future.done():
                future.set_result(line)

        loop.call_soon_threadsafe(deliver)

    threading.Thread(target=worker, daemon=True).start()
    return await future


async def ask_in_terminal(
    request: ToolCallRequest, details: ToolCallConfirmationDetails, *, modifiable: bool = False
) -> tuple[ToolConfirmationOutcome, ToolConfirmationPayload | None]:
    """Show the confirmation and read the user's choice from the terminal.

    ``modifiable``: also offer to rewrite the proposed change in the external editor.
    """
    _render(details)
    options = confirmation_choices(details, modifiable)
    for key, label, _ in options:
        print(f"  {key}) {label}", file=sys.stderr)
    keys = {key: outcome for key, _, outcome in options}
    while True:
        answer = await _read_line("Allow execution? ")
        if answer is None:
            return ToolConfirmationOutcome.CANCEL, None
        choice = answer.strip().lower() or "n"
        if choice in ("y", "yes"):
            choice = "1"
        if choice in ("no", "esc"):
            choice = "n"
        if choice in keys:
            return keys[choice], None
        print(f"Please answer one of: {', '.join(keys)}", file=sys.stderr)


def offers_editor(
    registry: ToolRegistry, request: ToolCallRequest, details: ToolCallConfirmationDetails
) -> bool:
    """Whether "Modify with external editor" is offered: a modifiable tool's file change,
    with ``$VISUAL`` or ``$EDITOR`` set."""
    from qwen_tools.contract.modifiable import is_modifiable
    from qwen_tools.execution.modify import resolve_editor_command

    tool = registry.get_tool(request.name)
    return (
        details.type == "edit"
        and tool is not None
        and is_modifiable(tool)
        and resolve_editor_command() is not None
    )


def terminal_confirm_handler(registry: ToolRegistry) -> ConfirmationHandler:
    """A handler asking in the terminal (with the editor option where :func:`offers_editor`)."""

    async def ask(
        request: ToolCallRequest, details: ToolCallConfirmationDetails
    ) -> tuple[ToolConfirmationOutcome, ToolConfirmationPayload | None]:
        modifiable = offers_editor(registry, request, details)
        return await ask_in_terminal(request, details, modifiable=modifiable)

    return ask
