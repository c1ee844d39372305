"""The OAuth login of ``qwen-tools mcp auth NAME``: the SDK's flow, the redirect received on
``127.0.0.1``.

:func:`login` hands the authorization URL to ``open_url`` (the CLI prints it), waits for the
browser's redirect on a :class:`CallbackListener` bound to ``127.0.0.1`` (a random port, or the
one of ``oauth.redirectUri``, or the one a client registered earlier used), and connects once so
the SDK completes discovery, registration, the code exchange (PKCE, state checked) and stores
the tokens (:mod:`.oauth_store`). A redirect answers one authorization request only.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlsplit

from qwen_tools.mcp.oauth import (
    CALLBACK_PATH,
    LOGIN_TIMEOUT_S,
    make_provider,
    oauth_options,
    server_url,
)
from qwen_tools.mcp.oauth_store import FileTokenStorage, tokens_path

if TYPE_CHECKING:
    from mcp.shared.auth import AuthorizationCodeResult

    from qwen_tools.config.tool_settings import McpServerConfig

__all__ = ["CallbackListener", "login"]

_PAGE = "<!doctype html><title>qwen-tools</title><p>{text}</p><p>You can close this window.</p>"


def _home() -> Path:
    from qwen_tools.config.config import qwen_home

    return qwen_home()


def _first(query: dict[str, list[str]], key: str) -> str | None:
    values = query.get(key)
    return values[0] if values else None


class CallbackListener:
    """An HTTP listener on 127.0.0.1 that waits for the authorization server's redirect."""

    def __init__(self, port: int = 0) -> None:
        self.port = port
        self._server: asyncio.Server | None = None
        self._result: asyncio.Future[AuthorizationCodeResult] | None = None

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}{CALLBACK_PATH}"

    async def __aenter__(self) -> CallbackListener:
        self._result = asyncio.get_running_loop().create_future()
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", self.port)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = (await asyncio.wait_for(reader.readline(), 10)).decode("latin-1")
            parts = line.split(" ")
            target = urlsplit(parts[1] if len(parts) > 1 else "/")
            query = parse_qs(target.query)
            code = _first(query, "code")
            error = _first(query, "error")
            if target.path != CALLBACK_PATH or (code is None and error is None):
                await self._reply(writer, 404, "Not the OAuth callback.")
                return
            result = self._result
            if error is not None:
                await self._reply(writer, 400, f"Login failed: {error}")
                if result is not None and not result.done():
                    result.set_exception(RuntimeError(f"Authorization failed: {error}"))
                return
            await self._reply(writer, 200, "Logged in.")
            if result is not None and not result.done() and code is not None:
                from mcp.shared.auth import AuthorizationCodeResult

                result.set_result(
                    AuthorizationCodeResult(
                        code=code, state=_first(query, "state"), iss=_first(query, "iss")
                    )
                )
        except (TimeoutError, OSError, UnicodeError):
            pass
        finally:
            writer.close()

    @staticmethod
    async def _reply(writer: asyncio.StreamWriter, status: int, text: str) -> None:
        body = _PAGE.format(text=text).encode()
        reason = {200: "OK", 400: "Bad Request", 404: "Not Found"}[status]
        head = (
            f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/html; charset=utf-8\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        )
        writer.write(head.encode() + body)
        with contextlib.suppress(OSError):
            await writer.drain()

    async def wait(self, timeout: float = LOGIN_TIMEOUT_S) -> AuthorizationCodeResult:
        """The ``code``, ``state`` and ``iss`` of the redirect; raises ``TimeoutError``."""
        assert self._result is not None, "use 'async with'"
        try:
            return await asyncio.wait_for(asyncio.shield(self._result), timeout)
        finally:  # a redirect answers one authorization request only
            if self._result.done():
                self._result = asyncio.get_running_loop().create_future()


async def login(
    name: str,
    config: McpServerConfig,
    open_url: Callable[[str], Awaitable[None]],
    *,
    home: Path | None = None,
    timeout: float = LOGIN_TIMEOUT_S,
) -> None:
    """Log in to server ``name``: the SDK's flow with ``open_url`` showing the authorization URL
    and a 127.0.0.1 listener receiving the redirect; tokens are stored. Raises on failure."""
    from mcp.client import Client

    from qwen_tools.mcp.transport import open_transport

    home = home or _home()
    redirect = oauth_options(config).get("redirectUri") or await _registered_redirect(
        name, config, home
    )
    port = (urlsplit(str(redirect)).port or 0) if redirect else 0
    async with CallbackListener(port) as listener:

        async def callback() -> AuthorizationCodeResult:
            return await listener.wait(timeout)

        uri = str(redirect) if redirect else listener.redirect_uri
        auth = make_provider(name, config, home, uri, open_url, callback)
        transport = open_transport(
            name, config, default_cwd=Path.cwd(), stderr=None, on_closed=lambda: None, auth=auth
        )
        async with Client(transport, mode="legacy", cache=None) as client:
            await client.list_tools()


async def _registered_redirect(name: str, config: McpServerConfig, home: Path) -> str | None:
    """The redirect URI a client registered earlier for ``name`` uses (same port again)."""
    stored = await FileTokenStorage(
        tokens_path(home), name, server_url(config) or ""
    ).get_client_info()
    uris = [str(u) for u in (stored.redirect_uris or [])] if stored is not None else []
    return next((u for u in uris if u.startswith("http://127.0.0.1:")), None)
