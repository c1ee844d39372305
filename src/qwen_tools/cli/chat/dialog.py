"""The inline confirmation dialog: the call's box turns yellow and asks, as in Qwen Code.

The box shows what would happen (the diff of an edit, the command, the MCP tool, the plan), a
question and the answers of ``qwen-tools call``'s terminal confirmation (``1`` allow once;
``2``/``3`` "Always allow <rules> in this project" / "… for this user" for commands, MCP tools
and info prompts — saved to the settings, see :mod:`qwen_tools.execution.always_rules` — or
``2`` always and ``3`` modify with the external editor for edits; ``n`` no, labelled as in
Qwen Code "No, suggest changes (esc)"). A number, ``y`` or ``n`` answers at once; arrows and
Enter pick; Esc says no; Ctrl-C says no and cancels the whole turn. The dialog is a small
prompt_toolkit application that erases itself when answered (the call's final box, printed
when it finishes, keeps the record).
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import TYPE_CHECKING

from qwen_tools.cli.chat.displays import diff_lines
from qwen_tools.cli.confirm import confirmation_choices, offers_editor
from qwen_tools.contract.confirmation import (
    ToolCallConfirmationDetails,
    ToolConfirmationOutcome,
    ToolConfirmationPayload,
)

if TYPE_CHECKING:
    from rich.console import RenderableType

    from qwen_tools.cli.chat.screen import ChatView
    from qwen_tools.execution.call_types import ConfirmationHandler, ToolCallRequest
    from qwen_tools.registry.registry import ToolRegistry

Choice = tuple[str, str, ToolConfirmationOutcome]

REFUSE_LABEL = "No, suggest changes (esc)"
"""The refusal, in Qwen Code's words: it ends the turn and the prompt comes back for them."""


def question(details: ToolCallConfirmationDetails) -> str:
    """Qwen Code's question for each kind of confirmation."""
    if details.type == "edit":
        return "Apply this change?"
    if details.type == "exec":
        return f"Allow execution of: '{details.root_command}'?"
    if details.type == "mcp":
        return (
            f'Allow execution of MCP tool "{details.tool_name}" '
            f'from server "{details.server_name}"?'
        )
    if details.type == "plan":
        return "Would you like to proceed?"
    return "Do you want to proceed?"


def details_body(details: ToolCallConfirmationDetails, max_lines: int) -> RenderableType:
    """What the call would do."""
    from rich.console import Group
    from rich.text import Text

    from qwen_tools.cli.chat.markdown import ChatMarkdown as Markdown

    if details.type == "edit":
        return diff_lines(details.file_diff, max_lines)
    if details.type == "exec":
        parts: list[RenderableType] = [Text(details.command, style="bold")]
        parts.extend(Text(f"Warning: {w}", style="yellow") for w in details.warnings)
        return Group(*parts)
    if details.type == "mcp":
        return Text(f"MCP Server: {details.server_name}\nTool: {details.tool_name}")
    if details.type == "plan":
        return Markdown(details.plan)
    lines = [details.prompt, *(f"  - {url}" for url in details.urls)]
    return Text("\n".join(lines))


def dialog_renderable(
    title: RenderableType,
    details: ToolCallConfirmationDetails,
    choices: list[Choice],
    selected: int,
    max_lines: int,
) -> RenderableType:
    """The yellow box: title line, details, question, the answers (the selected one marked)."""
    from rich import box
    from rich.console import Group
    from rich.padding import Padding
    from rich.panel import Panel
    from rich.text import Text

    answers = Text()
    for position, (key, label, outcome) in enumerate(choices):
        mark = "● " if position == selected else "  "
        style = "bold green" if position == selected else ""
        if outcome is ToolConfirmationOutcome.CANCEL:
            label = REFUSE_LABEL
        answers.append(f"{mark}{key}. {label}\n", style=style)
    answers.rstrip()
    body = Group(
        details_body(details, max_lines),
        Text(""),
        Text(question(details), style="bold"),
        answers,
    )
    return Panel(
        Group(title, Padding(body, (0, 0, 0, 2))),
        box=box.ROUNDED,
        border_style="yellow",
        padding=(0, 1),
    )


async def run_dialog(
    title: RenderableType, details: ToolCallConfirmationDetails, choices: list[Choice]
) -> ToolConfirmationOutcome | None:
    """Show the dialog and wait for an answer; ``None`` means Ctrl-C (cancel the turn)."""
    from prompt_toolkit.application import Application
    from prompt_toolkit.formatted_text import ANSI
    from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
    from prompt_toolkit.layout import Layout, Window
    from prompt_toolkit.layout.controls import FormattedTextControl
    from rich.console import Console

    selected = [0]
    app: Application[ToolConfirmationOutcome | None]

    def render() -> ANSI:
        size = app.output.get_size()
        room = max(5, size.rows - len(choices) - 8)
        buffer = io.StringIO()
        console = Console(file=buffer, force_terminal=True, color_system="256", width=size.columns)
        console.print(dialog_renderable(title, details, choices, selected[0], room))
        return ANSI(buffer.getvalue().rstrip("\n"))

    bindings = KeyBindings()

    def answer(outcome: ToolConfirmationOutcome | None) -> Callable[[KeyPressEvent], None]:
        def handler(event: KeyPressEvent) -> None:
            event.app.exit(result=outcome)

        return handler

    for key, _, outcome in choices:
        bindings.add(key)(answer(outcome))
    bindings.add("y")(answer(ToolConfirmationOutcome.PROCEED_ONCE))
    bindings.add("escape", eager=True)(answer(ToolConfirmationOutcome.CANCEL))
    bindings.add("c-c")(answer(None))
    bindings.add("c-d")(answer(None))

    @bindings.add("up")
    @bindings.add("k")
    def _up(event: KeyPressEvent) -> None:
        selected[0] = (selected[0] - 1) % len(choices)

    @bindings.add("down")
    @bindings.add("j")
    @bindings.add("tab")
    def _down(event: KeyPressEvent) -> None:
        selected[0] = (selected[0] + 1) % len(choices)

    @bindings.add("enter")
    def _enter(event: KeyPressEvent) -> None:
        event.app.exit(result=choices[selected[0]][2])

    app = Application(
        layout=Layout(Window(FormattedTextControl(render, show_cursor=False))),
        key_bindings=bindings,
        full_screen=False,
        erase_when_done=True,
        mouse_support=False,
    )
    return await app.run_async(handle_sigint=False)


def chat_confirm_handler(
    registry: ToolRegistry, view: ChatView, interrupt: Callable[[], None]
) -> ConfirmationHandler:
    """The session's confirmation handler: hold the live region, ask, release it.

    ``interrupt`` is called when the user presses Ctrl-C in the dialog (it cancels the turn).
    "Modify with external editor" is offered for a modifiable tool's edits when ``$VISUAL``
    or ``$EDITOR`` is set, as ``call`` does; the editor runs with the terminal given back.
    """
    from qwen_tools.cli.chat.tool_box import CallView

    async def ask(
        request: ToolCallRequest, details: ToolCallConfirmationDetails
    ) -> tuple[ToolConfirmationOutcome, ToolConfirmationPayload | None]:
        modifiable = offers_editor(registry, request, details)
        call = view.call_view(request.call_id) or CallView.create(registry, request)
        outcome: ToolConfirmationOutcome | None = ToolConfirmationOutcome.CANCEL
        view.hold()
        try:
            outcome = await run_dialog(
                call.title(), details, confirmation_choices(details, modifiable)
            )
        finally:
            view.release(resume=outcome is not ToolConfirmationOutcome.MODIFY_WITH_EDITOR)
        if outcome is None:
            interrupt()
            return ToolConfirmationOutcome.CANCEL, None
        return outcome, None

    return ask
