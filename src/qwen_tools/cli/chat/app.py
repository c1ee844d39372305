"""The chat session: read a prompt, run it through the agent loop, show its events, repeat.

One :class:`~qwen_tools.agent.session.AgentSession` (model client, stats, system prompt) lives
for the whole session; ``/clear`` starts a new :class:`~qwen_tools.agent.loop.AgentLoop`
(empty history). Each prompt is one ``loop.send`` with its own ``AbortController``: Ctrl-C
aborts it (the stream and running tools stop, the calls get their cancelled responses) and
the prompt comes back; a second Ctrl-C cancels the task and forgets that turn's messages.
What is typed during a turn is steered into it, queued, or given back (:mod:`.typed_ahead`).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from typing import TYPE_CHECKING, Any

from qwen_tools._version import __version__
from qwen_tools.cli.chat.commands import run_command
from qwen_tools.cli.chat.prompt import INTERRUPT, ChatPrompt, history_path
from qwen_tools.cli.chat.saved_chats import Shown, find_chat, new_chat_id, save_chat
from qwen_tools.cli.chat.screen import ChatView
from qwen_tools.cli.chat.session_commands import summary
from qwen_tools.cli.chat.terminal import TurnTerminal
from qwen_tools.cli.chat.typed_ahead import TypedAhead
from qwen_tools.cli.exit_codes import EXIT_OK, EXIT_USAGE

if TYPE_CHECKING:
    from rich.console import Console

    from qwen_tools.agent.events import AgentEvent, Finished
    from qwen_tools.agent.loop import AgentLoop
    from qwen_tools.agent.session import AgentSession
    from qwen_tools.config.config import Config
    from qwen_tools.contract.abort import AbortController
    from qwen_tools.model.model_config import ModelConfig
    from qwen_tools.registry.registry import ToolRegistry
    from qwen_tools.session.session import Session

NEEDS_TERMINAL = "qwen-tools chat needs a terminal; for scripts use `qwen-tools run PROMPT`."


class ChatApp:
    """One interactive session."""

    def __init__(
        self, session: Session, model: ModelConfig, console: Console, *, resume: str | None = None
    ) -> None:
        """``session`` is open (entered) for as long as the app runs; ``resume`` names a saved
        chat to continue (``latest``, a number of the ``/resume`` list, or an id)."""
        self.session = session
        self.model = model
        self.console = console
        self.config: Config = session.config
        self.registry: ToolRegistry = session.registry
        self.view = ChatView(console, self.registry)
        self.terminal = TurnTerminal()
        self.view.on_pause = self.terminal.restore
        self.view.on_resume = self.terminal.quiet
        self.view.typed = self.terminal.peek_typed
        self.typed_ahead = TypedAhead(self.view, self.terminal, self._attach)
        self._agent: AgentSession | None = None
        self.started = time.monotonic()
        self.turns = 0
        self.last_answer = ""
        self.chat_id = new_chat_id()
        self.shown = Shown()
        """What the screen showed beyond the messages (saved with them, for ``/resume``)."""
        self.context_tokens = 0
        self._pending: list[str] = []
        r"""Texts sent before the next prompt (the reports of ``!command``\ s)."""
        self._resume = resume
        self._loop: AgentLoop | None = None
        self._controller: AbortController | None = None

    # -- the CommandHost protocol -------------------------------------------------------------

    @property
    def agent(self) -> AgentSession | None:
        """The agent session while the chat runs."""
        return self._agent

    def refresh_memory(self) -> None:
        """Read the context files again; the next request sends the new system prompt."""
        from qwen_tools.agent.request import RequestBuilder

        agent, loop = self._agent, self._loop
        if agent is None or loop is None:
            return
        agent._context = None
        agent._prompt = None
        loop.builder = RequestBuilder(
            loop.model, agent.system_prompt(), loop.registry, stream=loop.stream
        )

    def new_conversation(self) -> None:
        """Start over with an empty history."""
        if self._agent is not None:
            if self._loop is not None and len(self._loop.history):
                self.chat_id = new_chat_id()  # the old chat stays saved under its id
            self.shown = Shown()
            self._loop = self._agent.new_loop(on_event=self._on_event)
            self._loop.end_on_refusal = True  # a refusal gives the prompt back, as Qwen Code

    def resume(self, wanted: str) -> None:
        """Continue a saved chat: its messages become the conversation, saved under its id."""
        chat = find_chat(self.config, wanted)
        if chat is None or self._agent is None:
            self.console.print(f"No saved chat {wanted!r} to resume.", highlight=False)
            return
        self.new_conversation()
        assert self._loop is not None
        self._loop.history.extend(chat.messages)
        self.chat_id, self.shown = chat.chat_id, chat.shown
        from qwen_tools.cli.chat.transcript import redraw

        redraw(self.console, chat, self.registry)  # the conversation as it was shown
        self.console.print(
            f"Resumed chat {chat.chat_id} ({len(chat.messages)} messages): {chat.title}",
            highlight=False,
        )

    def switch_model(self, name: str) -> None:
        """Talk to ``name`` (same endpoint and key) from the next request on."""
        from qwen_tools.cli.chat.model_menu import use_model

        if name == self.model.model:
            self.console.print(f"Already using {name}.", highlight=False)
            return
        self.model = use_model(self.model.with_model(name), self._agent, self._loop)
        self.console.print(f"Switched the model to [bold]{name}[/].", highlight=False)

    async def choose_model(self) -> None:
        """``/model``: the menu of models; the one picked is used from the next request on."""
        from qwen_tools.cli.chat.model_menu import offered_models, pick_model

        choices = await offered_models(self, self._agent)
        chosen = await pick_model(choices, self.model.model)
        if chosen is not None:
            self.switch_model(chosen)

    def _on_event(self, event: AgentEvent) -> None:
        from qwen_tools.agent.events import HistoryCompressed, TurnFinished

        self.view.handle(event)
        self.shown.note(event)
        if isinstance(event, HistoryCompressed):
            from qwen_tools.cli.chat.compress import auto_compression_line

            if line := auto_compression_line(event.compression, self.model.model):
                self.view.notice(*line)
        if isinstance(event, TurnFinished):
            if event.usage is not None:
                self.context_tokens = event.usage.prompt_tokens + event.usage.completion_tokens
            self._save()

    def _footer(self, width: int) -> tuple[str, str]:
        from qwen_tools.cli.chat.footer import footer_line

        return footer_line(
            self.config.target_dir,
            self.model.model,
            self.config.approval_mode.value,
            self.context_tokens,
            self.model.context_window,
            width,
        )

    def _save(self) -> None:
        loop = self._loop
        if loop is None:
            return
        try:
            save_chat(
                self.config, self.chat_id, self.model.model, loop.history.messages, self.shown
            )
        except OSError as error:
            self.console.print(f"[yellow]Could not save the chat:[/] {error}", highlight=False)

    # -- the session ----------------------------------------------------------------------------

    async def run(self) -> int:
        """Prompt, run, repeat until /quit, Ctrl-D or two Ctrl-C on an empty prompt."""
        from qwen_tools.agent.session import AgentSession
        from qwen_tools.cli.chat.dialog import chat_confirm_handler

        confirm = chat_confirm_handler(self.registry, self.view, self.interrupt)
        async with AgentSession(self.config, self.registry, self.model, confirm=confirm) as agent:
            self._agent = agent
            self.new_conversation()
            self._banner()
            if self._resume is not None:
                self.resume(self._resume)
            prompt = ChatPrompt(
                self.config,
                self.model.model,
                history_file=history_path(self.config),
                footer=self._footer,
            )
            try:
                await self._converse(prompt)
            finally:
                self.terminal.close()
                summary(self)
        if self._loop is not None and len(self._loop.history):
            self.console.print(
                f"[dim]To resume this chat: qwen-tools chat --resume {self.chat_id}[/]"
            )
        self.console.print("[dim]Bye.[/]")
        return EXIT_OK

    async def _converse(self, prompt: ChatPrompt) -> None:
        armed = False
        while True:
            line = self.typed_ahead.next_prompt()  # queued with Ctrl+Q: sent without asking
            if line is None:
                line = await prompt.read(self.typed_ahead.take_prefill())
            if line is None:
                return
            if line == INTERRUPT:
                if armed:
                    return
                armed = True
                self.console.print("[dim]Press Ctrl-C again to exit.[/]")
                continue
            armed = False
            if not line.strip():
                continue
            if line.startswith("!") and line[1:].strip():
                await self.shell(line[1:].strip())
                continue
            word, _, rest = line.strip().partition(" ")
            if word.lower() in ("/compress", "/summarize"):
                await self.compress(rest)
                continue
            if line.strip().lower() == "/model":
                await self.choose_model()
                continue
            if _is_command(line):
                if run_command(self, line):
                    return
                continue
            await self.turn(line)

    async def shell(self, command: str) -> None:
        """``!command``: run it, show its output; the model hears of it with the next prompt."""
        from qwen_tools.cli.chat.shell_mode import run_shell_mode, shell_report

        self.console.print(f"[magenta]![/] {command}", highlight=False)
        output = await run_shell_mode(command, self.config.target_dir, self.console, self.terminal)
        self._pending.append(shell_report(command, output))
        self.console.print()

    async def compress(self, instructions: str = "") -> None:
        """``/compress [instructions]``: replace the history with the model's summary of it."""
        from qwen_tools.cli.chat.compress import compress_chat
        from qwen_tools.contract.abort import AbortController

        loop = self._loop
        if loop is None:
            return
        controller = AbortController()
        self.terminal.on_interrupt(lambda: controller.abort("Cancelled by the user."), _nothing)
        self.terminal.quiet()
        try:
            compressed = await compress_chat(loop, instructions, self.console, controller.signal)
        finally:
            self.terminal.end_turn()
        if compressed:
            self.context_tokens = loop.compression.tokens(loop.history)[0]
            self._save()

    def _attach(self, text: str) -> list[dict[str, Any]]:
        """The files named with ``@path`` (each one said attached, or why not)."""
        from qwen_tools.cli.chat.at_files import attach

        attachments = attach(self.config, text)
        for attached, note in attachments.notes:
            self.console.print(note, style="dim" if attached else "yellow", highlight=False)
        return attachments.parts

    def interrupt(self) -> None:
        """Cancel the running turn (Ctrl-C during a stream, a batch or a dialog)."""
        controller = self._controller
        if controller is not None and not controller.signal.aborted:
            controller.abort("Cancelled by the user.")
            self.view.cancelling()

    async def turn(self, text: str) -> None:
        """Send one prompt and show everything until the loop finishes."""
        from qwen_tools.contract.abort import AbortController

        loop = self._loop
        assert loop is not None
        controller = AbortController()
        self._controller = controller
        history_length = len(loop.history)
        self.turns += 1
        self.shown.prompts.append(text)
        parts: list[dict[str, Any]] = [
            {"type": "text", "text": part} for part in [*self._pending, text]
        ]
        self._pending.clear()
        parts += self._attach(text)
        task = asyncio.ensure_future(loop.send(parts, signal=controller.signal))

        def hard_cancel() -> None:
            task.cancel()

        self.terminal.on_interrupt(self.interrupt, hard_cancel)
        self.typed_ahead.begin(loop)
        self.view.begin_turn()
        finished: Finished | None = None
        try:
            finished = await task
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise  # the session itself is being cancelled, not just this turn
            loop.history.truncate(history_length)  # the turn was cut at an arbitrary point
        finally:
            self._save()
            self.view.end_turn()
            self.terminal.end_turn()
            self._controller = None
        aborted = controller.signal.aborted or finished is None
        self.typed_ahead.end(text, finished, aborted=aborted)
        self._conclude(finished, aborted=controller.signal.aborted)

    def _conclude(self, finished: Finished | None, *, aborted: bool) -> None:
        """Say how the turn ended (a refusal alone ends it silently: its box says it)."""
        from qwen_tools.agent.events import StopReason
        from qwen_tools.cli.run_cmd import TURN_LIMIT_MESSAGE

        if finished is not None and finished.text:
            self.last_answer = finished.text
        if finished is None:
            self.console.print("[yellow]Interrupted.[/] [dim](this turn was forgotten)[/]")
        elif finished.reason is StopReason.CANCELLED and aborted:
            self.console.print("[yellow]Request cancelled.[/]")
        elif finished.reason is StopReason.ERROR:
            error = finished.error or "[API Error: An unknown error occurred.]"
            self.console.print(error, style="red", markup=False, highlight=False)
        elif finished.reason is StopReason.MAX_TURNS:
            self.console.print(TURN_LIMIT_MESSAGE, style="yellow", markup=False)
        self.console.print()

    def _banner(self) -> None:
        from rich.text import Text

        banner = Text()
        banner.append("✦ qwen-tools chat", style="bold magenta")
        banner.append(f" (qwen-tools {__version__})", style="dim")  # as Qwen Code's (v0.24.4)
        banner.append(f"  {self.model.model}", style="cyan")
        banner.append(f"  {self.config.target_dir}", style="dim")
        banner.append(f"  mode: {self.config.approval_mode.value}", style="dim")
        self.console.print(banner)
        self.console.print(
            "[dim]Enter sends, Ctrl-J adds a line, /help lists commands, Ctrl-D quits.[/]\n"
        )


def _is_command(line: str) -> bool:
    """``/name ...``, as Qwen Code sees it (``//`` and ``/*`` are text, e.g. comments)."""
    text = line.strip()
    return text.startswith("/") and not text.startswith(("//", "/*"))


def run_chat_command(args: argparse.Namespace) -> int:
    """Entry point of ``qwen-tools chat``."""
    from qwen_tools.cli.run_cmd import open_agent_session

    opened = open_agent_session(args)
    if isinstance(opened, int):
        return opened
    session, model = opened
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        session.close_sync()
        print(NEEDS_TERMINAL, file=sys.stderr)
        return EXIT_USAGE
    from rich.console import Console

    async def chat() -> int:
        async with session:
            console = Console(highlight=False)
            resume = getattr(args, "resume", None)
            return await ChatApp(session, model, console, resume=resume).run()

    try:
        return asyncio.run(chat())
    finally:
        session.close_sync()


def _nothing() -> None:
    return None
