"""Which model to talk to and how, resolved from the CLI, the environment and settings.

Precedence follows Qwen Code 0.24.4's ``resolveModelConfig`` for OpenAI-compatible auth:

* model: ``--model``, then ``OPENAI_MODEL``, then ``QWEN_MODEL``, then ``model.name``;
* API key: ``OPENAI_API_KEY``, then ``security.auth.apiKey``;
* base URL: ``OPENAI_BASE_URL``, then ``security.auth.baseUrl``, else OpenAI's endpoint.

Blank values count as unset. ``model.generationConfig`` supplies ``timeout`` (ms; also
``QWEN_CODE_API_TIMEOUT_MS``), ``maxRetries``, ``samplingParams``, ``customHeaders``,
``extra_body``, ``modalities``, ``contextWindowSize``, ``toolResultContentFormat`` and
``splitToolMedia``. Unlike the reference, which falls back to a default model name, a missing
model name is an error here, as is a missing API key (:class:`ModelNotConfigured`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from qwen_tools.model.caps import Modalities, context_window, modalities_for
from qwen_tools.model.model_config import (
    DEFAULT_BASE_URL,
    DEFAULT_TIMEOUT_S,
    DEFAULT_TRANSPORT_RETRIES,
    ModelConfig,
    ModelNotConfigured,
)

if TYPE_CHECKING:
    from qwen_tools.config.settings import LoadedSettings

__all__ = ["resolve_model_config"]


def _present(value: Any) -> bool:
    return isinstance(value, str) and value.strip() != ""


def _first(*layers: tuple[Any, str]) -> tuple[str | None, str | None]:
    for value, source in layers:
        if _present(value):
            return str(value).strip(), source
    return None, None


def _number(value: Any, key: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ModelNotConfigured(
            [], f"model.generationConfig.{key} must be a number, got {value!r}."
        )
    return float(value)


def _modalities(raw: Any, model: str) -> Modalities:
    if not isinstance(raw, dict):
        return modalities_for(model)
    return Modalities(
        image=bool(raw.get("image")),
        pdf=bool(raw.get("pdf")),
        audio=bool(raw.get("audio")),
        video=bool(raw.get("video")),
    )


def _generation(settings: LoadedSettings | None) -> dict[str, Any]:
    raw = settings.get("model.generationConfig") if settings is not None else None
    return raw if isinstance(raw, dict) else {}


def resolve_model_config(
    settings: LoadedSettings | None,
    env: Mapping[str, str] | None = None,
    *,
    cli_model: str | None = None,
) -> ModelConfig:
    """The session's :class:`ModelConfig`; raises :class:`ModelNotConfigured`."""
    env = os.environ if env is None else env
    get = settings.get if settings is not None else (lambda key, default=None: default)
    auth_type = get("security.auth.selectedType")
    if _present(auth_type) and auth_type not in ("openai", "USE_OPENAI"):
        raise ModelNotConfigured(
            [],
            f'security.auth.selectedType is "{auth_type}"; qwen-tools talks to '
            'OpenAI-compatible endpoints only ("openai").',
        )
    model, model_source = _first(
        (cli_model, "--model"),
        (env.get("OPENAI_MODEL"), "OPENAI_MODEL"),
        (env.get("QWEN_MODEL"), "QWEN_MODEL"),
        (get("model.name"), "model.name"),
    )
    api_key, key_source = _first(
        (env.get("OPENAI_API_KEY"), "OPENAI_API_KEY"),
        (get("security.auth.apiKey"), "security.auth.apiKey"),
    )
    base_url, url_source = _first(
        (env.get("OPENAI_BASE_URL"), "OPENAI_BASE_URL"),
        (get("security.auth.baseUrl"), "security.auth.baseUrl"),
    )
    missing = [
        label
        for label, value in (("an API key", api_key), ("a model name", model))
        if value is None
    ]
    if missing or model is None or api_key is None:
        raise ModelNotConfigured(missing)
    gen = _generation(settings)
    timeout_ms = _number(gen.get("timeout"), "timeout")
    env_timeout = (env.get("QWEN_CODE_API_TIMEOUT_MS") or "").strip()
    if env_timeout.isdigit():
        timeout_ms = float(env_timeout)
    timeout_s = DEFAULT_TIMEOUT_S if timeout_ms is None else timeout_ms / 1000
    if timeout_s <= 0:
        timeout_s = float(2**31 - 1) / 1000
    retries = _number(gen.get("maxRetries"), "maxRetries")
    sampling = gen.get("samplingParams")
    headers = gen.get("customHeaders")
    extra = gen.get("extra_body")
    window = _number(gen.get("contextWindowSize"), "contextWindowSize")
    fmt = gen.get("toolResultContentFormat")
    return ModelConfig(
        model=model,
        api_key=api_key,
        base_url=base_url or DEFAULT_BASE_URL,
        timeout_s=timeout_s,
        transport_retries=DEFAULT_TRANSPORT_RETRIES if retries is None else max(0, int(retries)),
        sampling=dict(sampling) if isinstance(sampling, dict) else None,
        custom_headers={str(k): str(v) for k, v in headers.items()}
        if isinstance(headers, dict)
        else {},
        extra_body=dict(extra) if isinstance(extra, dict) else {},
        modalities=_modalities(gen.get("modalities"), model),
        context_window=int(window) if window else context_window(model),
        tool_result_format="string" if fmt == "string" else "parts",
        split_tool_media=gen.get("splitToolMedia") is True,
        sources={
            "model": model_source or "",
            "apiKey": key_source or "",
            "baseUrl": url_source or "default",
        },
    )
