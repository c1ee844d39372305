"""The conversation in OpenAI message format, each message JSON-encoded exactly once.

A request carries the whole history, so re-serialising it every turn would make each turn
cost more than the last. :class:`History` encodes a message when it is appended and keeps
the encoded messages joined in one growing buffer, which a request sends as it is (see
:mod:`.request`): whatever the number of turns, a turn encodes only its new messages.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

__all__ = ["History", "encode_json"]


def encode_json(value: Any) -> bytes:
    """Compact UTF-8 JSON, as ``JSON.stringify`` writes it.

    A lone surrogate (a model's ``\\ud800``, a file name that is not UTF-8) can only stand in a
    string literal here, so ``backslashreplace`` writes exactly its JSON escape, as
    ``JSON.stringify`` does, where a plain encode would raise.
    """
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.encode("utf-8", "backslashreplace")


class History:
    """Append-only (with rollback) list of chat messages plus their joined JSON encoding."""

    __slots__ = ("_buffer", "_messages", "_offsets")

    def __init__(self, messages: Sequence[dict[str, Any]] = ()) -> None:
        self._messages: list[dict[str, Any]] = []
        self._offsets: list[int] = []
        self._buffer = bytearray()
        for message in messages:
            self.append(message)

    def __len__(self) -> int:
        return len(self._messages)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self._messages)

    def __getitem__(self, index: int) -> dict[str, Any]:
        return self._messages[index]

    @property
    def messages(self) -> list[dict[str, Any]]:
        """A copy of the messages, oldest first (treat the dicts as read-only)."""
        return list(self._messages)

    def append(self, message: dict[str, Any]) -> None:
        """Add one message; it is encoded now and never again (do not mutate it later)."""
        encoded = encode_json(message)
        self._offsets.append(len(self._buffer))
        if self._buffer:
            self._buffer += b","
        self._buffer += encoded
        self._messages.append(message)

    def extend(self, messages: Sequence[dict[str, Any]]) -> None:
        """Append several messages in order."""
        for message in messages:
            self.append(message)

    def truncate(self, length: int) -> None:
        """Drop every message after the first ``length`` (to roll back an unfinished turn)."""
        if length >= len(self._messages):
            return
        cut = self._offsets[length]
        del self._buffer[cut:]
        del self._offsets[length:]
        del self._messages[length:]

    def encoded(self) -> bytes | bytearray:
        """The messages as the inside of a JSON array (``m1,m2,...``), without copying."""
        return self._buffer
