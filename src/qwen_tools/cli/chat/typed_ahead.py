"""What the user types while a turn runs: steered into it, queued after it, or given back.

As in Qwen Code 0.24.4 ("Enter to steer · Ctrl+Q to queue"): Enter sends the typed text into
the running turn (the loop's :class:`~qwen_tools.agent.steering.Steering` adds it at the next
request boundary, and the text is shown as a user line when it is sent), Ctrl+Q queues it;
queued texts are sent, joined, as the next prompt when the turn ends. A ``/command`` or
``!command`` is never steered into the model: it is queued, and runs on its own after the turn. Under the spinner, what
waits is listed. When a turn is cancelled, what was never sent goes back into the input; with
nothing else to give back, the cancelled prompt does (unless a tool ran, as Qwen Code).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from qwen_tools.agent.events import Finished
    from qwen_tools.agent.loop import AgentLoop
    from qwen_tools.cli.chat.screen import ChatView
    from qwen_tools.cli.chat.terminal import TurnTerminal


class TypedAhead:
    """The texts of one chat session waiting to be sent, and the next prompt's start."""

    def __init__(
        self,
        view: ChatView,
        terminal: TurnTerminal,
        attach: Callable[[str], list[dict[str, Any]]] | None = None,
    ) -> None:
        """``attach``: the parts of the files a text's ``@path`` words name (said attached)."""
        self.view = view
        self.terminal = terminal
        self.attach = attach
        self.queued: list[str] = []
        """Texts queued with Ctrl+Q during a turn, sent as the next prompt."""
        self.prefill = ""
        """What the next prompt starts with (a cancelled prompt, given back for editing)."""
        self._loop: AgentLoop | None = None
        view.waiting = self.waiting

    def begin(self, loop: AgentLoop) -> None:
        """A turn of ``loop`` starts: Enter and Ctrl+Q come here until it ends."""
        self._loop = loop
        self.terminal.on_submit(self._submitted)
        loop.steering.on_deliver = self._sent

    def next_prompt(self) -> str | None:
        """The queued texts as one prompt (shown as sent; a command alone), or ``None``."""
        if not self.queued:
            return None
        count = next((i for i, t in enumerate(self.queued) if _command(t)), len(self.queued))
        taken = self.queued[: max(count, 1)]
        del self.queued[: len(taken)]
        line = "\n\n".join(taken)
        self.view.user_line(line)
        return line

    def take_prefill(self) -> str:
        """The start of the next prompt: what was given back, then the text typed ahead."""
        prefill, self.prefill = self.prefill, ""
        return prefill + self.terminal.take_typed()

    def end(self, prompt: str, finished: Finished | None, *, aborted: bool) -> None:
        """The turn of ``prompt`` ended: steering never delivered is queued (or given back
        with the queue after a cancel, or else the cancelled prompt when no tool ran)."""
        unsent = self._loop.steering.take_back() if self._loop is not None else []
        self._loop = None
        if not aborted:
            self.queued[:0] = unsent
            return
        unsent += self.queued
        self.queued.clear()
        if unsent:
            self.prefill = "\n".join(unsent)
        elif not (finished and finished.tool_calls) and not self.terminal.peek_typed():
            self.prefill = prompt

    def waiting(self) -> list[tuple[str, str]]:
        """What waits to be sent, shown under the spinner: ``(label, text)``."""
        steering = self._loop.steering.waiting if self._loop is not None else ()
        return [("steering", t) for t in steering] + [("queued", t) for t in self.queued]

    def _submitted(self, text: str, steer: bool) -> None:
        if steer and self._loop is not None and not _command(text):
            self._loop.steering.add(text, self.attach(text) if self.attach is not None else ())
        else:
            self.queued.append(text)

    def _sent(self, texts: list[str]) -> None:
        for text in texts:
            self.view.user_line(text)


def _command(text: str) -> bool:
    """A ``/command`` or ``!command`` line (run by the chat, not sent to the model)."""
    stripped = text.strip()
    return stripped.startswith("!") or (
        stripped.startswith("/") and not stripped.startswith(("//", "/*"))
    )
