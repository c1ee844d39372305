"""Chat-completion request bodies assembled from pre-encoded fragments.

The body has the field order Qwen Code 0.24.4 sends: ``model``, ``messages`` (the system
prompt, then the history), the sampling fields (``max_tokens`` when the user set no
``samplingParams``), ``stream`` (+ ``stream_options: {"include_usage": true}``), ``tools``,
then any ``extra_body`` fields. Everything but the history is encoded once per loop (the
tool declarations again only when the registry changes), and the history is one buffer
(:class:`~.history.History`); :meth:`RequestBuilder.parts` hands the fragments to the client
without joining them, so a turn does not even copy the conversation.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from qwen_tools.agent.history import History, encode_json
from qwen_tools.model.caps import default_max_tokens, has_known_output_limit

if TYPE_CHECKING:
    from qwen_tools.model.model_config import ModelConfig
    from qwen_tools.registry.registry import ToolRegistry

__all__ = ["RequestBuilder", "initial_max_tokens"]


def initial_max_tokens(model: ModelConfig) -> int | None:
    """``max_tokens`` for a request, or ``None`` when ``samplingParams`` takes over.

    As the reference does: ``QWEN_CODE_MAX_OUTPUT_TOKENS`` (capped by a known model's limit),
    else the model's default ceiling.
    """
    if model.sampling is not None:
        return None
    raw = os.environ.get("QWEN_CODE_MAX_OUTPUT_TOKENS", "").strip()
    if raw.isdigit() and int(raw) > 0:
        value = int(raw)
        if has_known_output_limit(model.model):
            return min(value, default_max_tokens(model.model))
        return value
    return default_max_tokens(model.model)


def user_sets_max_tokens(model: ModelConfig) -> bool:
    """Whether the user chose the output limit (then a truncated turn is not escalated)."""
    sampling = model.sampling or {}
    return sampling.get("max_tokens") is not None or bool(
        os.environ.get("QWEN_CODE_MAX_OUTPUT_TOKENS", "").strip().isdigit()
    )


class RequestBuilder:
    """Builds request bodies for one model, system prompt and tool registry."""

    def __init__(
        self,
        model: ModelConfig,
        system_prompt: str | None,
        registry: ToolRegistry | None,
        *,
        stream: bool,
    ) -> None:
        self.model = model
        self.registry = registry
        self.stream = stream
        self._head = b'{"model":' + encode_json(model.model) + b',"messages":['
        self._system = (
            encode_json({"role": "system", "content": system_prompt}) if system_prompt else b""
        )
        self._sampling = b"".join(
            b"," + encode_json(k) + b":" + encode_json(v) for k, v in (model.sampling or {}).items()
        )
        stream_part = b',"stream":true,"stream_options":{"include_usage":true}'
        self._stream = stream_part if stream else b',"stream":false'
        self._extra = b"".join(
            b"," + encode_json(k) + b":" + encode_json(v) for k, v in model.extra_body.items()
        )
        self._tools_key: tuple[str, ...] | None = None
        self._tools = b""

    def _tools_fragment(self) -> bytes:
        """``,"tools":[...]`` (empty without tools), re-encoded only when the tool set changes.

        Deferred tools hidden behind ``tool_search`` / ``tool_call`` are left out
        (:mod:`qwen_tools.mcp.deferred_tools`)."""
        if self.registry is None:
            return b""
        from qwen_tools.mcp.deferred_tools import hidden_names, model_declarations

        key = (*self.registry.get_all_tool_names(), "", *hidden_names(self.registry))
        if key != self._tools_key:
            declarations = model_declarations(self.registry, "openai")
            self._tools = b',"tools":' + encode_json(declarations) if declarations else b""
            self._tools_key = key
        return self._tools

    def parts(self, history: History, *, max_tokens: int | None) -> list[bytes | bytearray]:
        """The body as three fragments: what precedes the history, the history, what follows.

        The history is the live buffer, not a copy: send the fragments before it changes (the
        client streams them as the body). The other two are small and of constant size.
        """
        messages = history.encoded()
        head = self._head + self._system + (b"," if self._system and messages else b"")
        tail = [b"]", self._sampling]
        if max_tokens is not None and not self._has_sampling_max_tokens():
            tail.append(b',"max_tokens":' + str(max_tokens).encode())
        tail.extend((self._stream, self._tools_fragment(), self._extra, b"}"))
        return [head, messages, b"".join(tail)]

    def body(self, history: History, *, max_tokens: int | None) -> bytes:
        """The full JSON body for the current history, as one bytes object."""
        return b"".join(self.parts(history, max_tokens=max_tokens))

    def _has_sampling_max_tokens(self) -> bool:
        return "max_tokens" in (self.model.sampling or {})
