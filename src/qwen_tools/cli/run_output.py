"""``qwen-tools run`` output: Qwen Code 0.24.4's headless ``text``, ``json`` and ``stream-json``.

The message shapes are the reference's (``BaseJsonOutputAdapter``): a ``system``/``init``
message; one ``assistant`` message per content kind of a turn (text and tool calls go in
separate messages, the turn's ``usage`` on the last one; ``stop_reason`` is ``tool_use`` for
a tool-call message); a ``user`` message with one ``tool_result`` block per finished call (the
text the user would see, at most 64 KiB of JSON); and a final ``result``. ``json`` prints all
of them as one array at the end, ``stream-json`` one per line as they happen (plus
``stream_event`` lines with ``--include-partial-messages``), ``text`` only the final answer.
"""

from __future__ import annotations

import json
import sys
import uuid
from typing import TYPE_CHECKING, Any, TextIO

from qwen_tools.agent.events import (
    AgentEvent,
    ModelTurn,
    Retrying,
    TextDelta,
    ThinkingDelta,
    ToolCallFinished,
    TurnStarted,
)

if TYPE_CHECKING:
    from qwen_tools.execution.call_types import CompletedToolCall
    from qwen_tools.model.completion import Usage

__all__ = ["HeadlessOutput", "project_text"]

TOOL_RESULT_BUDGET = 65536
TRUNCATION_MARKER = "\n[... truncated for Headless transport ...]\n"


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _char_bytes(char: str) -> int:
    """Bytes of one character inside a JSON string (escapes counted)."""
    code = ord(char)
    if char in '"\\':
        return 2
    if code <= 31:
        return 2 if char in "\b\t\n\f\r" else 6
    if code <= 127:
        return 1
    if code <= 2047:
        return 2
    if 0xD800 <= code <= 0xDFFF:
        return 6
    return 3 if code <= 0xFFFF else 4


def project_text(value: str, budget: int = TOOL_RESULT_BUDGET) -> str:
    """``value`` cut to ``budget`` bytes of JSON: the first 20 % and last 80 % around a marker."""
    payload = budget - 2
    total = 0
    for char in value:
        total += _char_bytes(char)
        if total > payload:
            break
    else:
        return value
    marker_bytes = sum(_char_bytes(c) for c in TRUNCATION_MARKER)
    source = payload - marker_bytes
    head_budget = source // 5
    tail_budget = source - head_budget
    head, used = 0, 0
    while head < len(value) and used + _char_bytes(value[head]) <= head_budget:
        used += _char_bytes(value[head])
        head += 1
    tail, used = len(value), 0
    while tail > head and used + _char_bytes(value[tail - 1]) <= tail_budget:
        used += _char_bytes(value[tail - 1])
        tail -= 1
    return value[:head] + TRUNCATION_MARKER + value[tail:]


def _usage(usage: Usage | None) -> dict[str, int]:
    if usage is None:
        return {"input_tokens": 0, "output_tokens": 0}
    return {
        "input_tokens": usage.prompt_tokens,
        "output_tokens": usage.completion_tokens,
        "cache_read_input_tokens": usage.cached_tokens,
        "total_tokens": usage.total_tokens,
    }


def tool_result_text(completed: CompletedToolCall) -> str | None:
    """What the reference shows for a finished call: the error, else the display, else the output."""
    response = completed.response
    if response.error:
        return response.error
    display = completed.display
    text = display if isinstance(display, str) else getattr(display, "text", None)
    if isinstance(text, str) and text.strip():
        return text
    return response.output


class HeadlessOutput:
    """Turns loop events into the reference's messages and writes them in one output format."""

    def __init__(
        self,
        fmt: str,
        *,
        session_id: str,
        model: str,
        partial: bool = False,
        stdout: TextIO | None = None,
    ) -> None:
        self.fmt = fmt
        self.session_id = session_id
        self.model = model
        self.partial = partial and fmt == "stream-json"
        self.out = stdout or sys.stdout
        self.messages: list[dict[str, Any]] = []
        self.denials: list[dict[str, Any]] = []
        self.last_assistant: dict[str, Any] | None = None
        self._blocks: list[dict[str, Any]] = []
        self._kind: str | None = None
        self._message_id = ""
        self._usage: dict[str, int] = _usage(None)
        self._started = False
        self._turn_start = 0
        self._streamed_text = False
        self._turn_announced = False

    # -- writing ---------------------------------------------------------------------------

    def _emit(self, message: dict[str, Any]) -> None:
        if message.get("type") == "assistant":
            self.last_assistant = message
        if self.fmt == "stream-json":
            self.out.write(_dumps(message) + "\n")
            self.out.flush()
        self.messages.append(message)

    def _stream_event(self, event: dict[str, Any]) -> None:
        if self.partial:
            self._emit(self._envelope("stream_event", event=event))

    def _envelope(self, kind: str, **fields: Any) -> dict[str, Any]:
        return {
            "type": kind,
            "uuid": str(uuid.uuid4()),
            "session_id": self.session_id,
            "parent_tool_use_id": None,
            **fields,
        }

    def system_init(self, info: dict[str, Any]) -> None:
        """The first message: session, tools, model and permission mode."""
        self._emit(
            {
                "type": "system",
                "subtype": "init",
                "uuid": self.session_id,
                "session_id": self.session_id,
                **info,
            }
        )

    def system_message(self, subtype: str, data: dict[str, Any]) -> None:
        """A ``system`` message with a payload (e.g. ``retry``)."""
        self._emit(self._envelope("system", subtype=subtype, data=data))

    # -- assistant messages ------------------------------------------------------------------

    def _start_message(self) -> None:
        self._message_id = str(uuid.uuid4())
        self._blocks, self._kind, self._started = [], None, False
        self._usage = _usage(None)

    def _ensure_started(self) -> None:
        if self._started:
            return
        self._started = True
        if not self._turn_announced:
            self._turn_announced = True
            self._stream_event(
                {
                    "type": "message_start",
                    "message": {
                        "id": self._message_id,
                        "role": "assistant",
                        "model": self.model,
                        "content": [],
                    },
                }
            )

    def _switch_kind(self, kind: str) -> None:
        if self._kind is not None and self._kind != kind:
            self._finalize(stop=False)
            self._start_message()
        self._kind = kind

    def _append_text(self, kind: str, text: str) -> None:
        if not text:
            return
        self._switch_kind(kind)
        self._ensure_started()
        field = "text" if kind == "text" else "thinking"
        if not self._blocks or self._blocks[-1]["type"] != kind:
            block: dict[str, Any] = {"type": kind, field: ""}
            self._blocks.append(block)
            self._stream_event(
                {
                    "type": "content_block_start",
                    "index": len(self._blocks) - 1,
                    "content_block": dict(block),
                }
            )
        self._blocks[-1][field] += text
        delta = (
            {"type": "text_delta", "text": text}
            if kind == "text"
            else {"type": "thinking_delta", "thinking": text}
        )
        self._stream_event(
            {"type": "content_block_delta", "index": len(self._blocks) - 1, "delta": delta}
        )

    def _append_tool_use(self, call_id: str, name: str, args: Any) -> None:
        self._switch_kind("tool_use")
        self._ensure_started()
        index = len(self._blocks)
        self._blocks.append({"type": "tool_use", "id": call_id, "name": name, "input": args})
        start = {"type": "tool_use", "id": call_id, "name": name, "input": {}}
        self._stream_event({"type": "content_block_start", "index": index, "content_block": start})
        partial = {
            "type": "input_json_delta",
            "partial_json": _dumps(args if args is not None else {}),
        }
        self._stream_event({"type": "content_block_delta", "index": index, "delta": partial})
        self._stream_event({"type": "content_block_stop", "index": index})

    def _finalize(self, *, stop: bool = True) -> None:
        if not self._started:
            return
        if self._blocks and self._blocks[-1]["type"] in ("text", "thinking"):
            self._stream_event({"type": "content_block_stop", "index": len(self._blocks) - 1})
        all_tools = bool(self._blocks) and all(b["type"] == "tool_use" for b in self._blocks)
        self._emit(
            self._envelope(
                "assistant",
                message={
                    "id": self._message_id,
                    "type": "message",
                    "role": "assistant",
                    "model": self.model,
                    "content": self._blocks,
                    "stop_reason": "tool_use" if all_tools else None,
                    "usage": self._usage,
                },
            )
            | {"uuid": self._message_id}
        )
        if stop and self._turn_announced:
            self._stream_event({"type": "message_stop"})
            self._turn_announced = False
        self._started = False

    # -- events ------------------------------------------------------------------------------

    def on_event(self, event: AgentEvent) -> None:
        """Feed one loop event."""
        if isinstance(event, TurnStarted):
            self._turn_start = len(self.messages)
            self._streamed_text = False
            self._start_message()
        elif isinstance(event, TextDelta):
            self._streamed_text = True
            self._append_text("text", event.text)
        elif isinstance(event, ThinkingDelta):
            self._append_text("thinking", event.text)
        elif isinstance(event, Retrying) and event.kind == "truncated":
            self._restart_attempt(event)
        elif isinstance(event, ModelTurn):
            if not self._streamed_text:
                self._append_text("text", event.completion.text)
            for call in event.completion.tool_calls:
                self._append_tool_use(call.id, call.name, call.args)
            self._usage = _usage(event.completion.usage)
            self._finalize()
        elif isinstance(event, ToolCallFinished):
            self.tool_result(event.completed)

    def _restart_attempt(self, event: Retrying) -> None:
        if self.fmt == "stream-json":
            self._finalize()
        else:
            self.messages = [
                m
                for i, m in enumerate(self.messages)
                if i < self._turn_start or m["type"] != "assistant"
            ]
        self._start_message()
        self._streamed_text = False
        self.system_message(
            "retry",
            {
                "reason": "retry",
                "discardedToolCalls": event.discarded_tool_calls,
                "preserveText": False,
            },
        )

    def tool_result(self, completed: CompletedToolCall) -> None:
        """The ``user`` message carrying one call's result."""
        request = completed.request
        if completed.error_type is not None and completed.error_type.value == "execution_denied":
            self.denials.append(
                {
                    "tool_name": request.name,
                    "tool_use_id": request.call_id,
                    "tool_input": request.args,
                }
            )
        block: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": request.call_id,
            "is_error": completed.status != "success",
        }
        text = tool_result_text(completed)
        if text is not None:
            block["content"] = project_text(text)
        self._emit(self._envelope("user", message={"role": "user", "content": [block]}))

    def api_error(self, text: str) -> None:
        """The failed turn's message shows the error text, as the reference's adapter does."""
        self._append_text("text", text)
        self._finalize()

    # -- the end -----------------------------------------------------------------------------

    def result(
        self,
        *,
        is_error: bool,
        duration_ms: float,
        api_ms: float,
        turns: int,
        usage: dict[str, int],
        stats: dict[str, Any] | None,
        error: str | None = None,
    ) -> None:
        """Write the final ``result`` (and, for ``json``, the whole array)."""
        base = {
            "type": "result",
            "subtype": "error_during_execution" if is_error else "success",
            "uuid": str(uuid.uuid4()),
            "session_id": self.session_id,
            "is_error": is_error,
            "duration_ms": round(duration_ms),
            "duration_api_ms": round(api_ms),
            "num_turns": turns,
        }
        if is_error:
            message = base | {
                "usage": usage,
                "permission_denials": list(self.denials),
                "error": {"message": error or "Unknown error"},
            }
        else:
            blocks = self.last_assistant["message"]["content"] if self.last_assistant else []
            text = "".join(b["text"] for b in blocks if b["type"] == "text")
            message = base | {
                "result": text,
                "usage": usage,
                "permission_denials": list(self.denials),
            }
            if stats is not None and self.fmt == "json":
                message["stats"] = stats
        self._emit(message)
        if self.fmt == "json":
            self.out.write(_dumps(self.messages) + "\n")
        elif self.fmt == "text":
            if is_error:
                sys.stderr.write(f"{error or ''}\n")
            else:
                self.out.write(f"{message['result']}\n")
        self.out.flush()
