"""``web_fetch``'s fetch step: the URL to request, the response turned into text, the session cache.

* **URL plan**: ``http://`` to a host that does not look local and has no explicit port is
  upgraded to ``https://``; when the upgraded request fails at the connection level the
  original ``http://`` URL is fetched instead.
* **Text**: HTML → Markdown, other text as is, both cut at 100,000 characters; binary bodies
  are saved under the project's ``tool-results`` directory (a PDF's text is extracted).
* **Cache**: 32 entries per session, 15 minutes, keyed by session, ``Accept`` header and URL
  (not after an http fallback, nor for text over 2 MiB), as in Qwen Code 0.24.4.
"""

from __future__ import annotations

import contextlib
import platform
import sys
import time
import weakref
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlunsplit

import anyio

from qwen_tools._version import __version__
from qwen_tools.config.config import Config
from qwen_tools.contract.abort import AbortSignal
from qwen_tools.tools.web_fetch.address import AddressPolicy, is_private_host
from qwen_tools.tools.web_fetch.binary import (
    Sniffed,
    is_binary_response,
    pdf_text,
    save_binary,
    sniff,
)
from qwen_tools.tools.web_fetch.content import (
    MAX_CONTENT_CHARS,
    MAX_HTML_CHARS,
    decode_text,
    en_us,
    html_to_markdown,
    js_hostname,
    parse_http_url,
)
from qwen_tools.tools.web_fetch.http import (
    CrossHostRedirect,
    FetchedResponse,
    FetchError,
    FetchOptions,
    Resolver,
    fetch_with_policy,
)

__all__ = ["USER_AGENT", "FetchEntry", "FetchPlan", "fetch_entry", "plan_fetch"]

MAX_RESPONSE_BYTES = 10 * 1024 * 1024
MAX_REDIRECTS = 10
CACHE_TTL_S = 15 * 60
CACHE_CAPACITY = 32
MAX_CACHEABLE_CHARS = 2 * 1024 * 1024
_HTML_CUT_NOTE = (
    f"\n\n[Content truncated: only the first {en_us(MAX_HTML_CHARS)} characters of the page's "
    "HTML were converted]"
)

_ARCH = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "i386": "ia32", "i686": "ia32"}
USER_AGENT = (
    f"qwen-tools/{__version__} "
    f"({sys.platform}; {_ARCH.get(platform.machine().lower(), platform.machine().lower())})"
)


@dataclass(frozen=True, slots=True)
class FetchPlan:
    """The URL to request, and the ``http://`` URL it was upgraded from (if it was)."""

    url: str
    upgraded_from: str | None = None


@dataclass(frozen=True, slots=True)
class FetchEntry:
    """A processed response: metadata, text (≤ 100,000 characters) and any saved binary file."""

    fetched_at: float
    status: int
    status_text: str
    content_type: str
    byte_length: int
    final_url: str
    text: str
    total_chars: int
    body_cut: bool = False
    persisted_path: str | None = None
    persisted_mime: str | None = None

    @property
    def content(self) -> str:
        """The text with the reference's truncation note when it was cut."""
        return self.limited(MAX_CONTENT_CHARS)

    def limited(self, limit: int) -> str:
        """The text cut to ``limit`` characters, noting the cut against the full length."""
        if self.total_chars <= limit:
            return self.text
        shown = min(limit, len(self.text))
        return (
            self.text[:shown] + f"\n\n[Content truncated: showing first {en_us(shown)} of "
            f"{en_us(self.total_chars)} characters]"
        )


def plan_fetch(url: str) -> FetchPlan:
    """Upgrade ``http://`` to ``https://`` for public-looking hosts without an explicit port."""
    parts = parse_http_url(url)
    if parts is None or parts.scheme.lower() != "http" or is_private_host(js_hostname(parts)):
        return FetchPlan(url)
    if parts.port not in (None, 80):
        return FetchPlan(url)
    host = js_hostname(parts)
    return FetchPlan(urlunsplit(("https", host, parts.path or "/", parts.query, "")), url)


_caches: weakref.WeakKeyDictionary[Config, OrderedDict[str, FetchEntry]] = (
    weakref.WeakKeyDictionary()
)


def _cache_for(config: Config) -> OrderedDict[str, FetchEntry]:
    cache = _caches.get(config)
    if cache is None:
        cache = _caches[config] = OrderedDict()
    return cache


def _options(config: Config, accept: str) -> FetchOptions:
    web = config.settings.web.fetch
    policy = AddressPolicy.from_setting(True if web.allow_all_private else web.allowed_networks)
    return FetchOptions(
        timeout_s=web.timeout_ms / 1000,
        max_bytes=MAX_RESPONSE_BYTES,
        max_redirects=MAX_REDIRECTS,
        headers={"Accept": accept, "User-Agent": USER_AGENT},
        policy=policy,
    )


def _text_entry(
    response: FetchedResponse,
    text: str,
    persisted_path: str | None = None,
    persisted_mime: str | None = None,
) -> FetchEntry:
    return FetchEntry(
        fetched_at=time.monotonic(),
        status=response.status,
        status_text=response.status_text,
        content_type=response.content_type,
        byte_length=len(response.body),
        final_url=response.final_url,
        text=text[:MAX_CONTENT_CHARS],
        total_chars=len(text),
        body_cut=response.truncated,
        persisted_path=persisted_path,
        persisted_mime=persisted_mime,
    )


def _binary_entry(config: Config, response: FetchedResponse, sniffed: Sniffed) -> FetchEntry:
    directory = Path(config.get_project_temp_dir()) / "tool-results"
    try:
        path = save_binary(directory, response.body, sniffed.extension)
    except OSError as exc:
        kind = response.content_type or "unknown content type"
        raise FetchError(
            f"Fetched {len(response.body)} bytes of binary content ({kind}) but failed to "
            f"save it: {exc.strerror or exc}"
        ) from None
    text = pdf_text(path) if sniffed.extension == "pdf" else ""
    mime = sniffed.mime_type or response.content_type
    return _text_entry(response, text, str(path), mime)


def _process(config: Config, response: FetchedResponse) -> FetchEntry:
    """Turn a 2xx response into an entry (runs in a worker thread: conversion can be slow)."""
    sniffed = sniff(
        response.body, response.content_type, response.content_disposition, response.final_url
    )
    if is_binary_response(response.body, response.content_type, sniffed):
        return _binary_entry(config, response, sniffed)
    decoded = decode_text(response.body, response.content_type)
    if "text/html" in response.content_type.lower():
        # Unconvertible markup stays as it is: the raw text is still useful.
        with contextlib.suppress(Exception):
            markdown, cut = html_to_markdown(decoded)
            if cut and len(markdown) <= MAX_CONTENT_CHARS:
                markdown += _HTML_CUT_NOTE
            decoded = markdown
    return _text_entry(response, decoded)


async def fetch_entry(
    config: Config,
    plan: FetchPlan,
    accept: str,
    signal: AbortSignal,
    *,
    resolver: Resolver | None = None,
) -> FetchEntry | CrossHostRedirect:
    """Fetch ``plan.url`` (or the cached copy); raises :class:`FetchError` on failure."""
    cache = _cache_for(config)
    key = f"{config.session_id}|{accept} {plan.url}"
    cached = cache.get(key)
    if cached is not None and time.monotonic() - cached.fetched_at < CACHE_TTL_S:
        cache.move_to_end(key)
        return cached
    options = _options(config, accept)
    used_fallback = False
    try:
        result = await fetch_with_policy(plan.url, options, signal, resolver=resolver)
    except FetchError as exc:
        if plan.upgraded_from is None or not exc.connection_level:
            raise
        result = await fetch_with_policy(plan.upgraded_from, options, signal, resolver=resolver)
        used_fallback = True
    if isinstance(result, CrossHostRedirect):
        return result
    if not 200 <= result.status < 300:
        raise FetchError(f"Request failed with status code {result.status} {result.status_text}")
    entry: FetchEntry | None = None
    async with signal.cancel_scope():
        entry = await anyio.to_thread.run_sync(_process, config, result, abandon_on_cancel=True)
    if entry is None or signal.aborted:
        raise FetchError("Request aborted", "ABORT_ERR")
    if not used_fallback and entry.total_chars <= MAX_CACHEABLE_CHARS:
        cache[key] = entry
        cache.move_to_end(key)
        while len(cache) > CACHE_CAPACITY:
            cache.popitem(last=False)
    return entry
