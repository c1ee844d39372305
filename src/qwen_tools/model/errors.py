"""Errors from the model endpoint, with the messages and retry decisions of Qwen Code 0.24.4.

Messages follow what the reference shows: an HTTP error reads ``<status> <error.message>``
(the OpenAI SDK's wording: the body's ``error.message``, else the ``error`` object as JSON,
else the raw text, else ``status code (no body)``); :func:`format_api_error` wraps it as
``[API Error: ...]``, adding the rate-limit hint for 429.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = [
    "ModelConnectionError",
    "ModelError",
    "ModelHTTPError",
    "ModelResponseError",
    "ModelTimeoutError",
    "format_api_error",
]

RATE_LIMIT_HINT = (
    "\nPossible quota limitations in place or slow response times detected. "
    "Please wait and try again later."
)
TIMEOUT_TIPS = (
    "Troubleshooting tips:\n"
    "- Reduce input length or complexity\n"
    "- Increase timeout in config: contentGenerator.timeout\n"
    "- Check network connectivity"
)

_RETRYABLE_CODES = frozenset({429, 503, 1302, 1305})


class ModelError(Exception):
    """A failed model call; ``str()`` is the reference's message for it."""

    status: int | None = None
    retryable = False
    after_output = False
    """Set when a stream failed after delivering text (such an attempt is never retried)."""

    @property
    def message(self) -> str:
        """The error text (without the ``[API Error: ...]`` wrapper)."""
        return str(self)


class ModelHTTPError(ModelError):
    """The endpoint answered with an error status (or an error object inside a stream)."""

    def __init__(
        self,
        status: int | None,
        body: Any = None,
        text: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.status = status
        self.body = body
        self.headers = {k.lower(): v for k, v in (headers or {}).items()}
        error = body.get("error") if isinstance(body, dict) else None
        self.error = error if isinstance(error, dict) else None
        super().__init__(_status_message(status, error, text))

    @property
    def retryable(self) -> bool:  # type: ignore[override]
        """429, 5xx, provider rate-limit codes, or ``x-should-retry: true``."""
        flag = self.headers.get("x-should-retry")
        if flag in ("true", "false"):
            return flag == "true"
        if self.status is not None and (self.status in (408, 409, 429) or self.status >= 500):
            return True
        code = self.error.get("code") if self.error else None
        try:
            return int(code) in _RETRYABLE_CODES  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return False


class ModelConnectionError(ModelError):
    """The request never got an answer (refused, reset, DNS...)."""

    retryable = True

    def __init__(self, detail: str = "Connection error.") -> None:
        super().__init__(detail)


class ModelTimeoutError(ModelConnectionError):
    """No answer within the request timeout."""

    def __init__(self, seconds: float) -> None:
        super().__init__(
            f"Request timeout after {round(seconds)}s. Try reducing input length or "
            f"increasing timeout in config.\n\n{TIMEOUT_TIPS}"
        )


class ModelResponseError(ModelError):
    """The answer could not be understood (not JSON, no choices, broken stream)."""


def _status_message(status: int | None, error: Any, text: str | None) -> str:
    if isinstance(error, dict) and error.get("message"):
        message = error["message"]
        detail = message if isinstance(message, str) else json.dumps(message)
    elif error is not None:
        detail = json.dumps(error, separators=(",", ":"), ensure_ascii=False)
    else:
        detail = text or ""
    if status and detail:
        return f"{status} {detail}"
    if status:
        return f"{status} status code (no body)"
    return detail or "(no status code or body)"


def format_api_error(error: BaseException) -> str:
    """``[API Error: <message>]``, plus the rate-limit hint for 429, as the reference shows it."""
    text = str(error)
    if text.startswith("[API Error: "):
        return text
    wrapped = f"[API Error: {text}]"
    if isinstance(error, ModelError) and error.status == 429:
        wrapped += RATE_LIMIT_HINT
    return wrapped
