"""``web_fetch``: fetch a URL, turn it into text, and have the session's model answer a prompt on it.

What the model receives, as Qwen Code 0.24.4 shapes it::

    URL: <url>[ (final: <final url>)]
    Status: 200 OK | Content-Type: text/html | Size: 12,345 bytes

    <the model's answer about the content>

A cross-host redirect is not followed (the ``REDIRECT DETECTED`` text tells the model how to
re-issue the call); a status outside 2xx, a timeout or a refused address fails with
``Error during fetch for <url>: <reason>`` (type ``web_fetch_fallback_failed``). When the
processing model fails, the raw content follows a ``[Content processing failed (...)]`` note.

Differences from the reference:

* **SSRF guard**: private, loopback, link-local and other non-public addresses are refused
  unless ``tools.webFetch.allowPrivateAddresses`` allows them (0.24.4 fetches them); see
  :mod:`~qwen_tools.tools.web_fetch.http` for how the checked address is the one connected to.
* **No model** (``config.content_generator`` is ``None``): the converted content is returned
  as is, cut to the output budget, after a note saying it was not processed.
* A body over 10 MB is cut there (with a note) instead of failing; pre-approved documentation
  hosts get no Markdown shortcut (every page goes through the model).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any, ClassVar, Literal

from qwen_tools.config.config import Config
from qwen_tools.contract.abort import AbortSignal
from qwen_tools.contract.confirmation import InfoConfirmationDetails
from qwen_tools.contract.declarative import BaseDeclarativeTool
from qwen_tools.contract.errors import ToolErrorType
from qwen_tools.contract.invocation import BaseToolInvocation, ToolInvocation, UpdateOutput
from qwen_tools.contract.kinds import Kind
from qwen_tools.contract.results import ToolResult
from qwen_tools.contract.tool_names import ToolDisplayNames, ToolNames
from qwen_tools.tools.web_fetch.content import (
    en_us,
    format_byte_size,
    has_http_scheme,
    js_hostname,
    parse_http_url,
    rewrite_github_blob_url,
)
from qwen_tools.tools.web_fetch.entry import (
    MAX_RESPONSE_BYTES,
    FetchEntry,
    fetch_entry,
    plan_fetch,
)
from qwen_tools.tools.web_fetch.http import CrossHostRedirect, FetchError, Resolver
from qwen_tools.tools.web_fetch.params import WebFetchParams

__all__ = ["WebFetchParams", "WebFetchTool"]

PROCESSING_TIMEOUT_MS = 300_000
_MAX_TIMER_MS = 2_147_483_647

_ACCEPT = {
    "markdown": "text/markdown, */*;q=0.1",
    "html": "text/html, */*;q=0.1",
    "text": "text/plain, */*;q=0.1",
    "auto": "text/markdown, text/html;q=0.9, text/plain;q=0.8, */*;q=0.1",
}

_DESCRIPTION = (
    "Retrieves a web page and lets a model answer a question about it.\n"
    "- Give a complete http(s) URL and a prompt saying what to extract or summarise\n"
    "- HTML is converted to Markdown (links kept); other text is used as is; binary files "
    "(PDFs, images, archives) are saved locally and their path returned for read_file\n"
    "- The answer comes back after a header with the HTTP status, content type and size\n"
    "- http:// URLs to public hosts are upgraded to https; redirects to another host are "
    "reported, not followed: call again with the new URL if it is wanted\n"
    "- Pages behind a login (private repositories, internal wikis, documents shared by "
    "link) cannot be read; prefer an MCP tool made for such a service when one exists\n"
    "- Private and local network addresses are refused unless the user's settings allow them\n"
    "- A page fetched again within 15 minutes comes from a cache\n"
    "- The optional format only changes the Accept header sent to the server."
)

_SCHEMA: dict[str, Any] = {
    "properties": {
        "url": {"description": "Full http:// or https:// URL of the page.", "type": "string"},
        "prompt": {
            "description": "What to find out from the page (the question to answer about it).",
            "type": "string",
        },
        "format": {
            "description": "Preferred format for the Accept header: auto (default), markdown, "
            "html or text. The content reaching the model is text either way.",
            "type": "string",
            "enum": ["auto", "markdown", "html", "text"],
        },
    },
    "required": ["url", "prompt"],
    "type": "object",
}

_SYSTEM_PROMPT = (
    "You read web content fetched for a user and pull out what they asked for. Answer "
    "precisely and briefly, using only the content given, and say nothing beyond the answer."
)
_EMPTY_ANSWER = (
    "[The processing model returned no content. The fetch itself succeeded \u2014 see the "
    "metadata above.]"
)
_NO_MODEL_NOTE = (
    "[No model is configured to process this content, so it follows unprocessed: apply the "
    "prompt to it yourself.]"
)


def _processing_timeout_s() -> float:
    raw = os.environ.get("QWEN_WEB_FETCH_PROCESSING_TIMEOUT_MS", "").strip()
    value = int(raw) if raw.isdigit() and int(raw) > 0 else PROCESSING_TIMEOUT_MS
    return (value if value <= _MAX_TIMER_MS else PROCESSING_TIMEOUT_MS) / 1000


def _hostname(url: str) -> str:
    parts = parse_http_url(url)
    return js_hostname(parts) if parts is not None else url


class WebFetchInvocation(BaseToolInvocation[WebFetchParams]):
    """One validated ``web_fetch`` call (``params["url"]`` already rewritten for GitHub)."""

    def __init__(
        self, config: Config, params: WebFetchParams, resolver: Resolver | None = None
    ) -> None:
        super().__init__(params)
        self.config = config
        self.resolver = resolver

    @property
    def url(self) -> str:
        """The URL as given (after the GitHub blob rewrite)."""
        return str(self.params["url"])

    @property
    def prompt(self) -> str:
        """The user's prompt for the content."""
        return str(self.params["prompt"])

    def get_description(self) -> str:
        """The URL, the format and the (shortened) prompt."""
        prompt = self.prompt if len(self.prompt) <= 100 else self.prompt[:97] + "..."
        fmt = self.params.get("format") or "auto"
        return f'Fetching content from {self.url} (format: {fmt}) and processing with prompt: "{prompt}"'

    async def should_confirm_execute(
        self, signal: AbortSignal
    ) -> InfoConfirmationDetails | Literal[False]:
        """Always ask (a fetch sends data out); the approval mode may approve it."""
        return InfoConfirmationDetails(
            title="Confirm Web Fetch",
            prompt=f"Fetch content from {self.url} and process with: {self.prompt}",
            urls=(self.url,),
        )

    async def execute(
        self, signal: AbortSignal, update_output: UpdateOutput | None = None
    ) -> ToolResult:
        """Fetch, convert, then answer the prompt with the session's model."""
        start = time.monotonic()

        def elapsed() -> str:
            return f" in {time.monotonic() - start:.1f}s"

        accept = _ACCEPT.get(self.params.get("format") or "auto", _ACCEPT["auto"])
        try:
            entry = await fetch_entry(
                self.config, plan_fetch(self.url), accept, signal, resolver=self.resolver
            )
        except FetchError as exc:
            cancelled = exc.code == "ABORT_ERR"
            return self._failure(str(exc), elapsed(), cancelled)
        if isinstance(entry, CrossHostRedirect):
            return self._redirect(entry, elapsed)
        return await self._answer(entry, signal, elapsed)

    def _failure(self, reason: str, elapsed: str, cancelled: bool = False) -> ToolResult:
        message = f"Error during fetch for {self.url}: {reason}"
        kind = (
            ToolErrorType.EXECUTION_CANCELLED
            if cancelled
            else ToolErrorType.WEB_FETCH_FALLBACK_FAILED
        )
        return ToolResult.failure(
            message, kind, llm_content=f"Error: {message}", display=f"Error: {message}{elapsed}"
        )

    def _redirect(self, redirect: CrossHostRedirect, elapsed: Callable[[], str]) -> ToolResult:
        message = (
            "REDIRECT DETECTED: The URL redirects to a different host (or scheme/port), which "
            "was not followed automatically.\n\n"
            f"Original URL: {redirect.original_url}\n"
            f"Redirect URL: {redirect.redirect_url}\n"
            f"Status: {redirect.status}\n\n"
            f"To fetch the redirected content, call {WebFetchTool.Name} again with:\n"
            f'- url: "{redirect.redirect_url}"\n'
            f'- prompt: "{self.prompt}"'
        )
        display = (
            f"Redirected to {_hostname(redirect.redirect_url)} ({redirect.status}) \u2014 not "
            f"followed (different host or scheme/port).{elapsed()}"
        )
        return ToolResult(llm_content=message, return_display=display)

    def _header(self, entry: FetchEntry) -> str:
        url_line = f"URL: {self.url}"
        if entry.final_url != self.url:
            url_line += f" (final: {entry.final_url})"
        status = f"{entry.status} {entry.status_text or 'OK'}"
        header = (
            f"{url_line}\nStatus: {status} | Content-Type: {entry.content_type or 'unknown'} | "
            f"Size: {en_us(entry.byte_length)} bytes"
        )
        if entry.body_cut:
            header += (
                f"\n[Only the first {en_us(MAX_RESPONSE_BYTES)} bytes of the response were "
                "read (size limit).]"
            )
        return header

    def _binary_note(self, entry: FetchEntry) -> str:
        if entry.persisted_path is None:
            return ""
        path = entry.persisted_path
        hint = ""
        if path.endswith(".pdf"):
            hint = " Use read_file to examine it (reads PDFs natively; pass pages for large files)."
        elif path.endswith((".png", ".jpg", ".jpeg", ".gif", ".webp")):
            hint = " Use read_file to view it."
        mime = entry.persisted_mime or entry.content_type or "unknown"
        size = format_byte_size(entry.byte_length)
        return f"\n\n[Binary content ({mime}, {size}) saved to {path}.{hint}]"

    def _result(self, llm_content: str, display: str, entry: FetchEntry) -> ToolResult:
        paths = [entry.persisted_path] if entry.persisted_path else []
        return ToolResult(llm_content=llm_content, return_display=display, result_file_paths=paths)

    async def _answer(
        self, entry: FetchEntry, signal: AbortSignal, elapsed: Callable[[], str]
    ) -> ToolResult:
        header = self._header(entry)
        binary_note = self._binary_note(entry)
        summary = (
            f"Received {format_byte_size(entry.byte_length)} ({entry.status} "
            f"{entry.status_text or 'OK'}) from {_hostname(self.url)}"
        )
        if entry.persisted_path:
            summary += f" \u2014 binary saved to {entry.persisted_path}"
        if entry.persisted_path and not entry.text.strip():
            text = f"{header}\n\n[No text could be extracted from this binary content.]"
            return self._result(text + binary_note, summary + elapsed(), entry)
        generator = self.config.content_generator
        if generator is None:
            fixed = f"{header}\n\n{_NO_MODEL_NOTE}\n\n{binary_note}"
            content = self._within_budget(entry, fixed)
            text = f"{header}\n\n{_NO_MODEL_NOTE}\n\n{content}{binary_note}"
            display = (
                f"{summary}{elapsed()} \u2014 no model configured, content returned unprocessed"
            )
            return self._result(text, display, entry)
        prompt = (
            f'The user asked for the following: "{self.prompt}".\n\n'
            f"Below is what was fetched from {self.url}, with its fetch metadata:\n{header}\n\n"
            "Answer the request from this content.\n\n"
            f"---\n{entry.content}\n---"
        )
        import anyio

        answer: str | None = None
        try:
            with anyio.move_on_after(_processing_timeout_s()) as timer:
                answer = await generator.generate_text(prompt, signal=signal, system=_SYSTEM_PROMPT)
            if timer.cancelled_caught:
                raise TimeoutError(f"timed out after {round(_processing_timeout_s() * 1000)}ms")
        except Exception as exc:
            if signal.aborted:
                return self._failure("Request aborted", elapsed(), cancelled=True)
            reason = str(exc) or type(exc).__name__
            text = (
                f"{header}\n\n[Content processing failed ({reason}). The raw fetched content "
                f"follows.]\n\n{entry.content}{binary_note}"
            )
            display = f"{summary}{elapsed()} \u2014 processing failed, raw content returned"
            return self._result(text, display, entry)
        if signal.aborted:
            return self._failure("Request aborted", elapsed(), cancelled=True)
        result_text = (answer or "").strip() or _EMPTY_ANSWER
        return self._result(f"{header}\n\n{result_text}{binary_note}", summary + elapsed(), entry)

    def _within_budget(self, entry: FetchEntry, fixed: str) -> str:
        """The content cut so that, with ``fixed`` around it, the result fits the output budget."""
        room = len(entry.text)
        threshold = self.config.truncate_tool_output_threshold
        if threshold > 0:
            room = min(room, max(threshold - len(fixed) - 120, 0))
        lines = self.config.truncate_tool_output_lines
        if lines > 0:
            allowed = max(lines - fixed.count("\n") - 4, 0)
            head = entry.text.split("\n", allowed)
            if len(head) > allowed:
                room = min(room, len("\n".join(head[:allowed])))
        return entry.limited(room)


class WebFetchTool(BaseDeclarativeTool[WebFetchParams]):
    """The ``web_fetch`` tool (display name ``WebFetch``, kind ``fetch``)."""

    Name: ClassVar[str] = ToolNames.WEB_FETCH

    def __init__(self, config: Config, *, resolver: Resolver | None = None) -> None:
        super().__init__(self.Name, ToolDisplayNames.WEB_FETCH, _DESCRIPTION, Kind.FETCH, _SCHEMA)
        self.config = config
        self.resolver = resolver

    def validate_tool_param_values(self, params: WebFetchParams) -> str | None:
        """The reference's checks, in its order: URL present, http(s), no credentials, prompt."""
        url = params["url"]
        if not url.strip():
            return "The 'url' parameter cannot be empty."
        if not has_http_scheme(url):
            return "The 'url' must be a valid URL starting with http:// or https://."
        parts = parse_http_url(url)
        if parts is None:
            return "The 'url' is malformed and could not be parsed."
        if parts.username or parts.password:
            return "The 'url' must not include credentials."
        if not params["prompt"].strip():
            return "The 'prompt' parameter cannot be empty."
        return None

    def create_invocation(self, params: WebFetchParams) -> ToolInvocation[WebFetchParams]:
        """Build the invocation, fetching GitHub ``blob`` pages from raw.githubusercontent.com."""
        rewritten: WebFetchParams = {
            **params,
            "url": rewrite_github_blob_url(params["url"].strip()),
        }
        return WebFetchInvocation(self.config, rewritten, self.resolver)
