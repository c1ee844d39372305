"""The web tools' settings, read from real settings.json files, and the provider resolution."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from qwen_tools import Config
from qwen_tools.config.settings import SettingsError
from qwen_tools.config.web_settings import (
    SearchProviderConfig,
    WebFetchSettings,
    WebSearchConfig,
    WebSearchSettings,
    resolve_web_search,
)
from qwen_tools.tools.web_search.tool import web_search_enabled


def load(tmp_path: Path, settings: dict[str, Any]) -> Config:
    home, project, etc = tmp_path / "home", tmp_path / "project", tmp_path / "etc"
    for directory in (home / ".qwen", project / ".qwen", etc):
        directory.mkdir(parents=True, exist_ok=True)
    (project / ".qwen" / "settings.json").write_text(json.dumps(settings))
    env = {
        "HOME": str(home),
        "QWEN_CODE_SYSTEM_SETTINGS_PATH": str(etc / "settings.json"),
        "TAVILY_KEY_VAR": "tvly-from-env",
    }
    return Config.load(project, env=env)


def test_defaults(tmp_path: Path) -> None:
    config = load(tmp_path, {})
    assert config.settings.web.fetch == WebFetchSettings(False, (), 60_000)
    assert config.settings.web.search == WebSearchSettings()


def test_web_fetch_keys(tmp_path: Path) -> None:
    config = load(
        tmp_path,
        {
            "tools": {
                "webFetch": {
                    "allowPrivateAddresses": ["127.0.0.1", "10.0.0.0/8"],
                    "timeoutMs": 5000,
                }
            }
        },
    )
    assert config.settings.web.fetch == WebFetchSettings(False, ("127.0.0.1", "10.0.0.0/8"), 5000)
    everything = load(tmp_path, {"tools": {"webFetch": {"allowPrivateAddresses": True}}})
    assert everything.settings.web.fetch.allow_all_private


@pytest.mark.parametrize(
    ("settings", "key", "detail"),
    [
        (
            {"tools": {"webFetch": {"allowPrivateAddresses": "yes"}}},
            "tools.webFetch.allowPrivateAddresses",
            'expected true, false or a list of CIDR blocks, got "yes"',
        ),
        (
            {"tools": {"webFetch": {"allowPrivateAddresses": ["10.0.0.0/33"]}}},
            "tools.webFetch.allowPrivateAddresses",
            'expected true, false or a list of CIDR blocks, got ["10.0.0.0/33"]',
        ),
        (
            {"tools": {"webFetch": {"timeoutMs": 0}}},
            "tools.webFetch.timeoutMs",
            "expected a positive integer, got 0",
        ),
        (
            {"tools": {"webSearch": {"provider": {"type": "tavily"}}}},
            "tools.webSearch.provider",
            'expected a list of provider objects, got {"type": "tavily"}',
        ),
        (
            {"tools": {"webSearch": {"provider": [{"apiKey": "k"}]}}},
            "tools.webSearch.provider.0",
            'expected an object with a "type", got {"apiKey": "k"}',
        ),
        (
            {"tools": {"webSearch": {"provider": [{"type": "tavily", "apiKey": 5}]}}},
            "tools.webSearch.provider.0.apiKey",
            "expected a string, got 5",
        ),
        (
            {"tools": {"webSearch": {"provider": [{"type": "tavily", "searchDepth": "deep"}]}}},
            "tools.webSearch.provider.0.searchDepth",
            'expected "basic" or "advanced", got "deep"',
        ),
        (
            {"tools": {"webSearch": {"provider": [{"type": "google", "maxResults": 2.5}]}}},
            "tools.webSearch.provider.0.maxResults",
            "expected a positive integer, got 2.5",
        ),
        (
            {"tools": {"webSearch": {"enabled": "no"}}},
            "tools.webSearch.enabled",
            'expected a boolean (true or false), got "no"',
        ),
    ],
)
def test_bad_values_name_the_file_and_key(
    tmp_path: Path, settings: dict[str, Any], key: str, detail: str
) -> None:
    with pytest.raises(SettingsError) as caught:
        load(tmp_path, settings)
    assert caught.value.key == key
    assert caught.value.detail == detail
    assert caught.value.path == tmp_path / "project" / ".qwen" / "settings.json"


def test_providers_from_settings(tmp_path: Path) -> None:
    config = load(
        tmp_path,
        {
            "tools": {
                "webSearch": {
                    "provider": [
                        {"type": "tavily", "apiKey": "$TAVILY_KEY_VAR", "searchDepth": "basic"},
                        {
                            "type": "google",
                            "apiKey": "g",
                            "searchEngineId": "cx",
                            "safeSearch": "off",
                        },
                        {"type": "glm", "apiKey": "z"},
                    ],
                    "default": "google",
                }
            }
        },
    )
    search = config.settings.web.search
    assert search.providers == (
        SearchProviderConfig("tavily", api_key="tvly-from-env", search_depth="basic"),
        SearchProviderConfig("google", api_key="g", search_engine_id="cx", safe_search="off"),
        SearchProviderConfig("glm", api_key="z"),
    )
    resolved = resolve_web_search(search, env={"DASHSCOPE_API_KEY": "ignored: settings win"})
    assert resolved == WebSearchConfig(search.providers[:2], "google")


def test_the_older_top_level_section_is_read(tmp_path: Path) -> None:
    config = load(tmp_path, {"webSearch": {"provider": [{"type": "dashscope", "apiKey": "sk"}]}})
    resolved = resolve_web_search(config.settings.web.search, env={})
    assert resolved == WebSearchConfig(
        (SearchProviderConfig("dashscope", api_key="sk"),), "dashscope"
    )


def test_a_0_24_shaped_section_falls_back_to_the_environment(tmp_path: Path) -> None:
    config = load(tmp_path, {"tools": {"webSearch": {"model": "qwen3.8-flash", "timeoutMs": 5}}})
    assert web_search_enabled(config, env={"TAVILY_API_KEY": "t"})
    assert not web_search_enabled(config, env={})


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, None),
        (
            {"TAVILY_API_KEY": "t"},
            WebSearchConfig((SearchProviderConfig("tavily", api_key="t"),), "tavily"),
        ),
        ({"GOOGLE_API_KEY": "g"}, None),
        (
            {"GOOGLE_API_KEY": "g", "GOOGLE_SEARCH_ENGINE_ID": "cx", "DASHSCOPE_API_KEY": "d"},
            WebSearchConfig(
                (
                    SearchProviderConfig("google", api_key="g", search_engine_id="cx"),
                    SearchProviderConfig("dashscope", api_key="d"),
                ),
                "google",
            ),
        ),
    ],
)
def test_providers_from_the_environment(
    env: dict[str, str], expected: WebSearchConfig | None
) -> None:
    assert resolve_web_search(WebSearchSettings(), env) == expected


def test_legacy_tavily_key_and_the_off_switch(tmp_path: Path) -> None:
    legacy = load(tmp_path, {"advanced": {"tavilyApiKey": "old"}})
    resolved = resolve_web_search(legacy.settings.web.search, env={})
    assert resolved is not None
    assert resolved.providers == (SearchProviderConfig("tavily", api_key="old"),)
    off = load(
        tmp_path,
        {
            "tools": {
                "webSearch": {"enabled": False, "provider": [{"type": "tavily", "apiKey": "k"}]}
            }
        },
    )
    assert not web_search_enabled(off, env={"TAVILY_API_KEY": "t"})
