"""Model configuration: Qwen Code's precedence of CLI, environment and settings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from qwen_tools.config.model_settings import resolve_model_config
from qwen_tools.config.settings import LoadedSettings
from qwen_tools.model.caps import Modalities
from qwen_tools.model.model_config import ModelNotConfigured


def settings(data: dict[str, Any]) -> LoadedSettings:
    return LoadedSettings(files=[], merged=data)


AUTH = {"security": {"auth": {"apiKey": "sk-settings", "baseUrl": "http://settings/v1"}}}


def test_environment_wins_over_settings() -> None:
    loaded = settings({**AUTH, "model": {"name": "from-settings"}})
    env = {"OPENAI_API_KEY": "sk-env", "OPENAI_BASE_URL": "http://env/v1", "OPENAI_MODEL": "env-m"}
    config = resolve_model_config(loaded, env)
    assert (config.api_key, config.base_url, config.model) == ("sk-env", "http://env/v1", "env-m")
    assert config.endpoint == "http://env/v1/chat/completions"
    assert dict(config.sources) == {
        "model": "OPENAI_MODEL",
        "apiKey": "OPENAI_API_KEY",
        "baseUrl": "OPENAI_BASE_URL",
    }


def test_cli_model_wins_and_settings_fill_in() -> None:
    loaded = settings({**AUTH, "model": {"name": "from-settings"}})
    config = resolve_model_config(
        loaded, {"QWEN_MODEL": "qwen-env", "OPENAI_MODEL": " "}, cli_model="cli"
    )
    assert (config.model, config.api_key, config.base_url) == (
        "cli",
        "sk-settings",
        "http://settings/v1",
    )
    assert resolve_model_config(loaded, {"QWEN_MODEL": "qwen-env"}).model == "qwen-env"
    assert resolve_model_config(loaded, {}).model == "from-settings"


def test_defaults_and_generation_config(monkeypatch: pytest.MonkeyPatch) -> None:
    loaded = settings(
        {
            **AUTH,
            "model": {
                "name": "gpt-4o",
                "generationConfig": {
                    "timeout": 5000,
                    "maxRetries": 0,
                    "samplingParams": {"temperature": 0.2},
                    "customHeaders": {"X-Team": "a"},
                    "toolResultContentFormat": "string",
                },
            },
        }
    )
    config = resolve_model_config(loaded, {})
    assert (config.timeout_s, config.transport_retries) == (5.0, 0)
    assert config.sampling == {"temperature": 0.2}
    assert dict(config.custom_headers) == {"X-Team": "a"}
    assert config.tool_result_format == "string"
    assert config.modalities == Modalities(image=True)
    bare = resolve_model_config(settings({"model": {"name": "m"}}), {"OPENAI_API_KEY": "k"})
    assert bare.base_url == "https://api.openai.com/v1"
    assert (bare.timeout_s, bare.transport_retries) == (120.0, 3)
    timed = resolve_model_config(
        settings({"model": {"name": "m"}}),
        {"OPENAI_API_KEY": "k", "QWEN_CODE_API_TIMEOUT_MS": "1500"},
    )
    assert timed.timeout_s == 1.5


@pytest.mark.parametrize(
    ("data", "env", "missing"),
    [
        ({}, {}, ["an API key", "a model name"]),
        ({"model": {"name": "m"}}, {}, ["an API key"]),
        ({}, {"OPENAI_API_KEY": "k"}, ["a model name"]),
    ],
)
def test_missing_configuration_names_what_to_set(
    data: dict[str, Any], env: dict[str, str], missing: list[str]
) -> None:
    with pytest.raises(ModelNotConfigured) as caught:
        resolve_model_config(settings(data), env)
    assert caught.value.missing == missing
    text = str(caught.value)
    for name in (
        "OPENAI_API_KEY",
        "OPENAI_MODEL",
        "OPENAI_BASE_URL",
        "security.auth.apiKey",
        "--model",
    ):
        assert name.split(".")[-1] in text


def test_other_auth_types_are_refused(tmp_path: Path) -> None:
    loaded = settings({"security": {"auth": {"selectedType": "anthropic"}}})
    with pytest.raises(ModelNotConfigured, match="OpenAI-compatible"):
        resolve_model_config(loaded, {"OPENAI_API_KEY": "k", "OPENAI_MODEL": "m"})
