"""``ChatClient``: an OpenAI-compatible ``/chat/completions`` client on httpx.

The caller hands over the request body as bytes (the agent loop builds it from cached JSON
fragments, see :mod:`qwen_tools.agent.request`), so the client never re-encodes a
conversation. Streaming reads server-sent events and reports text as it arrives; the answer
comes back as a :class:`~qwen_tools.model.completion.Completion` either way. Failures are
retried as :mod:`.retry` describes, and the :class:`~qwen_tools.contract.abort.AbortSignal`
cancels the request (and any wait) at once. The client also implements
:class:`~qwen_tools.model.protocol.ContentGenerator` for one-shot prompts.
"""

from __future__ import annotations

import asyncio
import json
import platform
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import suppress
from typing import TYPE_CHECKING, Any, TypeVar

from qwen_tools._version import __version__
from qwen_tools.contract.abort import AbortError, AbortSignal
from qwen_tools.model.completion import Completion, CompletionBuilder, completion_from_json
from qwen_tools.model.errors import (
    ModelConnectionError,
    ModelError,
    ModelHTTPError,
    ModelResponseError,
    ModelTimeoutError,
)
from qwen_tools.model.retry import RetryHook, RetryPolicy, call_with_retries

if TYPE_CHECKING:
    import httpx

    from qwen_tools.model.model_config import ModelConfig

__all__ = ["ChatClient", "DeltaHook"]

T = TypeVar("T")
Body = bytes | bytearray | Sequence[bytes | bytearray]
"""A request body: JSON bytes, or JSON fragments to send in order."""
DeltaHook = Callable[[str, str], None]
"""Receives ``(text, reasoning)`` pieces of a streamed answer as they arrive."""

STREAM_IDLE_TIMEOUT_S = 240.0


def _user_agent() -> str:
    machine = platform.machine().lower()
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64"}.get(machine, machine)
    return f"qwen-tools/{__version__} ({sys.platform}; {arch})"


async def run_cancellable(call: Callable[[], Awaitable[T]], signal: AbortSignal) -> T:
    """Await ``call()``; cancel it and raise :class:`AbortError` as soon as ``signal`` fires."""
    signal.throw_if_aborted()
    task = asyncio.ensure_future(call())
    waiter = asyncio.ensure_future(signal.wait())
    try:
        await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        if not task.done():
            task.cancel()
            with suppress(asyncio.CancelledError, Exception):
                await task
        waiter.cancel()
    if task.cancelled():
        raise AbortError(signal.reason or "The operation was aborted.")
    return task.result()


class ChatClient:
    """Sends chat-completion requests for one :class:`ModelConfig`."""

    def __init__(
        self,
        config: ModelConfig,
        *,
        policy: RetryPolicy | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.config = config
        self.policy = policy or RetryPolicy()
        self._transport = transport
        self._http: httpx.AsyncClient | None = None
        self._headers = {
            "Authorization": f"Bearer {config.api_key}",
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": _user_agent(),
            **dict(config.custom_headers),
        }

    # -- lifecycle ------------------------------------------------------------------------

    def _client(self) -> httpx.AsyncClient:
        if self._http is None:
            import httpx

            self._http = httpx.AsyncClient(
                transport=self._transport,
                timeout=httpx.Timeout(self.config.timeout_s),
                headers=self._headers,
            )
        return self._http

    async def aclose(self) -> None:
        """Close the connection pool."""
        if self._http is not None:
            await self._http.aclose()
            self._http = None

    async def __aenter__(self) -> ChatClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # -- requests -------------------------------------------------------------------------

    async def complete(
        self,
        body: Body,
        *,
        stream: bool,
        signal: AbortSignal | None = None,
        on_delta: DeltaHook | None = None,
        on_retry: RetryHook | None = None,
    ) -> Completion:
        """Send one request body (its ``stream`` field must match ``stream``) with retries.

        ``body`` is the JSON as bytes, or as a sequence of fragments sent one after the other
        (no joined copy is made; they must not change until this returns).
        """
        signal = signal or AbortSignal.never()

        async def attempt() -> Completion:
            if stream:
                return await run_cancellable(lambda: self._stream(body, on_delta), signal)
            return await run_cancellable(lambda: self._plain(body), signal)

        return await call_with_retries(
            attempt,
            signal=signal,
            policy=self.policy,
            transport_retries=self.config.transport_retries,
            on_retry=on_retry,
        )

    async def _plain(self, body: Body) -> Completion:
        import httpx

        started = time.monotonic()
        try:
            content, headers = _content(body)
            response = await self._client().post(
                self.config.endpoint, content=content, headers=headers
            )
        except (httpx.UnsupportedProtocol, httpx.InvalidURL) as exc:
            raise _bad_url(self.config.endpoint, exc) from None
        except httpx.TimeoutException:
            raise ModelTimeoutError(time.monotonic() - started) from None
        except httpx.TransportError as exc:
            raise ModelConnectionError() from exc
        if response.status_code >= 400:
            raise _http_error(response.status_code, response.content, response.headers)
        try:
            payload = json.loads(response.content)
        except ValueError:
            raise ModelResponseError("The model endpoint returned invalid JSON.") from None
        completion = completion_from_json(payload)
        completion.latency_ms = (time.monotonic() - started) * 1000
        return completion

    async def _stream(self, body: Body, on_delta: DeltaHook | None) -> Completion:
        import httpx

        started = time.monotonic()
        builder = CompletionBuilder()
        delivered = False
        timeout = httpx.Timeout(self.config.timeout_s, read=STREAM_IDLE_TIMEOUT_S)
        try:
            content, headers = _content(body)
            async with self._client().stream(
                "POST", self.config.endpoint, content=content, headers=headers, timeout=timeout
            ) as response:
                if response.status_code >= 400:
                    raise _http_error(
                        response.status_code, await response.aread(), response.headers
                    )
                async for data in _sse_data(response):
                    if data == "[DONE]":
                        break
                    chunk = _parse_chunk(data)
                    if builder.completion.ttft_ms is None:
                        builder.completion.ttft_ms = (time.monotonic() - started) * 1000
                    text, reasoning = builder.add_chunk(chunk)
                    if (text or reasoning) and on_delta is not None:
                        delivered = True
                        on_delta(text, reasoning)
        except ModelError as error:
            error.after_output = delivered
            raise
        except (httpx.UnsupportedProtocol, httpx.InvalidURL) as exc:
            raise _bad_url(self.config.endpoint, exc) from None
        except httpx.TimeoutException:
            timeout_error = ModelTimeoutError(time.monotonic() - started)
            timeout_error.after_output = delivered
            raise timeout_error from None
        except httpx.TransportError as exc:
            connection_error = ModelConnectionError()
            connection_error.after_output = delivered
            raise connection_error from exc
        completion = builder.finish()
        completion.latency_ms = (time.monotonic() - started) * 1000
        return completion

    async def list_models(self, *, timeout_s: float = 15.0) -> list[str]:
        """The model ids the endpoint offers (``GET <base URL>/models``), sorted; one attempt.

        Raises :class:`ModelError` (its text is one line: the status and message, or why the
        endpoint could not be reached, or that the answer had no ``data`` list).
        """
        import httpx

        url = self.config.base_url.rstrip("/") + "/models"
        try:
            response = await self._client().get(url, timeout=timeout_s)
        except (httpx.UnsupportedProtocol, httpx.InvalidURL) as exc:
            raise _bad_url(url, exc) from None
        except httpx.TimeoutException:
            raise ModelConnectionError(f"No answer from {url} within {timeout_s:.0f}s.") from None
        except httpx.TransportError as exc:
            raise ModelConnectionError(f"Connection error ({type(exc).__name__}).") from exc
        if response.status_code >= 400:
            raise _http_error(response.status_code, response.content, response.headers)
        data = _maybe_json(response.content.decode("utf-8", "replace"))
        items = data.get("data") if isinstance(data, dict) else None
        if not isinstance(items, list):
            raise ModelResponseError(f"{url} did not answer with a list of models.")
        ids = {str(item["id"]) for item in items if isinstance(item, dict) and item.get("id")}
        return sorted(ids)

    # -- ContentGenerator -------------------------------------------------------------------

    async def generate_text(
        self, prompt: str, *, signal: AbortSignal, system: str | None = None
    ) -> str:
        """One non-streamed answer to ``prompt`` (no tools, no history)."""
        messages: list[dict[str, Any]] = []
        if system:
            messages.append({"role": "system", "content": system})
        messages.append({"role": "user", "content": [{"type": "text", "text": prompt}]})
        request: dict[str, Any] = {"model": self.config.model, "messages": messages}
        request.update(dict(self.config.sampling or {}))
        request["stream"] = False
        request.update(dict(self.config.extra_body))
        text = json.dumps(request, ensure_ascii=False, separators=(",", ":"))
        body = text.encode("utf-8", "backslashreplace")  # lone surrogates: their JSON escapes
        completion = await self.complete(body, stream=False, signal=signal)
        return completion.text


def _bad_url(url: str, exc: Exception) -> ModelError:
    """A base URL httpx cannot use (no ``http(s)://``...): not worth retrying."""
    return ModelError(f"Invalid model endpoint {url!r}: {exc}")


def _content(body: Body) -> tuple[Any, dict[str, str]]:
    """httpx content for ``body``: bytes as they are, fragments as an async stream."""
    if isinstance(body, bytes | bytearray):
        return body, {}
    parts = list(body)

    async def fragments() -> AsyncIterator[bytes | bytearray]:
        for part in parts:
            if part:
                yield part

    return fragments(), {"Content-Length": str(sum(len(p) for p in parts))}


def _http_error(status: int, raw: bytes, headers: Any) -> ModelHTTPError:
    text = raw.decode("utf-8", "replace")
    try:
        body = json.loads(text) if text.strip() else None
    except ValueError:
        body = None
    return ModelHTTPError(status, body, None if body is not None else text, dict(headers))


def _parse_chunk(data: str) -> Any:
    try:
        chunk = json.loads(data)
    except ValueError:
        raise ModelResponseError("The model endpoint sent an invalid stream chunk.") from None
    if isinstance(chunk, dict) and isinstance(chunk.get("error"), dict):
        error = chunk["error"]
        code = error.get("code")
        status = code if isinstance(code, int) and 100 <= code < 600 else None
        raise ModelHTTPError(status, chunk, None, {})
    return chunk


async def _sse_data(response: httpx.Response) -> Any:
    """The ``data`` payloads of a server-sent event stream (multi-line data joined by ``\\n``)."""
    lines: list[str] = []
    event = ""
    async for line in response.aiter_lines():
        if not line:
            if lines:
                data = "\n".join(lines)
                if event == "error":
                    raise ModelHTTPError(None, _maybe_json(data), data, {})
                yield data
            lines, event = [], ""
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "data":
            lines.append(value)
        elif field == "event":
            event = value
    if lines:
        yield "\n".join(lines)


def _maybe_json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None
