"""Steering: text the user sends into a running turn, delivered at the next request boundary.

As in Qwen Code 0.24.4 ("Enter to steer"), a message typed while the agent works is not a
new prompt: the loop adds it as a user message before its next request, that is after the
results of the calls just run (never between a tool call and its result), or, when the
model has just answered without calling a tool, as one more user message the model answers
before the turn ends. Several messages waiting together become one user message, their texts
separated by ``"\\n\\n"`` parts, as Qwen Code joins the segments it drains; a text's own extra
parts (the files its ``@path`` words attach) follow it.

The chat adds texts from the terminal (:meth:`Steering.add`); :class:`~.loop.AgentLoop`
calls :meth:`Steering.deliver` at its boundaries. What was never delivered (the turn ended
or was cancelled first) is taken back with :meth:`Steering.take_back`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from qwen_tools.agent.history import History

__all__ = ["Steering"]


class Steering:
    """The texts waiting to be sent into the running turn."""

    def __init__(self) -> None:
        self._texts: list[tuple[str, tuple[dict[str, Any], ...]]] = []
        self.on_deliver: Callable[[list[str]], None] | None = None
        """Told the texts when they join the history (the chat shows them)."""

    def add(self, text: str, parts: Sequence[dict[str, Any]] = ()) -> None:
        """Send ``text`` (then ``parts``) into the turn at its next request boundary."""
        if text.strip():
            self._texts.append((text, tuple(parts)))

    @property
    def waiting(self) -> tuple[str, ...]:
        """The texts not delivered yet, oldest first."""
        return tuple(text for text, _ in self._texts)

    def take_back(self) -> list[str]:
        """The texts never delivered (they are forgotten here)."""
        texts, self._texts = self._texts, []
        return [text for text, _ in texts]

    def deliver(self, history: History) -> bool:
        """Append the waiting texts to ``history`` as one user message; ``False``: none."""
        waiting, self._texts = self._texts, []
        if not waiting:
            return False
        parts: list[dict[str, Any]] = []
        for text, extra in waiting:
            if parts:
                parts.append({"type": "text", "text": "\n\n"})
            parts += [{"type": "text", "text": text}, *extra]
        history.append({"role": "user", "content": parts})
        texts = [text for text, _ in waiting]
        if self.on_deliver is not None:
            self.on_deliver(texts)
        return True
