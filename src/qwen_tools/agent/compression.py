"""Compressing the conversation: the model's summary replaces the history (Qwen Code 0.24.4).

One routine, :meth:`Compressor.compress`, serves both triggers: ``/compress`` (``manual``) and
the automatic one (``auto``), which :meth:`Compressor.auto` fires before a model request once
the conversation nears the model's context window. As in 0.24.4:

* **When**: the prompt's tokens reach ``min(f × window, window − 20,000 − 13,000)`` (or
  ``f × window`` when that ceiling is not positive), ``f`` being the ``context.autoCompactThreshold``
  setting (0 < f ≤ 1, default 0.85). The tokens are the last answer's reported usage
  (``prompt_tokens`` + ``completion_tokens``) plus an estimate (4 characters a token) of what
  was added since; without reported usage, an estimate of the whole history. After three
  failed automatic attempts in a row it stops trying (a successful ``/compress`` resets that).
* **What**: the whole history goes to the model (no tools) under :data:`.COMPRESSION_PROMPT`,
  with ``Additional Instructions:`` from ``/compress <text>`` (2,000 characters at most) and
  from PreCompact hooks (4,000); PreCompact fires first (``trigger``, ``custom_instructions``;
  only its ``additionalContext`` counts: a hook cannot block, and a failing hook is ignored).
  The new history is the summary (``<analysis>`` stripped, the resume line added) and an
  acknowledgement, then what had not been answered yet: a new prompt, or the tool results of
  the last calls — those calls then move into the acknowledgement, so a call and its result
  are never parted. PostCompact fires after a success (``trigger``, ``compact_summary``).
* **Failures** keep the history as it was: the request failed, the summary was empty or cut
  off, or the new history would not be smaller (0.24.4's token arithmetic).

Differences: the opening ``<system-reminder>`` parts (environment, workspace) are kept before
the summary, as our environment is part of the first message; 0.24.4's restored recent files
and images, plan-mode and background-task reminders are not added; the summary request is not
streamed and goes through the client's usual retries; a call's cut-off is judged by
``finish_reason``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from qwen_tools.agent.compression_texts import (
    ACKNOWLEDGEMENT,
    DIRECTIVE,
    CompressionStatus,
    status_text,
    strip_analysis,
    summary_text,
    system_prompt,
)
from qwen_tools.agent.history import encode_json
from qwen_tools.agent.hooks import post_compact, pre_compact
from qwen_tools.contract.abort import AbortSignal
from qwen_tools.model.errors import ModelError, format_api_error

if TYPE_CHECKING:
    from qwen_tools.agent.history import History
    from qwen_tools.agent.stats import SessionStats
    from qwen_tools.config.config import Config
    from qwen_tools.model.client import ChatClient
    from qwen_tools.model.completion import Usage
    from qwen_tools.model.model_config import ModelConfig

__all__ = [
    "DEFAULT_THRESHOLD",
    "MAX_FAILURES",
    "MAX_INSTRUCTIONS_CHARS",
    "Compression",
    "CompressionStatus",
    "Compressor",
    "auto_threshold",
    "estimate_tokens",
    "threshold_setting",
]

DEFAULT_THRESHOLD = 0.85
SUMMARY_RESERVE = 20_000
AUTOCOMPACT_BUFFER = 13_000
MAX_FAILURES = 3
MAX_INSTRUCTIONS_CHARS = 2000
MAX_HOOK_CONTEXT_CHARS = 4000
PROMPT_OVERHEAD = 1000
"""Tokens of the summary request that are not the history (its prompt), as 0.24.4 counts."""
_SAFETY_MARGIN = 1024
_CHARS_PER_TOKEN = 4
_MEDIA_TOKENS = 1600


def threshold_setting(config: Config) -> float | None:
    """``context.autoCompactThreshold`` when it is a number in (0, 1], else ``None``."""
    loaded = config.loaded_settings
    value = loaded.get("context.autoCompactThreshold") if loaded is not None else None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if 0 < value <= 1 else None


def auto_threshold(window: int, fraction: float | None = None) -> float:
    """The prompt size (tokens) at which the conversation is compressed on its own."""
    share = min(1.0, max(0.0, DEFAULT_THRESHOLD if fraction is None else fraction))
    proportional = share * window
    ceiling = max(0, window - SUMMARY_RESERVE) - AUTOCOMPACT_BUFFER
    return min(proportional, ceiling) if ceiling > 0 else proportional


def _chars(message: dict[str, Any]) -> int:
    content = message.get("content")
    count = len(content) if isinstance(content, str) else 0
    for part in content if isinstance(content, list) else ():
        if not isinstance(part, dict):
            continue
        if part.get("type") == "text":
            count += len(str(part.get("text", "")))
        else:  # an image, audio, a file: counted as 0.24.4 counts an image
            count += _MEDIA_TOKENS * _CHARS_PER_TOKEN
    for call in message.get("tool_calls") or ():
        function = call.get("function") or {}
        count += len(str(function.get("name", ""))) + len(str(function.get("arguments", "")))
    return count


def estimate_tokens(messages: Sequence[dict[str, Any]]) -> int:
    """Tokens of ``messages`` estimated as 0.24.4 does (4 characters a token)."""
    return math.ceil(sum(_chars(m) for m in messages) / _CHARS_PER_TOKEN)


@dataclass(frozen=True)
class Compression:
    """How one compression ended; the history changed only when ``compressed``."""

    status: CompressionStatus
    trigger: str
    before: int
    after: int
    before_estimated: bool = False
    error: str | None = None
    """The model error, when the summary request failed."""
    failures: int = 0
    """Failed automatic compressions in a row, this one included."""

    @property
    def compressed(self) -> bool:
        return self.status is CompressionStatus.COMPRESSED

    def text(self) -> str:
        """What ``/compress`` shows."""
        return status_text(
            self.status, self.before, self.after, before_estimated=self.before_estimated
        )


@dataclass(frozen=True)
class _Split:
    summarised: list[dict[str, Any]]
    kept: list[dict[str, Any]]
    calls: list[dict[str, Any]] | None
    results: list[dict[str, Any]]


def _split(messages: list[dict[str, Any]]) -> _Split | None:
    """What the summary covers and what follows it (``None``: nothing to compress)."""
    last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=-1)
    if last < 0:
        return None
    calls = messages[last].get("tool_calls")
    end = last + 1
    while end < len(messages) and messages[end].get("role") == "tool":
        end += 1
    if not calls:
        split = _Split(messages[: last + 1], messages[last + 1 :], None, [])
    elif end == last + 1:  # calls without results (an interrupted turn): dropped, as 0.24.4
        split = _Split(messages[:last], messages[last + 1 :], None, [])
    else:
        split = _Split(messages[:end], messages[last + 1 :], list(calls), messages[last + 1 : end])
    return split if len(split.summarised) >= 2 else None


def _rebuilt(messages: list[dict[str, Any]], split: _Split, summary: str) -> list[dict[str, Any]]:
    first = messages[0].get("content")
    reminders = [
        part
        for part in (first if isinstance(first, list) else [])
        if isinstance(part, dict) and str(part.get("text", "")).startswith("<system-reminder>")
    ]
    text = {"type": "text", "text": summary_text(summary)}
    answer: dict[str, Any] = {"role": "assistant", "content": ACKNOWLEDGEMENT}
    if split.calls:
        answer["tool_calls"] = split.calls
    return [{"role": "user", "content": [*reminders, text]}, answer, *split.kept]


class Compressor:
    """The compression of one conversation: the last request's token counts and failures."""

    def __init__(
        self,
        client: ChatClient,
        model: Callable[[], ModelConfig],
        config: Config,
        stats: SessionStats | None = None,
    ) -> None:
        """``model`` gives the loop's model at the time of the request (chat can switch it)."""
        self.client = client
        self._model = model
        self.config = config
        self.stats = stats
        self.enabled = True
        """Whether :meth:`auto` may compress (``/compress`` always can)."""
        self.failures = 0
        self._prompt = self._output = self._counted = 0
        self._estimated = False

    def record(self, usage: Usage | None, length: int) -> None:
        """An answer's reported usage, the history holding ``length`` messages with it."""
        if usage is not None and usage.prompt_tokens > 0:
            self._prompt, self._output = usage.prompt_tokens, usage.completion_tokens
            self._estimated = False
        else:
            self._prompt = self._output = 0
        self._counted = length

    def tokens(self, history: History) -> tuple[int, bool]:
        """The next request's prompt tokens, and whether that is only an estimate."""
        if self._prompt > 0 and self._counted <= len(history):
            added = [history[i] for i in range(self._counted, len(history))]
            total = self._prompt + self._output + estimate_tokens(added)
            return total, self._estimated or bool(added)
        return estimate_tokens(history.messages), True

    @property
    def model(self) -> ModelConfig:
        return self._model()

    def threshold(self) -> float:
        return auto_threshold(self.model.context_window, threshold_setting(self.config))

    async def auto(self, history: History, signal: AbortSignal) -> Compression | None:
        """Compress when the next request would reach the threshold (``None``: not tried)."""
        if not self.enabled or self.failures >= MAX_FAILURES:
            return None
        tokens, _ = self.tokens(history)
        if tokens < self.threshold():
            return None
        result = await self.compress(history, trigger="auto", before=(tokens, True), signal=signal)
        return None if result.status is CompressionStatus.NOOP else result

    async def compress(
        self,
        history: History,
        *,
        trigger: str = "manual",
        instructions: str | None = None,
        before: tuple[int, bool] | None = None,
        signal: AbortSignal | None = None,
    ) -> Compression:
        """Replace ``history`` with the model's summary of it (kept as it was on failure).

        Raises :class:`~qwen_tools.contract.abort.AbortError` when ``signal`` fires.
        """
        signal = signal or AbortSignal.never()
        messages = history.messages
        count, estimated = before or (
            (self._prompt, self._estimated) if self._prompt else self.tokens(history)
        )
        split = _split(messages)
        if split is None:
            return Compression(CompressionStatus.NOOP, trigger, count, count, estimated)
        instructions = (instructions or "").strip()[:MAX_INSTRUCTIONS_CHARS] or None
        context = await pre_compact(self.config, trigger, instructions or "", signal)
        context = context.strip()[:MAX_HOOK_CONTEXT_CHARS] if context else None
        system = system_prompt(instructions, context)

        def failed(
            status: CompressionStatus, after: int = count, error: str | None = None
        ) -> Compression:
            if trigger == "auto":
                self.failures += 1
            return Compression(status, trigger, count, after, estimated, error, self.failures)

        try:
            completion = await self.client.complete(
                self._body(system, split.summarised), stream=False, signal=signal
            )
        except ModelError as error:
            if self.stats is not None:
                self.stats.record_api_error(self.model.model)
            return failed(CompressionStatus.API_ERROR, error=format_api_error(error))
        if self.stats is not None:
            self.stats.record_response(self.model.model, completion)
        if not strip_analysis(completion.text):
            return failed(CompressionStatus.EMPTY_SUMMARY)
        if completion.truncated:
            return failed(CompressionStatus.TRUNCATED)
        new = _rebuilt(messages, split, completion.text)
        usage = completion.usage
        if usage is not None and usage.prompt_tokens > 0 and usage.completion_tokens > 0:
            summarised = usage.prompt_tokens - PROMPT_OVERHEAD - estimate_tokens(split.results)
            after = max(0, count - max(0, summarised) + usage.completion_tokens)
        else:
            after = max(0, count - estimate_tokens(messages)) + estimate_tokens(new)
        if after > count:
            return failed(CompressionStatus.INFLATED, after)
        history.truncate(0)
        history.extend(new)
        self._prompt, self._output, self._counted, self._estimated = after, 0, len(new), True
        self.failures = 0
        await post_compact(self.config, trigger, strip_analysis(completion.text), signal)
        return Compression(CompressionStatus.COMPRESSED, trigger, count, after, estimated)

    def _body(self, system: str, messages: list[dict[str, Any]]) -> bytes:
        """The summary request: the history under the compression prompt, no tools."""
        request: dict[str, Any] = {
            "model": self.model.model,
            "messages": [
                {"role": "system", "content": system},
                *messages,
                {"role": "user", "content": DIRECTIVE},
            ],
        }
        if self.model.sampling is None:
            size = estimate_tokens(messages) + math.ceil(len(system + DIRECTIVE) / 4)
            room = self.model.context_window - size - _SAFETY_MARGIN
            request["max_tokens"] = max(1, min(SUMMARY_RESERVE, room))
        else:
            request.update(self.model.sampling)
        request["stream"] = False
        request.update(self.model.extra_body)
        return bytes(encode_json(request))
