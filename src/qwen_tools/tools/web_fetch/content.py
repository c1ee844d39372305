"""Text handling for ``web_fetch``: URL checks and rewrites, HTML → Markdown, decoding, limits.

HTML is converted with ``markdownify`` (BeautifulSoup underneath): ``script``, ``style``,
``noscript`` and images are dropped first, as the reference's turndown set-up does; headings
come out ATX-style (``#``). Other text is decoded with the charset the ``Content-Type`` names
(UTF-8 otherwise, bad bytes replaced) and passed on as is.
"""

from __future__ import annotations

import codecs
import contextlib
import re
from urllib.parse import SplitResult, urlsplit, urlunsplit

__all__ = [
    "MAX_CONTENT_CHARS",
    "MAX_HTML_CHARS",
    "decode_text",
    "en_us",
    "format_byte_size",
    "has_http_scheme",
    "html_to_markdown",
    "js_hostname",
    "parse_http_url",
    "rewrite_github_blob_url",
    "truncate_text",
]

MAX_CONTENT_CHARS = 100_000
MAX_HTML_CHARS = 1_000_000

_SCHEME = re.compile(r"^https?://", re.IGNORECASE)
# Characters the WHATWG URL parser refuses in a host name.
_FORBIDDEN_HOST = re.compile(r"[\x00-\x20#%/:<>?@\[\\\]^|\x7f]")
_BLOB_PATH = re.compile(r"^(/[^/]+/[^/]+)/blob/")
_CHARSET = re.compile(r"charset\s*=\s*\"?([^\";\s]+)", re.IGNORECASE)
_DROPPED_TAGS = ("script", "style", "noscript", "template", "img")
_DROPPED_BLOCKS = re.compile(
    r"<(script|style|noscript|template)\b[^>]*>.*?</\1\s*>", re.IGNORECASE | re.DOTALL
)


def en_us(number: int) -> str:
    """``number`` with thousands separators (``toLocaleString("en-US")``)."""
    return f"{number:,}"


def format_byte_size(size: int) -> str:
    """``512 bytes``, ``1.5KB``, ``10MB``: the reference's byte-size wording."""

    def fmt(value: float) -> str:
        text = f"{value:.1f}"
        return text[:-2] if text.endswith(".0") else text

    kb = size / 1024
    if kb < 1:
        return f"{size} bytes"
    if kb < 1024:
        return f"{fmt(kb)}KB"
    mb = kb / 1024
    return f"{fmt(mb)}MB" if mb < 1024 else f"{fmt(mb / 1024)}GB"


def parse_http_url(url: str) -> SplitResult | None:
    """Split an ``http(s)://`` URL, or ``None`` where a browser's URL parser would fail."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port  # raises on a non-numeric or out-of-range port
    except ValueError:
        return None
    host = parts.hostname or ""
    if not host or parts.scheme.lower() not in ("http", "https"):
        return None
    if port is not None and not 0 <= port <= 65535:
        return None
    if ":" in host:  # bracketed IPv6 literal
        from qwen_tools.tools.web_fetch.address import parse_ip

        return parts if parse_ip(host) is not None else None
    if _FORBIDDEN_HOST.search(host):
        return None
    try:
        host.encode("idna")
    except UnicodeError:
        return None
    return parts


def has_http_scheme(url: str) -> bool:
    """Whether ``url`` starts with ``http://`` or ``https://`` (any case)."""
    return bool(_SCHEME.match(url))


def js_hostname(parts: SplitResult) -> str:
    """The host as a browser's ``URL.hostname`` gives it (lower case, IPv6 in brackets)."""
    host = (parts.hostname or "").lower()
    return f"[{host}]" if ":" in host else host


def rewrite_github_blob_url(url: str) -> str:
    """``github.com/<owner>/<repo>/blob/<ref>/<path>`` → ``raw.githubusercontent.com/...``."""
    parts = parse_http_url(url)
    if parts is None or (parts.hostname or "").lower() not in ("github.com", "www.github.com"):
        return url
    raw_path = _BLOB_PATH.sub(r"\1/", parts.path, count=1)
    if raw_path == parts.path:
        return url
    netloc = "raw.githubusercontent.com" + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme.lower(), netloc, raw_path, parts.query, parts.fragment))


def decode_text(body: bytes, content_type: str) -> str:
    """Decode with the ``charset`` of ``content_type`` when Python knows it, else UTF-8."""
    encoding = "utf-8"
    match = _CHARSET.search(content_type)
    if match:
        with contextlib.suppress(LookupError):
            encoding = codecs.lookup(match.group(1)).name
    return body.decode(encoding, errors="replace")


def html_to_markdown(html: str) -> tuple[str, bool]:
    """Markdown for an HTML document (scripts, styles, ``noscript`` and images removed).

    Conversion is slow (seconds per megabyte), so only the first :data:`MAX_HTML_CHARS` of
    the markup left after removing script, style and similar blocks are converted; the flag
    says whether the markup was cut.
    """
    from bs4 import BeautifulSoup
    from markdownify import ATX, MarkdownConverter

    html = _DROPPED_BLOCKS.sub("", html)
    cut = len(html) > MAX_HTML_CHARS
    soup = BeautifulSoup(html[:MAX_HTML_CHARS], "html.parser")
    for element in soup.find_all(_DROPPED_TAGS):
        element.decompose()
    converter = MarkdownConverter(heading_style=ATX, bullets="*", escape_misc=False)
    markdown: str = converter.convert_soup(soup)
    return re.sub(r"\n{3,}", "\n\n", markdown).strip(), cut


def truncate_text(text: str, limit: int = MAX_CONTENT_CHARS) -> str:
    """``text`` cut to ``limit`` characters, with the reference's note when cut."""
    if len(text) <= limit:
        return text
    return (
        text[:limit]
        + f"\n\n[Content truncated: showing first {en_us(limit)} of {en_us(len(text))} characters]"
    )
