"""What a turn looks like while it runs: a live region under the scrollback (rich ``Live``).

Finished things (a complete model message, a finished tool call) are printed once, above the
live region, and stay in the terminal's scrollback. The live region holds what is still
changing: the tail of the message being streamed, the boxes of calls still running (with the
tail of a shell command's output), the todo items not done yet ("Current tasks", as Qwen Code
pins them), a spinner line (time, tokens received, how to cancel), the texts sent into the
turn or queued but not delivered yet, and the text typed ahead (Enter steers, Ctrl+Q queues). One asyncio task redraws it ``FPS``
times a second (never per delta, so a fast stream cannot flood the terminal), and it is erased
when the turn ends or a dialog needs the screen.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from qwen_tools.cli.chat.stream_view import TailView, message_renderable, thought_renderable
from qwen_tools.cli.chat.tool_box import CallView
from qwen_tools.contract.display import TodoListDisplay
from qwen_tools.execution.scheduler import ToolCallStatus

if TYPE_CHECKING:
    from rich.console import Console, RenderableType
    from rich.live import Live

    from qwen_tools.agent.events import AgentEvent
    from qwen_tools.contract.display import ToolResultDisplay
    from qwen_tools.execution.call_types import CompletedToolCall, ToolCallRequest
    from qwen_tools.registry.registry import ToolRegistry

FPS = 12


class ChatView:
    """The renderer of one session's turns; feed it the loop's events."""

    def __init__(self, console: Console, registry: ToolRegistry) -> None:
        self.console = console
        self.registry = registry
        self._live: Live | None = None
        self._ticker: asyncio.Task[None] | None = None
        self._active = False
        self._text = ""
        self._thought = ""
        self._calls: list[CallView] = []
        self._by_id: dict[str, CallView] = {}
        self._status = "Thinking"
        self._started = 0.0
        self._cancelling = False
        self._held = False
        self._held_at = 0.0
        self.on_pause: Callable[[], None] | None = None
        """Called when the live region goes away (the app gives the terminal back)."""
        self.on_resume: Callable[[], None] | None = None
        """Called when it comes back (the app silences typed keys again)."""
        self.typed: Callable[[], str] | None = None
        """The text typed ahead during the turn, shown under the spinner."""
        self.waiting: Callable[[], list[tuple[str, str]]] | None = None
        """Texts waiting to be sent, ``(label, text)`` (steering, queued), shown likewise."""
        self._tokens = 0
        self._todos: TodoListDisplay | None = None

    # -- turn lifecycle ---------------------------------------------------------------------

    def begin_turn(self) -> None:
        """Show the live region (spinner) for a new turn."""
        self._active = True
        self._cancelling = False
        self._started = time.monotonic()
        self._status = "Thinking"
        self._tokens = 0
        self._todos = None  # pinned only once this prompt's turn writes its todos
        self.resume()

    def end_turn(self) -> None:
        """Flush what is left (message, calls) and remove the live region."""
        self.end_message()
        for view in self._calls:
            self._print(view.render())
        self._calls.clear()
        self._by_id.clear()
        self._active = False
        self.pause()

    def cancelling(self) -> None:
        """Say that the user asked to cancel (shown until the turn ends)."""
        self._cancelling = True
        self._touch()

    def hold(self) -> None:
        """Erase the live region and keep it away until :meth:`release` (a dialog is open)."""
        self._held = True
        self._held_at = time.monotonic()
        self.pause()

    def release(self, *, resume: bool = True) -> None:
        """End a :meth:`hold`; with ``resume=False`` the region comes back on the next event."""
        self._held = False
        # the time spent answering a dialog is not the turn's working time
        self._started += time.monotonic() - self._held_at
        if resume:
            self.resume()

    def pause(self) -> None:
        """Erase the live region; :meth:`resume` (or the next event) brings it back."""
        if self._ticker is not None:
            self._ticker.cancel()
            self._ticker = None
        if self._live is not None:
            live, self._live = self._live, None
            live.stop()
            if self.on_pause is not None:
                self.on_pause()

    def resume(self) -> None:
        """Redraw the live region if a turn is running and no dialog holds the screen."""
        if not self._active or self._live is not None or self._held:
            return
        if self.on_resume is not None:
            self.on_resume()
        from rich.live import Live

        self._live = Live(
            self,
            console=self.console,
            auto_refresh=False,
            transient=True,
            redirect_stdout=False,
            redirect_stderr=False,
            vertical_overflow="crop",
        )
        self._live.start(refresh=True)
        with contextlib.suppress(RuntimeError):  # no running loop: refreshed on events only
            self._ticker = asyncio.get_running_loop().create_task(self._tick())

    async def _tick(self) -> None:
        frame = 1 / FPS
        while True:
            await asyncio.sleep(frame)
            if self._live is not None:
                self._live.refresh()

    # -- events -----------------------------------------------------------------------------

    def text_delta(self, text: str) -> None:
        """A piece of the model's message."""
        self._text += text
        self._status = "Responding"
        self._touch()

    def thought_delta(self, text: str) -> None:
        """A piece of the model's reasoning (shown dimmed while it streams)."""
        self._thought += text
        self._touch()

    def end_message(self) -> None:
        """The model's message is complete: print it as Markdown, once."""
        if self._thought.strip():
            self._print(thought_renderable(_last_paragraph(self._thought)))
        self._thought = ""
        if self._text.strip():
            self._print(message_renderable(self._text.strip("\n")))
        self._text = ""

    def handle(self, event: AgentEvent) -> None:
        """Take in one event of the agent loop."""
        from qwen_tools.agent import events as ev

        if isinstance(event, ev.TextDelta):
            self.text_delta(event.text)
        elif isinstance(event, ev.ThinkingDelta):
            self.thought_delta(event.text)
        elif isinstance(event, ev.TurnStarted):
            self._status = "Thinking"
            self._touch()
        elif isinstance(event, ev.Retrying):
            if event.discard_output:
                self._text = self._thought = ""
            if event.kind == "truncated":
                self.notice("The answer was cut short; asking again with a larger limit.")
            else:
                self.notice(f"Retrying in {event.delay_s:.0f}s: {event.reason}", "yellow")
        elif isinstance(event, ev.ModelTurn):
            completion = event.completion
            if not self._text.strip() and completion.text.strip():
                self._text = completion.text  # the answer was not streamed
            usage = completion.usage
            self.end_message()
            self._tokens += usage.completion_tokens if usage else len(completion.text) // 4
            for request in event.requests:
                self._call(request)
        elif isinstance(event, ev.ToolCallScheduled):
            self._update(event.request, ToolCallStatus.SCHEDULED)
        elif isinstance(event, ev.ToolCallAwaitingApproval):
            self._update(event.request, ToolCallStatus.AWAITING_APPROVAL)
        elif isinstance(event, ev.ToolCallStarted):
            self._status = "Running"
            self._update(event.request, ToolCallStatus.EXECUTING)
        elif isinstance(event, ev.ToolCallOutput):
            self._update(event.request, ToolCallStatus.EXECUTING, output=event.output)
        elif isinstance(event, ev.ToolCallFinished):
            done = event.completed
            if isinstance(done.display, TodoListDisplay):
                self._todos = done.display
            self._update(done.request, ToolCallStatus(done.status), completed=done)
        elif isinstance(event, ev.TurnFinished):
            self._status = "Thinking"
        elif isinstance(event, ev.Finished):
            self.end_message()

    def _call(self, request: ToolCallRequest) -> CallView:
        view = self._by_id.get(request.call_id)
        if view is None:
            view = CallView.create(self.registry, request)
            self._by_id[request.call_id] = view
            self._calls.append(view)
        return view

    def _update(
        self,
        request: ToolCallRequest,
        status: ToolCallStatus,
        *,
        output: ToolResultDisplay | None = None,
        completed: CompletedToolCall | None = None,
    ) -> None:
        self.end_message()
        self._call(request).update(status, output=output, completed=completed)
        while self._calls and self._calls[0].final:
            done = self._calls.pop(0)
            self._by_id.pop(done.request.call_id, None)
            self._print(done.render())
        if status is not ToolCallStatus.AWAITING_APPROVAL:  # its dialog comes next
            self._touch()

    def _touch(self) -> None:
        if self._live is None:
            self.resume()

    def call_view(self, call_id: str) -> CallView | None:
        """The view of a call still on the live region."""
        return self._by_id.get(call_id)

    def notice(self, text: str, style: str = "dim") -> None:
        """A line of information above the live region."""
        from rich.text import Text

        self._print(Text(text, style=style))

    # -- rendering --------------------------------------------------------------------------

    def user_line(self, text: str) -> None:
        """A user message sent without the prompt (steered into the turn, or queued)."""
        from rich.text import Text

        self._print(Text.assemble(("> ", "bold"), (text, "")))

    def _print(self, renderable: RenderableType) -> None:
        self.console.print(renderable)

    def __rich__(self) -> RenderableType:
        from rich.console import Group
        from rich.spinner import Spinner
        from rich.text import Text

        parts: list[RenderableType] = []
        tasks = current_tasks(self._todos)
        typed = self.typed() if self.typed is not None else ""
        waiting = self.waiting() if self.waiting is not None else []
        # what shows under the message: the tasks' box, the spinner, the waiting and typed lines
        below = (tasks_height(self._todos) if tasks is not None else 0) + (2 if typed else 1)
        below += len(waiting)
        room = max(4, self.console.height - 2 - below)
        if self._thought.strip() and not self._text:
            parts.append(TailView(thought_renderable(self._thought), min(room, 6)))
        if self._text.strip():
            parts.append(TailView(message_renderable(self._text.strip("\n")), room))
        parts.extend(view.render() for view in self._calls)
        if tasks is not None:
            parts.append(tasks)
        if not any(v.status is ToolCallStatus.AWAITING_APPROVAL for v in self._calls):
            elapsed = int(time.monotonic() - self._started)
            label = "Cancelling" if self._cancelling else self._status
            tokens = self._tokens + len(self._text) // 4  # the part still streaming: estimated
            received = f" · ↓ {tokens} tokens" if tokens else ""
            hint = Text.assemble(
                (f"{label}… ", "bold cyan"), (f"({elapsed}s{received} · esc to cancel)", "dim")
            )
            parts.append(Spinner("dots", text=hint, style="cyan"))
        for label, said in waiting:
            line = " ".join(said.split())
            room = max(8, self.console.width - len(label) - 6)
            cut = line if len(line) <= room else line[: room - 1] + "…"
            parts.append(Text.assemble((f"  {label}: ", "dim"), (cut, "")))
        if typed:
            keys = "  (enter to steer · ctrl+q to queue)"
            room = max(8, self.console.width - len(keys) - 3)  # one line: the end of a long text
            shown = typed if len(typed) <= room else "…" + typed[len(typed) - room + 1 :]
            parts.append(Text.assemble(("> ", "bold"), (shown, ""), (keys, "dim")))
        return Group(*parts)


def tasks_height(todos: TodoListDisplay | None) -> int:
    """The lines :func:`current_tasks` takes (one per item, cut to the width)."""
    if todos is None:
        return 0
    return 3 + sum(todo.status != "completed" for todo in todos.todos)


def current_tasks(todos: TodoListDisplay | None) -> RenderableType | None:
    """The todo items not done yet, numbered as in the whole list (``None`` when all are)."""
    from rich import box
    from rich.panel import Panel
    from rich.text import Text

    if todos is None:
        return None
    if tasks_height(todos) == 3:
        return None
    text = Text(no_wrap=True, overflow="ellipsis")  # one line per item (see tasks_height)
    text.append("Current tasks", style="bold")
    for number, todo in enumerate(todos.todos, 1):
        if todo.status == "in_progress":
            text.append(f"\n{number}. ◐ {todo.content}", style="bold")
        elif todo.status != "completed":
            text.append(f"\n{number}. ○ {todo.content}")
    return Panel(text, box=box.ROUNDED, border_style="bright_black", padding=(0, 1), expand=False)


def _last_paragraph(text: str) -> str:
    """The end of a long reasoning text (its last paragraph, at most 400 characters)."""
    paragraphs = [p for p in text.strip().split("\n\n") if p.strip()]
    last = paragraphs[-1] if paragraphs else ""
    return last if len(last) <= 400 else "…" + last[-399:]
