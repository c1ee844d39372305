"""How an MCP server's failures are told apart and worded.

A connection failure (the server is gone, the transport broke) is not a call failure (the
server answered with an error): :func:`is_connection_error` tells them apart, and
:class:`ConnectionLost` carries the first kind out of a call. The rest words a failure in one
line, naming the server once: ``MCP server '<name>': <reason>``.
"""

from __future__ import annotations

import asyncio
import re

import anyio

_DEAD_SESSION = re.compile(r"session (not found|terminated|expired)", re.I)
_CONNECTION_WORDS = re.compile(
    r"ECONNREFUSED|ENOTFOUND|ECONNRESET|ETIMEDOUT|connection (closed|lost)|not connected"
    r"|disconnected|transport closed|SSE stream|" + _DEAD_SESSION.pattern,
    re.I,
)
CONNECTION_CLOSED = -32000
"""The JSON-RPC error code the SDK gives a request whose connection closed."""


class ConnectionLost(Exception):
    """The connection ended; ``sent`` tells whether the request may have reached the server."""

    def __init__(self, message: str, *, sent: bool) -> None:
        super().__init__(message)
        self.sent = sent


def is_connection_error(exc: BaseException) -> bool:
    """Whether ``exc`` means the connection (not the call) failed."""
    code = getattr(exc, "code", None)
    if code == CONNECTION_CLOSED or code == 404:
        return True
    if isinstance(exc, OSError | anyio.BrokenResourceError | anyio.ClosedResourceError):
        return True
    if type(exc).__module__.startswith(("httpx", "httpcore")):
        return True
    return bool(_CONNECTION_WORDS.search(str(exc)))


def describe_error(exc: BaseException) -> str:
    """A one-line reason for a failure (the innermost useful exception of a group)."""
    while isinstance(exc, BaseExceptionGroup):
        useful = [e for e in exc.exceptions if not isinstance(e, asyncio.CancelledError)]
        if not useful:
            break
        exc = useful[0]
    return str(exc) or type(exc).__name__


def failure_text(name: str, reason: str) -> str:
    """``MCP server '<name>': <reason>``, without naming the server twice."""
    prefix = f"MCP server '{name}'"
    return reason if reason.startswith(prefix) else f"{prefix}: {reason}"


def unavailable_text(name: str, reason: str | None) -> str:
    """``MCP server '<name>' is not connected: <reason>`` (the reason without the name)."""
    prefix = f"MCP server '{name}'"
    why = reason or "not started"
    if why.startswith(prefix):
        why = why[len(prefix) :].lstrip(": ") or why
    return f"{prefix} is not connected: {why}"


def short_error(exc: BaseException) -> str:
    """One line about ``exc``: a validation error's first message and input, else its text."""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        try:
            first = errors()[0]
            text = f"{first['msg']}: {str(first.get('input'))[:60]!r}"
        except (IndexError, KeyError, TypeError, ValueError):
            text = ""
        if text:
            return text
    lines = str(exc).strip().splitlines()
    return lines[0][:200] if lines else type(exc).__name__
