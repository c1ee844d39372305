"""What a model can take, looked up by name as Qwen Code 0.24.4 does (``tokenLimits.ts``, ``modalities``).

Model names are normalised first (provider prefix, ``:free``-style suffixes, dates and version
tails dropped), then matched against ordered pattern tables: the output-token ceiling sent as
``max_tokens``, the context window and the input modalities (image, PDF, audio, video) a tool
result may carry. Unknown models get the reference's defaults.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "OUTPUT_TOKEN_CEILING",
    "Modalities",
    "context_window",
    "default_max_tokens",
    "escalated_max_tokens",
    "has_known_output_limit",
    "modalities_for",
    "normalize_model_name",
]

K = 1024
OUTPUT_TOKEN_CEILING = 64_000
"""The reference's ceiling for ``max_tokens`` (and the limit a truncated turn escalates to)."""
_DEFAULT_OUTPUT = 32_000
_DEFAULT_CONTEXT = 200_000
_MIN_CLAMPED_OUTPUT = 4_000

_SUFFIX = re.compile(
    r":(?:free|beta|extended|thinking|online|nitro|floor|latest|\d+(?:\.\d+)?(?:x\d+)?b(?:-[\w.]+)*)$"
)
_VERSION_TAIL = re.compile(r"-(?:\d{4,}|\d+x\d+b|v\d+(?:\.\d+)*|latest|exp)$")
_DOTTED_TAIL = re.compile(r"-\d+(?:\.\d+)+$")
_QUANT_TAIL = re.compile(r"-(?:\d?bit|int[48]|bf16|fp16|q[45]|quantized)$")
_CLAUDE_DOT = re.compile(r"^(claude-[a-z]+-\d+(?:-\d+)?)\.(\d+)(?:\.\d+)*")
_KEEP_TAIL = re.compile(r"^(?:qwen-(?:plus|flash|vl-max)-latest|kimi-k2-\d{4}|deepseek-v4.*)$")


def _drop_version_tail(name: str) -> str:
    """A date, ``v2``, ``latest``/``exp`` or (after two segments) a dotted version at the end."""
    match = _VERSION_TAIL.search(name)
    if match is None:
        dotted = _DOTTED_TAIL.search(name)
        if dotted is not None and re.search(r"-[^-]+$", name[: dotted.start()]):
            match = dotted
    return name[: match.start()] if match else name


def normalize_model_name(model: str) -> str:
    """``openrouter/qwen/Qwen3-Coder-Plus:free`` → ``qwen3-coder-plus``."""
    name = (model or "").lower().strip()
    name = name.rsplit("/", 1)[-1]
    name = name.rsplit("|", 1)[-1]
    name = _SUFFIX.sub("", name)
    name = name.rsplit(":", 1)[-1]
    name = re.sub(r"\s+", "-", name)
    name = _CLAUDE_DOT.sub(r"\1-\2", name)
    name = name.replace("-preview", "")
    if not _KEEP_TAIL.match(name):
        name = _drop_version_tail(name)
    return _QUANT_TAIL.sub("", name)


_CLAUDE_OPUS_EXTENDED = r"^claude-opus-(?:4-(?:6|7|8)|5)"

_CONTEXT: tuple[tuple[str, int], ...] = (
    (r"^gemini-", 1_000_000),
    (r"^gpt-5", 272_000),
    (r"^gpt-", 128 * K),
    (r"^o\d", 200_000),
    (_CLAUDE_OPUS_EXTENDED, 1_000_000),
    (r"^claude-", 200_000),
    (r"^qwen3-coder-(?:plus|flash)", 1_000_000),
    (r"^qwen3\.\d", 1_000_000),
    (r"^qwen-(?:plus|flash)-latest$", 1_000_000),
    (r"^coder-model$", 1_000_000),
    (r"^qwen", 256 * K),
    (r"^deepseek-(?:v4|flash)", 1_000_000),
    (r"^deepseek", 128 * K),
    (r"^glm-5(\.[01])?(-|$)", 202_752),
    (r"^glm-(?:[5-9]|\d{2,})", 1_000_000),
    (r"^glm-", 202_752),
    (r"^minimax-m3", 1_000_000),
    (r"^minimax-m2\.5", 192 * K),
    (r"^minimax-", 200_000),
    (r"^kimi-k3", 1_000_000),
    (r"^kimi-", 256 * K),
    (r"^seed-oss", 512 * K),
)

_OUTPUT: tuple[tuple[str, int], ...] = (
    (r"^gemini-3", 64 * K),
    (r"^gemini-", 8 * K),
    (r"^gpt-5", 128 * K),
    (r"^gpt-", 16 * K),
    (r"^o\d", 128 * K),
    (_CLAUDE_OPUS_EXTENDED, 128_000),
    (r"^claude-", 64 * K),
    (r"^qwen3\.\d", 64 * K),
    (r"^coder-model$", 64 * K),
    (r"^qwen", 32 * K),
    (r"^deepseek-(?:v4|flash)", 384_000),
    (r"^deepseek-r(?:easoner|1)", 64 * K),
    (r"^deepseek-chat", 8 * K),
    (r"^glm-5(?:\.\d+)?(?:-|$)", 128 * K),
    (r"^glm-4\.7", 16 * K),
    (r"^minimax-m2\.5", 64 * K),
    (r"^kimi-k3", 128 * K),
    (r"^kimi-k2\.5", 32 * K),
)


@dataclass(frozen=True)
class Modalities:
    """Which media a model accepts in tool results and prompts."""

    image: bool = False
    pdf: bool = False
    audio: bool = False
    video: bool = False


_ALL = Modalities(True, True, True, True)
_IMAGE = Modalities(image=True)
_IMAGE_VIDEO = Modalities(image=True, video=True)
_TEXT = Modalities()

_MODALITIES: tuple[tuple[str, Modalities], ...] = (
    (r"^gemini-", _ALL),
    (r"^(?:gpt-|o\d)", _IMAGE),
    (r"^claude-", Modalities(image=True, pdf=True)),
    (r"^qwen\d*\.?\d*-omni|^qwen-omni", _ALL),
    (r"^qwen3\.[5-7]-plus|^qwen3\.8-(?:flash|plus)", _IMAGE_VIDEO),
    (r"^qwen3\.8-max", _IMAGE),
    (r"^coder-model$", _IMAGE_VIDEO),
    (r"^qwen3?-vl-", _IMAGE_VIDEO),
    (r"^qwen3-coder-", _TEXT),
    (r"^qwen3\.6-35b", _IMAGE_VIDEO),
    (r"^qwen", _TEXT),
    (r"^deepseek-.*vision", _IMAGE),
    (r"^glm-[0-9.]+v|^glm-5\.3-flash", _IMAGE),
    (r"^minimax-m3", _IMAGE_VIDEO),
)


def _lookup(model: str, table: tuple[tuple[str, int], ...]) -> int | None:
    name = normalize_model_name(model)
    for pattern, value in table:
        if re.search(pattern, name, re.IGNORECASE):
            return value
    return None


def has_known_output_limit(model: str) -> bool:
    """Whether the output table knows ``model`` (a configured ``max_tokens`` is capped then)."""
    return _lookup(model, _OUTPUT) is not None


def default_max_tokens(model: str) -> int:
    """The ``max_tokens`` sent when the user set none: the model's limit, at most 64,000."""
    limit = _lookup(model, _OUTPUT) or _DEFAULT_OUTPUT
    if re.search(_CLAUDE_OPUS_EXTENDED, normalize_model_name(model)):
        return limit
    return min(limit, OUTPUT_TOKEN_CEILING)


def context_window(model: str) -> int:
    """The model's input window in tokens (200,000 when unknown)."""
    return _lookup(model, _CONTEXT) or _DEFAULT_CONTEXT


def escalated_max_tokens(window: int, prompt_tokens: int) -> int:
    """The ``max_tokens`` a truncated turn is retried with, clamped to what the window leaves."""
    margin = max(10_000, round(0.05 * window))
    room = window - prompt_tokens - margin
    return min(OUTPUT_TOKEN_CEILING, max(_MIN_CLAMPED_OUTPUT, room))


def modalities_for(model: str) -> Modalities:
    """The media ``model`` accepts (text only when unknown)."""
    name = normalize_model_name(model)
    for pattern, value in _MODALITIES:
        if re.search(pattern, name, re.IGNORECASE):
            return value
    return _TEXT
