"""Settings of the web tools: ``tools.webFetch`` (ours) and ``tools.webSearch`` (Qwen Code's providers).

``tools.webFetch`` (keys of this package, not Qwen Code's):

* ``allowPrivateAddresses``: ``false`` (default) blocks private, loopback, link-local and other
  non-public addresses; ``true`` allows all of them; a list of CIDR blocks or addresses
  (``["127.0.0.1", "10.1.0.0/16"]``) allows those only.
* ``timeoutMs``: the time limit of one fetch (default 60,000, as the reference).

``tools.webSearch`` follows Qwen Code's provider design (before 0.24.4 moved to a single
DashScope backend)::

    {"provider": [{"type": "tavily", "apiKey": "..."},
                  {"type": "google", "apiKey": "...", "searchEngineId": "..."},
                  {"type": "dashscope", "apiKey": "..."}],
     "default": "tavily"}

Provider keys: ``apiKey``, ``maxResults``; Tavily ``searchDepth`` and ``includeAnswer``;
Google ``searchEngineId``, ``safeSearch``, ``language`` and ``country``; and our ``baseUrl``
(the API's base URL, for proxies and tests). The section older Qwen Code read at the top level
(``webSearch``) is read when ``tools.webSearch`` has no ``provider`` list. Without any
provider list, providers come from the environment as in Qwen Code: ``TAVILY_API_KEY`` (or
``advanced.tavilyApiKey``), ``GOOGLE_API_KEY`` with ``GOOGLE_SEARCH_ENGINE_ID``, and
``DASHSCOPE_API_KEY``. ``tools.webSearch.enabled: false`` (0.24.4's switch) turns search off.
"""

from __future__ import annotations

import ipaddress
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from qwen_tools.config.settings import LoadedSettings, SettingsError

__all__ = [
    "SEARCH_PROVIDER_TYPES",
    "SearchProviderConfig",
    "WebFetchSettings",
    "WebSearchConfig",
    "WebSearchSettings",
    "WebSettings",
    "parse_web_settings",
    "resolve_web_search",
]

SEARCH_PROVIDER_TYPES = ("tavily", "google", "dashscope")
"""The provider types this package implements, in Qwen Code's default-priority order."""


@dataclass(frozen=True)
class WebFetchSettings:
    """``tools.webFetch``: the SSRF guard's exceptions and the fetch time limit."""

    allow_all_private: bool = False
    allowed_networks: tuple[str, ...] = ()
    timeout_ms: int = 60_000


@dataclass(frozen=True)
class SearchProviderConfig:
    """One entry of ``tools.webSearch.provider``."""

    type: str
    api_key: str | None = None
    search_engine_id: str | None = None
    max_results: int | None = None
    search_depth: str | None = None
    include_answer: bool | None = None
    safe_search: str | None = None
    language: str | None = None
    country: str | None = None
    base_url: str | None = None


@dataclass(frozen=True)
class WebSearchSettings:
    """``tools.webSearch`` as written: ``providers`` is ``None`` when no list is configured."""

    enabled: bool | None = None
    providers: tuple[SearchProviderConfig, ...] | None = None
    default: str | None = None
    legacy_tavily_api_key: str | None = None


@dataclass(frozen=True)
class WebSettings:
    """Both web tools' settings."""

    fetch: WebFetchSettings = field(default_factory=WebFetchSettings)
    search: WebSearchSettings = field(default_factory=WebSearchSettings)


@dataclass(frozen=True)
class WebSearchConfig:
    """The providers a search may use (settings or environment) and the default one."""

    providers: tuple[SearchProviderConfig, ...]
    default: str


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


class _Values:
    """Typed reads of settings values, raising :class:`SettingsError` on a bad value.

    ``source`` reads below a dict already fetched (a provider entry); the error then names
    the file that set ``origin`` (lists are not merged key by key).
    """

    def __init__(self, loaded: LoadedSettings) -> None:
        self.loaded = loaded

    def bad(
        self, key: tuple[str, ...], value: Any, what: str, origin: tuple[str, ...] | None = None
    ) -> SettingsError:
        return SettingsError(
            f"expected {what}, got {_show(value)}",
            path=self.loaded.origin(origin or key),
            key=".".join(key),
        )

    def get(
        self,
        key: tuple[str, ...],
        kind: type | tuple[type, ...],
        what: str,
        source: tuple[dict[str, Any], tuple[str, ...]] | None = None,
    ) -> Any:
        if source is None:
            value, origin = self.loaded.get(key), None
        else:
            value, origin = source[0].get(key[-1]), source[1]
        if value is None:
            return None
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            raise self.bad(key, value, what, origin)
        return value

    def positive_int(
        self, key: tuple[str, ...], source: tuple[dict[str, Any], tuple[str, ...]] | None = None
    ) -> int | None:
        value = self.get(key, (int, float), "a positive integer", source)
        if value is None:
            return None
        if value != int(value) or value < 1:
            raise self.bad(key, value, "a positive integer", source[1] if source else None)
        return int(value)


def _fetch_settings(values: _Values) -> WebFetchSettings:
    key = ("tools", "webFetch", "allowPrivateAddresses")
    what = "true, false or a list of CIDR blocks"
    raw = values.get(key, (bool, list), what)
    allow_all, networks = False, ()
    if isinstance(raw, bool):
        allow_all = raw
    elif isinstance(raw, list):
        for item in raw:
            try:
                ipaddress.ip_network(item, strict=False)
            except (TypeError, ValueError):
                raise values.bad(key, raw, what) from None
        networks = tuple(raw)
    timeout = values.positive_int(("tools", "webFetch", "timeoutMs"))
    return WebFetchSettings(allow_all, networks, timeout or 60_000)


def _provider(
    values: _Values, base: tuple[str, ...], origin: tuple[str, ...], raw: Any
) -> SearchProviderConfig:
    if not isinstance(raw, dict) or not isinstance(raw.get("type"), str):
        raise values.bad(base, raw, 'an object with a "type"', origin)
    source = (raw, origin)

    def text(name: str) -> str | None:
        value: str | None = values.get((*base, name), str, "a string", source)
        return value

    depth = text("searchDepth")
    if depth is not None and depth not in ("basic", "advanced"):
        raise values.bad((*base, "searchDepth"), depth, '"basic" or "advanced"', origin)
    return SearchProviderConfig(
        type=raw["type"],
        api_key=text("apiKey") or None,
        search_engine_id=text("searchEngineId") or None,
        max_results=values.positive_int((*base, "maxResults"), source),
        search_depth=depth,
        include_answer=values.get((*base, "includeAnswer"), bool, "a boolean", source),
        safe_search=text("safeSearch"),
        language=text("language") or None,
        country=text("country") or None,
        base_url=text("baseUrl") or None,
    )


def _search_settings(values: _Values) -> WebSearchSettings:
    enabled = values.get(("tools", "webSearch", "enabled"), bool, "a boolean (true or false)")
    section: tuple[str, ...] = ("tools", "webSearch")
    if values.loaded.get((*section, "provider")) is None:
        top = values.loaded.get(("webSearch",))
        if isinstance(top, dict) and top.get("provider") is not None:
            section = ("webSearch",)
    raw = values.get((*section, "provider"), list, "a list of provider objects")
    providers = None
    if raw is not None:
        base = (*section, "provider")
        providers = tuple(
            _provider(values, (*base, str(index)), base, item) for index, item in enumerate(raw)
        )
    default = values.get((*section, "default"), str, "a string") if raw is not None else None
    legacy = values.get(("advanced", "tavilyApiKey"), str, "a string")
    return WebSearchSettings(enabled, providers, default or None, legacy or None)


def parse_web_settings(loaded: LoadedSettings) -> WebSettings:
    """Read ``tools.webFetch`` and ``tools.webSearch``; raises :class:`SettingsError` on bad values."""
    values = _Values(loaded)
    return WebSettings(fetch=_fetch_settings(values), search=_search_settings(values))


def _env_providers(
    settings: WebSearchSettings, env: Mapping[str, str]
) -> list[SearchProviderConfig]:
    found: list[SearchProviderConfig] = []
    tavily = settings.legacy_tavily_api_key or env.get("TAVILY_API_KEY")
    if tavily:
        found.append(SearchProviderConfig("tavily", api_key=tavily))
    google_key, engine = env.get("GOOGLE_API_KEY"), env.get("GOOGLE_SEARCH_ENGINE_ID")
    if google_key and engine:
        found.append(SearchProviderConfig("google", api_key=google_key, search_engine_id=engine))
    dashscope = env.get("DASHSCOPE_API_KEY")
    if dashscope:
        found.append(SearchProviderConfig("dashscope", api_key=dashscope))
    return found


def resolve_web_search(
    settings: WebSearchSettings, env: Mapping[str, str] | None = None
) -> WebSearchConfig | None:
    """The search configuration Qwen Code would build, or ``None`` when search is off.

    A provider list in the settings wins (entries of types this package does not implement,
    such as ``glm``, are left out); otherwise keys come from the environment (default:
    ``os.environ``). The default provider is the configured one, else the first of tavily,
    google, dashscope that is present.
    """
    if settings.enabled is False:
        return None
    env = os.environ if env is None else env
    if settings.providers is not None:
        providers = [p for p in settings.providers if p.type in SEARCH_PROVIDER_TYPES]
    else:
        providers = _env_providers(settings, env)
    if not providers:
        return None
    default = settings.default
    if not default:
        present = {p.type for p in providers}
        default = next((t for t in SEARCH_PROVIDER_TYPES if t in present), providers[0].type)
    return WebSearchConfig(tuple(providers), default)
