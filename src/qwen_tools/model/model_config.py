"""``ModelConfig``: the model a session talks to and how (endpoint, key, limits, modalities).

Resolved from the CLI, the environment and settings by
:func:`qwen_tools.config.model_settings.resolve_model_config`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from qwen_tools.model.caps import Modalities, context_window, modalities_for

__all__ = [
    "DEFAULT_BASE_URL",
    "ModelConfig",
    "ModelNotConfigured",
]

DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_TIMEOUT_S = 120.0
DEFAULT_TRANSPORT_RETRIES = 3

NOT_CONFIGURED_HELP = """\
To run the agent, configure an OpenAI-compatible model, as for Qwen Code:

  environment variables
    OPENAI_API_KEY    the API key
    OPENAI_MODEL      the model name (QWEN_MODEL also works)
    OPENAI_BASE_URL   the endpoint, e.g. https://dashscope.aliyuncs.com/compatible-mode/v1
                      (default: https://api.openai.com/v1)

  or settings (~/.qwen/settings.json, or .qwen/settings.json in the project)
    {"security": {"auth": {"apiKey": "...", "baseUrl": "..."}},
     "model": {"name": "..."}}

  or pass --model NAME for the model name."""


class ModelNotConfigured(Exception):
    """No usable model: ``missing`` names what is absent; ``str()`` is the full help text."""

    def __init__(self, missing: list[str], detail: str | None = None) -> None:
        self.missing = missing
        head = detail or f"No model is configured: missing {' and '.join(missing)}."
        super().__init__(f"{head}\n\n{NOT_CONFIGURED_HELP}")


@dataclass(frozen=True)
class ModelConfig:
    """Everything the chat client and the loop need to know about the session's model."""

    model: str
    api_key: str
    base_url: str = DEFAULT_BASE_URL
    timeout_s: float = DEFAULT_TIMEOUT_S
    transport_retries: int = DEFAULT_TRANSPORT_RETRIES
    """Quick retries inside each attempt (the OpenAI SDK's ``maxRetries``)."""
    sampling: Mapping[str, Any] | None = None
    """``samplingParams``: sent as request fields; when set, ``max_tokens`` is not added."""
    custom_headers: Mapping[str, str] = field(default_factory=dict)
    extra_body: Mapping[str, Any] = field(default_factory=dict)
    modalities: Modalities = field(default_factory=Modalities)
    context_window: int = 200_000
    tool_result_format: Literal["parts", "string"] = "parts"
    split_tool_media: bool = False
    sources: Mapping[str, str] = field(default_factory=dict)
    """Where each of model, API key and base URL came from (for diagnostics)."""

    @property
    def endpoint(self) -> str:
        """The chat-completions URL."""
        return self.base_url.rstrip("/") + "/chat/completions"

    def with_model(self, model: str) -> ModelConfig:
        """The same endpoint and options for another model name."""
        from dataclasses import replace

        return replace(
            self,
            model=model,
            modalities=modalities_for(model),
            context_window=context_window(model),
        )
