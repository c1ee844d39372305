"""One model answer: text, reasoning, tool calls and usage, from a stream or a single JSON body.

Streamed tool calls arrive as deltas keyed by ``index``: the first delta of a call carries its
``id`` and ``function.name``, the following ones pieces of ``function.arguments``. As in Qwen
Code 0.24.4's streaming parser, a delta with a new ``id`` at an index whose call is already
complete starts a new call, and continuation deltas without an ``id`` go to that index's
latest call. Arguments are parsed once the answer is complete
(:func:`~qwen_tools.model.json_args.parse_tool_arguments`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from qwen_tools.model.errors import ModelResponseError
from qwen_tools.model.json_args import ParsedArguments, parse_tool_arguments

__all__ = ["Completion", "CompletionBuilder", "ModelToolCall", "Usage", "completion_from_json"]


@dataclass(frozen=True)
class Usage:
    """Token counts of one answer (the OpenAI ``usage`` block)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    cached_tokens: int = 0
    reasoning_tokens: int = 0

    @classmethod
    def from_json(cls, raw: Any) -> Usage | None:
        """Read a ``usage`` object; ``None`` when absent."""
        if not isinstance(raw, dict):
            return None

        def count(value: Any) -> int:
            return int(value) if isinstance(value, int | float) and value > 0 else 0

        prompt_details = raw.get("prompt_tokens_details") or {}
        out_details = raw.get("completion_tokens_details") or {}
        cached = raw.get("cached_tokens", prompt_details.get("cached_tokens", 0))
        return cls(
            prompt_tokens=count(raw.get("prompt_tokens")),
            completion_tokens=count(raw.get("completion_tokens")),
            total_tokens=count(raw.get("total_tokens")),
            cached_tokens=count(cached),
            reasoning_tokens=count(out_details.get("reasoning_tokens")),
        )


@dataclass(frozen=True)
class ModelToolCall:
    """A function call requested by the model."""

    id: str
    name: str
    arguments_text: str
    parsed: ParsedArguments

    @property
    def args(self) -> dict[str, Any]:
        """The (possibly repaired) arguments object."""
        return self.parsed.value


@dataclass
class Completion:
    """The model's complete answer to one request."""

    text: str = ""
    reasoning: str = ""
    tool_calls: list[ModelToolCall] = field(default_factory=list)
    finish_reason: str | None = None
    usage: Usage | None = None
    response_id: str | None = None
    ttft_ms: float | None = None
    """Milliseconds from sending the request to the first delta (streaming only)."""
    latency_ms: float = 0.0

    @property
    def truncated(self) -> bool:
        """Cut off by the token limit: ``finish_reason: length`` or unfinished call arguments."""
        return self.finish_reason == "length" or any(c.parsed.truncated for c in self.tool_calls)


@dataclass
class _Slot:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)
    depth: int = 0
    in_string: bool = False
    escape: bool = False

    def feed(self, text: str) -> None:
        self.arguments.append(text)
        for char in text:
            if not self.in_string:
                if char in "{[":
                    self.depth += 1
                elif char in "}]":
                    self.depth -= 1
            if char == '"' and not self.escape:
                self.in_string = not self.in_string
            self.escape = char == "\\" and not self.escape

    @property
    def complete(self) -> bool:
        return self.depth == 0 and not self.in_string and bool("".join(self.arguments).strip())


class CompletionBuilder:
    """Accumulates streamed ``chat.completion.chunk`` objects into a :class:`Completion`."""

    def __init__(self) -> None:
        self.completion = Completion()
        self._text: list[str] = []
        self._reasoning: list[str] = []
        self._slots: list[_Slot] = []
        self._by_index: dict[int, _Slot] = {}
        self._by_id: dict[str, _Slot] = {}

    def add_chunk(self, chunk: Any) -> tuple[str, str]:
        """Take one parsed chunk; returns the (text, reasoning) it added."""
        if not isinstance(chunk, dict):
            raise ModelResponseError("Malformed stream chunk from the model endpoint.")
        if chunk.get("id") and self.completion.response_id is None:
            self.completion.response_id = str(chunk["id"])
        usage = Usage.from_json(chunk.get("usage"))
        if usage is not None:
            self.completion.usage = usage
        text, reasoning = "", ""
        for choice in chunk.get("choices") or []:
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or {}
            piece = delta.get("content")
            if isinstance(piece, str) and piece:
                text += piece
            thought = delta.get("reasoning_content") or delta.get("reasoning")
            if isinstance(thought, str) and thought:
                reasoning += thought
            for call in delta.get("tool_calls") or []:
                if isinstance(call, dict):
                    self._add_call_delta(call)
            if choice.get("finish_reason"):
                self.completion.finish_reason = str(choice["finish_reason"])
        if text:
            self._text.append(text)
        if reasoning:
            self._reasoning.append(reasoning)
        return text, reasoning

    def _add_call_delta(self, delta: dict[str, Any]) -> None:
        index = delta.get("index", 0)
        index = index if isinstance(index, int) else 0
        call_id = delta.get("id") if isinstance(delta.get("id"), str) else ""
        function = delta.get("function") or {}
        name = function.get("name") if isinstance(function.get("name"), str) else ""
        arguments = function.get("arguments")
        arguments = arguments if isinstance(arguments, str) else ""
        slot = self._by_id.get(call_id) if call_id else None
        if slot is None:
            slot = self._by_index.get(index)
            if slot is None or (call_id and slot.id and slot.id != call_id and slot.complete):
                slot = _Slot()
                self._slots.append(slot)
                self._by_index[index] = slot
            if call_id:
                self._by_id[call_id] = slot
        if call_id and not slot.id:
            slot.id = call_id
        if name and not slot.name:
            slot.name = name.strip()
        if arguments:
            slot.feed(arguments)

    def finish(self) -> Completion:
        """The assembled answer (tool calls without a name are dropped, as the reference does)."""
        completion = self.completion
        completion.text = "".join(self._text)
        completion.reasoning = "".join(self._reasoning)
        seen: set[str] = set()
        for position, slot in enumerate(self._slots):
            if not slot.name or (slot.id and slot.id in seen):
                continue
            seen.add(slot.id)
            text = "".join(slot.arguments)
            call_id = slot.id or f"call_{position}"
            completion.tool_calls.append(
                ModelToolCall(call_id, slot.name, text, parse_tool_arguments(text))
            )
        return completion


def completion_from_json(body: Any) -> Completion:
    """A non-streamed ``chat.completion`` object as a :class:`Completion`."""
    if not isinstance(body, dict) or not isinstance(body.get("choices"), list):
        raise ModelResponseError("The model endpoint returned no choices.")
    completion = Completion(
        usage=Usage.from_json(body.get("usage")),
        response_id=str(body["id"]) if body.get("id") else None,
    )
    if not body["choices"]:
        return completion
    choice = body["choices"][0]
    message = choice.get("message") or {} if isinstance(choice, dict) else {}
    content = message.get("content")
    completion.text = content if isinstance(content, str) else ""
    reasoning = message.get("reasoning_content") or message.get("reasoning")
    completion.reasoning = reasoning if isinstance(reasoning, str) else ""
    completion.finish_reason = choice.get("finish_reason") or "stop"
    for position, call in enumerate(message.get("tool_calls") or []):
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict) or not function.get("name"):
            continue
        text = function.get("arguments")
        text = text if isinstance(text, str) else ""
        call_id = call.get("id") or f"call_{position}"
        completion.tool_calls.append(
            ModelToolCall(str(call_id), str(function["name"]), text, parse_tool_arguments(text))
        )
    return completion
