"""Text the MCP SDK's JSON layer cannot take, on the way in and on the way out.

In
    The SDK parses each message with pydantic's JSON parser, which refuses what ``JSON.parse``
    reads without complaint: a lone surrogate escape (``"\\ud800"``), an integer of thousands of
    digits, nesting deeper than about 200 levels. Over stdio the SDK then drops the message, and
    the client waits forever for its answer; over HTTP it answers a parse error. Such a message is
    read again here with :func:`~qwen_tools.contract.arg_limits.loads_arguments` (over-deep
    arguments cut to one level past the limit, huge integers as Infinity) and its strings made
    well-formed, so the call reaches :class:`~.server.ToolServer` and gets its own answer: the
    depth error, ``params/offset must be integer,null``, ``File not found: …\\ufffd``. Text that is
    not JSON at all is left to the SDK. :class:`RepairingReadStream` does this for stdio,
    :class:`RepairingHttpApp` for HTTP request bodies.
Out
    pydantic cannot write a string holding a lone surrogate (a file name that is not UTF-8 gives
    one), and the SDK's parsers would refuse its escape anyway: :func:`well_formed_result` turns
    each one into U+FFFD, as Node does, before the SDK writes the result.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import mcp_types as types
import pydantic_core
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from qwen_tools.contract.arg_limits import (
    MAX_DEPTH,
    ArgumentsTextError,
    loads_arguments,
    prune_depth,
)
from qwen_tools.contract.well_formed import has_surrogates, well_formed_tree

__all__ = ["RepairingHttpApp", "RepairingReadStream", "repair_message", "well_formed_result"]

_ENVELOPE = 2
"""Levels above a call's arguments: the message object and its ``params``."""

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
AsgiApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def _reread(text: str) -> Any:
    """``text`` as ``JSON.parse`` reads it, strings well-formed; ``None`` if it is not JSON."""
    cut = prune_depth(text, _ENVELOPE + MAX_DEPTH + 1)  # within every parser's reach
    try:
        value = loads_arguments(cut, envelope=_ENVELOPE, constants=True)
    except ArgumentsTextError:
        return None
    return well_formed_tree(value)


def repair_message(text: str) -> types.JSONRPCMessage | None:
    """The message the SDK refused, read again (see the module docstring), or ``None``."""
    value = _reread(text)
    if value is None:
        return None
    try:
        return types.jsonrpc_message_adapter.validate_python(value, by_name=False)
    except ValidationError:
        return None


def _refused_text(error: Exception) -> str | None:
    """The raw line of a message the SDK's stdio reader could not parse as JSON."""
    if not isinstance(error, ValidationError):
        return None
    details = error.errors(include_url=False)
    if len(details) != 1 or details[0].get("type") != "json_invalid":
        return None
    raw = details[0].get("input")
    return raw if isinstance(raw, str) else None


class RepairingReadStream:
    """The SDK's stdio read stream, with refused messages read again (see the module docstring).

    Everything else passes through untouched; the sender's context (``last_context``) is the
    inner stream's.
    """

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    @property
    def last_context(self) -> Any:
        """The inner stream's ``last_context`` (the SDK restores it per message)."""
        return getattr(self._inner, "last_context", None)

    def _repaired(self, item: Any) -> Any:
        if isinstance(item, Exception):
            raw = _refused_text(item)
            message = repair_message(raw) if raw is not None else None
            if message is not None:
                return SessionMessage(message)
        return item

    async def receive(self) -> Any:
        """The next message (repaired when the SDK refused it)."""
        return self._repaired(await self._inner.receive())

    async def aclose(self) -> None:
        """Close the inner stream."""
        await self._inner.aclose()

    def __aiter__(self) -> RepairingReadStream:
        return self

    async def __anext__(self) -> Any:
        return self._repaired(await self._inner.__anext__())

    async def __aenter__(self) -> RepairingReadStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def repair_body(body: bytes) -> bytes:
    """An HTTP request body the SDK's parser accepts: ``body`` itself whenever it already does."""
    try:
        pydantic_core.from_json(body)
    except ValueError:
        pass
    else:
        return body
    value = _reread(body.decode("utf-8", "replace"))
    if value is None:
        return body
    # Infinity and NaN are written as such: both of the SDK's parsers read them.
    return json.dumps(value, ensure_ascii=False).encode()


class RepairingHttpApp:
    """An ASGI app in front of the SDK's: POST bodies go through :func:`repair_body`."""

    def __init__(self, app: AsgiApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Buffer a POST body, repair it, and replay it to the SDK's app."""
        if scope.get("type") != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        while True:
            message = await receive()
            if message.get("type") != "http.request":
                await self.app(scope, _replay([message], receive), send)
                return
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body = repair_body(b"".join(chunks))
        first: Message = {"type": "http.request", "body": body, "more_body": False}
        await self.app(scope, _replay([first], receive), send)


def _replay(messages: list[Message], receive: Receive) -> Receive:
    """``receive`` that gives ``messages`` first (the body read already), then the real ones."""
    pending = list(messages)

    async def replayed() -> Message:
        if pending:
            return pending.pop(0)
        return await receive()

    return replayed


def well_formed_result(result: types.CallToolResult) -> types.CallToolResult:
    """``result`` with every lone surrogate in its strings replaced by U+FFFD."""
    if (
        not result.meta
        and result.structured_content is None
        and all(
            type(block) is types.TextContent
            and not block.meta
            and not block.annotations
            and not has_surrogates(block.text)
            for block in result.content
        )
    ):
        return result  # the usual answer: well-formed text only, no need to walk a dump
    dumped = result.model_dump(by_alias=True, exclude_none=True)
    fixed = well_formed_tree(dumped)
    if fixed is dumped:
        return result
    return types.CallToolResult.model_validate(fixed)
