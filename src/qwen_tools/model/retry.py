"""Retrying model calls with Qwen Code 0.24.4's two layers of backoff.

Outer layer (``retryWithBackoff`` around each chat request): 7 attempts; the delay starts at
1.5 s, doubles up to 30 s and is jittered by ±30 %; a 429 or 503 carrying ``retry-after-ms``
or ``Retry-After`` (seconds or an HTTP date) waits exactly that long instead (and resets the
doubling). It retries 429, 5xx, provider rate-limit codes and network errors; other 4xx
(bad request, auth) fail at once.

Inner layer (the OpenAI SDK inside each attempt, ``model.generationConfig.maxRetries``,
default 3): 408, 409, 429, 5xx and connection errors are retried after
``min(0.5 s · 2ⁿ, 8 s)`` shortened by up to 25 %, or after the server's ``Retry-After`` when
it is under 60 s. So a server failing every request sees 7 × 4 = 28 requests by default.

A stream that already delivered text is never retried (the text is on screen). Every wait
ends early, with :class:`~qwen_tools.contract.abort.AbortError`, when the signal fires.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from email.utils import parsedate_to_datetime
from typing import TypeVar

from qwen_tools.contract.abort import AbortError, AbortSignal
from qwen_tools.model.errors import ModelConnectionError, ModelError, ModelHTTPError

__all__ = ["RetryInfo", "RetryPolicy", "call_with_retries", "retry_after_seconds"]

T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    """The numbers of both layers (defaults: the reference's)."""

    attempts: int = 7
    initial_delay_s: float = 1.5
    max_delay_s: float = 30.0
    jitter: float = 0.3
    transport_initial_s: float = 0.5
    transport_max_s: float = 8.0
    transport_retry_after_limit_s: float = 60.0
    random: Callable[[], float] = field(default=random.random, compare=False)


@dataclass(frozen=True)
class RetryInfo:
    """One scheduled retry: which attempt failed, how long we wait, and why."""

    attempt: int
    delay_s: float
    error: ModelError
    layer: str
    """``"attempt"`` (outer layer) or ``"transport"`` (inner layer)."""
    request: int = 0
    """How many requests failed so far, both layers counted (this is the ``request``-th)."""
    requests: int = 0
    """The most requests both layers make (attempts × (1 + transport retries))."""


RetryHook = Callable[[RetryInfo], None]


def retry_after_seconds(error: ModelError) -> float | None:
    """The server's requested delay: ``retry-after-ms``, else ``Retry-After``, else ``None``."""
    if not isinstance(error, ModelHTTPError):
        return None
    millis = error.headers.get("retry-after-ms", "").strip()
    try:
        if millis:
            return max(0.0, float(millis) / 1000)
    except ValueError:
        pass
    value = error.headers.get("retry-after", "").strip()
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, when - time.time())


def _outer_retryable(error: ModelError) -> bool:
    if error.after_output:
        return False
    if isinstance(error, ModelConnectionError):
        return True
    if isinstance(error, ModelHTTPError):
        status = error.status
        if status == 429 or (status is not None and 500 <= status < 600):
            return True
        if status is not None and 400 <= status < 500:
            return False
        return error.retryable
    return False


def _inner_retryable(error: ModelError) -> bool:
    if error.after_output:
        return False
    return isinstance(error, ModelConnectionError) or (
        isinstance(error, ModelHTTPError) and error.status is not None and error.retryable
    )


async def _sleep(seconds: float, signal: AbortSignal) -> None:
    signal.throw_if_aborted()
    if seconds <= 0:
        return
    try:
        await asyncio.wait_for(signal.wait(), timeout=seconds)
    except TimeoutError:
        return
    raise AbortError(signal.reason or "The operation was aborted.")


async def _transport_layer(
    call: Callable[[], Awaitable[T]],
    retries: int,
    policy: RetryPolicy,
    signal: AbortSignal,
    on_retry: RetryHook | None,
) -> T:
    done = 0
    while True:
        signal.throw_if_aborted()
        try:
            return await call()
        except ModelError as error:
            if done >= retries or not _inner_retryable(error):
                raise
            wait = retry_after_seconds(error)
            if wait is None or not 0 <= wait < policy.transport_retry_after_limit_s:
                base = min(policy.transport_initial_s * 2**done, policy.transport_max_s)
                wait = base * (1 - policy.random() * 0.25)
            done += 1
            if on_retry is not None:
                on_retry(RetryInfo(done, wait, error, "transport"))
            await _sleep(wait, signal)


def _counting(hook: RetryHook, requests: int) -> RetryHook:
    """``hook`` told each failed request's number among all of both layers' (for a person)."""
    failed = 0

    def counted(info: RetryInfo) -> None:
        nonlocal failed
        failed += 1
        hook(replace(info, request=failed, requests=requests))

    return counted


async def call_with_retries(
    call: Callable[[], Awaitable[T]],
    *,
    signal: AbortSignal,
    policy: RetryPolicy | None = None,
    transport_retries: int = 3,
    on_retry: RetryHook | None = None,
) -> T:
    """Run ``call`` under both layers; the last error is raised when every attempt failed."""
    policy = policy or RetryPolicy()
    if on_retry is not None:
        on_retry = _counting(on_retry, policy.attempts * (transport_retries + 1))
    current = policy.initial_delay_s
    attempt = 0
    while True:
        attempt += 1
        try:
            return await _transport_layer(call, transport_retries, policy, signal, on_retry)
        except ModelError as error:
            if attempt >= policy.attempts or not _outer_retryable(error):
                raise
            wait = retry_after_seconds(error) if error.status in (429, 503) else None
            if wait is not None and wait > 0:
                current = policy.initial_delay_s
            else:
                spread = current * policy.jitter * (policy.random() * 2 - 1)
                wait = min(max(0.0, current + spread), policy.max_delay_s)
                current = min(policy.max_delay_s, current * 2)
            if on_retry is not None:
                on_retry(RetryInfo(attempt, wait, error, "attempt"))
            await _sleep(wait, signal)
