"""``/model`` without a name: the models to choose from, and the inline menu that picks one.

The choices are the current model, the models configured in settings (``model.name`` and the
``id`` of each ``modelProviders.openai`` entry served by the same endpoint) and the models the
endpoint lists (``GET /v1/models``). An entry of ``modelProviders`` with another ``baseUrl``
is left out: switching to it would need another endpoint and key, and ``/model`` keeps the
session's. The menu looks like the confirmation dialog (:mod:`.dialog`): a rounded box, the
current model marked, arrows (or ``j``/``k``) and Enter pick, a number picks one of the first
nine, Esc or Ctrl-C leaves it unchanged. A long list scrolls inside the box. :func:`use_model`
points the session at the model picked (or named by ``/model NAME``).
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from rich.console import Console, RenderableType

    from qwen_tools.agent.loop import AgentLoop
    from qwen_tools.agent.session import AgentSession
    from qwen_tools.cli.chat.terminal import TurnTerminal
    from qwen_tools.config.config import Config
    from qwen_tools.config.settings import LoadedSettings
    from qwen_tools.model.model_config import ModelConfig

TITLE = "Select Model"
HINT = "(↑↓ to move, Enter to select, Esc to close)"


def _same_endpoint(url: Any, base_url: str) -> bool:
    return not isinstance(url, str) or not url.strip() or url.rstrip("/") == base_url.rstrip("/")


def configured_models(settings: LoadedSettings | None, base_url: str) -> list[str]:
    """``model.name``, then the ``modelProviders.openai`` ids on ``base_url`` (in file order)."""
    if settings is None:
        return []
    names: list[str] = []
    name = settings.get("model.name")
    if isinstance(name, str) and name.strip():
        names.append(name.strip())
    providers = settings.get("modelProviders")
    entries = providers.get("openai") if isinstance(providers, dict) else None
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict):
            continue
        model_id = entry.get("id")
        usable = isinstance(model_id, str) and bool(model_id.strip())
        if usable and _same_endpoint(entry.get("baseUrl"), base_url):
            names.append(str(model_id).strip())
    return names


def model_choices(current: str, configured: Sequence[str], served: Sequence[str]) -> list[str]:
    """The current model, the configured ones, then the served ones; each name once."""
    return list(dict.fromkeys([current, *configured, *served]))


class MenuHost(Protocol):
    """What listing the models needs from the chat app."""

    console: Console
    config: Config
    model: ModelConfig
    terminal: TurnTerminal


async def offered_models(host: MenuHost, agent: AgentSession | None) -> list[str]:
    """The menu's choices; a failing ``GET /v1/models`` is said in one line (Ctrl-C stops it)."""
    from qwen_tools.contract.abort import AbortController
    from qwen_tools.model.client import run_cancellable

    served: list[str] = []
    if agent is not None:
        controller = AbortController()
        host.terminal.on_interrupt(lambda: controller.abort("Cancelled."), lambda: None)
        host.terminal.quiet()
        try:
            served = await run_cancellable(agent.client.list_models, controller.signal)
        except Exception as error:  # the menu still offers the current and configured ones
            reason = " ".join(str(error).split())
            host.console.print(
                f"[yellow]Could not list the endpoint's models:[/] {reason} "
                "[dim](/model NAME switches to any model)[/]",
                highlight=False,
            )
        finally:
            host.terminal.end_turn()
    configured = configured_models(host.config.loaded_settings, host.model.base_url)
    return model_choices(host.model.model, configured, served)


def use_model(
    model: ModelConfig, agent: AgentSession | None, loop: AgentLoop | None
) -> ModelConfig:
    """Point the agent session (subagents, one-shot requests) and the loop at ``model``."""
    from qwen_tools.agent.request import RequestBuilder

    if agent is not None:
        agent.model = model
        agent.client.config = model  # same endpoint and key: only the name in bodies changes
        if loop is not None:
            loop.model = model
            loop.builder = RequestBuilder(
                model, agent.system_prompt(), loop.registry, stream=loop.stream
            )
    return model


def menu_renderable(
    choices: Sequence[str], current: str, selected: int, rows: int
) -> RenderableType:
    """The box: title, at most ``rows`` choices around the selected one, the keys."""
    from rich import box
    from rich.console import Group
    from rich.padding import Padding
    from rich.panel import Panel
    from rich.text import Text

    rows = max(3, rows)
    first = min(max(0, selected - rows // 2), max(0, len(choices) - rows))
    shown = range(first, min(len(choices), first + rows))
    lines = Text()
    if first:
        lines.append(f"  ↑ {first} more\n", style="dim")
    width = len(str(len(choices)))
    for index in shown:
        name = choices[index]
        chosen = index == selected
        lines.append("● " if chosen else "  ", style="bold green")
        lines.append(f"{index + 1:>{width}}. {name}", style="bold green" if chosen else "")
        if name == current:
            lines.append(" (current)", style="dim")
        lines.append("\n")
    below = len(choices) - shown.stop
    if below:
        lines.append(f"  ↓ {below} more\n", style="dim")
    lines.rstrip()
    body = Group(Text(TITLE, style="bold"), Text(""), lines, Text(""), Text(HINT, style="dim"))
    return Panel(Padding(body, (0, 0, 0, 1)), box=box.ROUNDED, border_style="cyan", padding=(0, 1))


async def pick_model(choices: Sequence[str], current: str) -> str | None:
    """Show the menu until a model is picked (its name) or the menu is closed (``None``)."""
    from prompt_toolkit.application import Application
    from prompt_toolkit.formatted_text import ANSI
    from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
    from prompt_toolkit.layout import Layout, Window
    from prompt_toolkit.layout.controls import FormattedTextControl
    from rich.console import Console

    selected = [choices.index(current) if current in choices else 0]
    app: Application[str | None]

    def render() -> ANSI:
        size = app.output.get_size()
        buffer = io.StringIO()
        console = Console(file=buffer, force_terminal=True, color_system="256", width=size.columns)
        console.print(menu_renderable(choices, current, selected[0], size.rows - 10))
        return ANSI(buffer.getvalue().rstrip("\n"))

    bindings = KeyBindings()

    def move(step: int) -> None:
        selected[0] = (selected[0] + step) % len(choices)

    bindings.add("up")(lambda event: move(-1))
    bindings.add("k")(lambda event: move(-1))
    bindings.add("down")(lambda event: move(1))
    bindings.add("j")(lambda event: move(1))
    bindings.add("tab")(lambda event: move(1))
    bindings.add("pageup")(lambda event: move(-min(10, selected[0])))
    bindings.add("pagedown")(lambda event: move(min(10, len(choices) - 1 - selected[0])))

    @bindings.add("enter")
    def _enter(event: KeyPressEvent) -> None:
        event.app.exit(result=choices[selected[0]])

    @bindings.add("escape", eager=True)
    @bindings.add("c-c")
    @bindings.add("c-d")
    def _close(event: KeyPressEvent) -> None:
        event.app.exit(result=None)

    for number, name in enumerate(choices[:9], start=1):
        bindings.add(str(number))(_picker(name))

    app = Application(
        layout=Layout(Window(FormattedTextControl(render, show_cursor=False))),
        key_bindings=bindings,
        full_screen=False,
        erase_when_done=True,
        mouse_support=False,
    )
    return await app.run_async(handle_sigint=False)


def _picker(name: str) -> Any:
    def pick(event: Any) -> None:
        event.app.exit(result=name)

    return pick
