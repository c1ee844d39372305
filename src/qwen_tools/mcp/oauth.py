"""OAuth 2.1 for remote MCP servers, through the ``mcp`` SDK's ``OAuthClientProvider``.

The SDK does the protocol: discovery of the protected resource and its authorization server
(RFC 9728 / RFC 8414, with the 2025-03-26 fallbacks), dynamic client registration (RFC 7591),
authorization code with PKCE (S256), scope selection, the token request and refresh. We add:

* where tokens and registered clients live (:mod:`.oauth_store`, mode 0600);
* the login (:mod:`.oauth_login`, ``qwen-tools mcp auth NAME``): a listener on ``127.0.0.1``
  receives the redirect, the authorization URL is handed to ``open_url`` (the CLI prints it);
* the provider a session uses (:func:`session_auth`): stored tokens are sent and refreshed; when
  a new login would be needed — or a server never logged in to answers 401 — the connection
  fails with :data:`LOGIN_NEEDED` instead of waiting for a browser nobody watches.

A server entry may carry Qwen Code's ``oauth`` object: ``clientId`` / ``clientSecret`` (a client
registered beforehand: no dynamic registration), ``scopes``, ``redirectUri``; and ours:
``tokenEndpointAuthMethod`` (default ``client_secret_basic`` with a secret, else ``none``) and
``clientMetadataUrl`` (a Client ID Metadata Document the client publishes: its URL is the
client id where the authorization server supports it).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from qwen_tools.mcp.oauth_store import FileTokenStorage, has_tokens, tokens_path

if TYPE_CHECKING:
    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import AuthorizationCodeResult

    from qwen_tools.config.tool_settings import McpServerConfig

__all__ = ["LOGIN_NEEDED", "make_provider", "oauth_options", "server_url", "session_auth"]

LOGIN_NEEDED = "MCP server '{name}' requires OAuth authentication: run 'qwen-tools mcp auth {name}'"
CALLBACK_PATH = "/oauth/callback"
LOGIN_TIMEOUT_S = 300.0


class LoginNeeded(Exception):
    """Raised (instead of opening a browser) when a session would need a new login."""


def server_url(config: McpServerConfig) -> str | None:
    """The URL a remote server is reached at (``httpUrl``, else ``url``)."""
    return config.http_url or config.url


def oauth_options(config: McpServerConfig) -> dict[str, Any]:
    options = config.extra.get("oauth")
    return options if isinstance(options, dict) else {}


def _home() -> Path:
    from qwen_tools.config.config import qwen_home

    return qwen_home()


def make_provider(
    name: str,
    config: McpServerConfig,
    home: Path,
    redirect_uri: str,
    redirect_handler: Callable[[str], Awaitable[None]],
    callback_handler: Callable[[], Awaitable[AuthorizationCodeResult]],
) -> OAuthClientProvider:
    from mcp.shared.auth import OAuthClientMetadata

    url = server_url(config) or ""
    options = oauth_options(config)
    scopes = options.get("scopes")
    scope = " ".join(s for s in scopes if isinstance(s, str)) if isinstance(scopes, list) else None
    metadata = OAuthClientMetadata.model_validate(
        {
            "client_name": "qwen-tools",
            "redirect_uris": [redirect_uri],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": _auth_method(options),
            **({"scope": scope} if scope else {}),
        }
    )
    storage = _PreRegistered(tokens_path(home), name, url, options, redirect_uri)
    document = options.get("clientMetadataUrl")
    return _Provider(
        url,
        metadata,
        storage,
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
        client_metadata_url=document if isinstance(document, str) and document else None,
    )


def _provider_class() -> type[OAuthClientProvider]:
    from mcp.client.auth import OAuthClientProvider

    class Provider(OAuthClientProvider):
        """The SDK's provider, knowing when stored tokens expire (it forgets across processes),
        so it refreshes an expired access token instead of sending it."""

        async def _initialize(self) -> None:
            await super()._initialize()
            storage = self.context.storage
            if isinstance(storage, FileTokenStorage):
                self.context.token_expiry_time = storage.expires_at()

    return Provider


def _Provider(*args: Any, **kwargs: Any) -> OAuthClientProvider:
    return _provider_class()(*args, **kwargs)


def _auth_method(options: dict[str, Any]) -> str:
    """``oauth.tokenEndpointAuthMethod``, else ``client_secret_basic`` with a secret (RFC 6749's
    default), else ``none`` (a public client)."""
    chosen = options.get("tokenEndpointAuthMethod")
    if isinstance(chosen, str) and chosen:
        return chosen
    return "client_secret_basic" if options.get("clientSecret") else "none"


class _PreRegistered(FileTokenStorage):
    """The file storage, answering a pre-registered ``oauth.clientId`` as the client."""

    def __init__(
        self, path: Path, name: str, url: str, options: dict[str, Any], redirect_uri: str
    ) -> None:
        super().__init__(path, name, url)
        self.options = options
        self.redirect_uri = redirect_uri

    async def get_client_info(self) -> Any:
        client_id = self.options.get("clientId")
        if not isinstance(client_id, str) or not client_id:
            return await super().get_client_info()
        from mcp.shared.auth import OAuthClientInformationFull

        secret = self.options.get("clientSecret")
        return OAuthClientInformationFull.model_validate(
            {
                "client_id": client_id,
                **({"client_secret": secret} if isinstance(secret, str) and secret else {}),
                "redirect_uris": [self.redirect_uri],
                "token_endpoint_auth_method": _auth_method(self.options),
            }
        )


def session_auth(name: str, config: McpServerConfig, home: Path | None = None) -> Any:
    """The ``httpx`` auth a session's connection to ``name`` uses, or ``None``.

    Only for a remote server with stored tokens or an ``oauth`` entry: the tokens are sent and
    refreshed; a needed login fails the connection with :data:`LOGIN_NEEDED`.
    """
    url = server_url(config)
    if not url:
        return None
    home = home or _home()
    if not has_tokens(tokens_path(home), name, url) and not oauth_options(config):
        return _login_hint(name)

    async def refuse(_url: str) -> None:
        raise LoginNeeded(LOGIN_NEEDED.format(name=name))

    async def never() -> AuthorizationCodeResult:
        raise LoginNeeded(LOGIN_NEEDED.format(name=name))

    redirect = oauth_options(config).get("redirectUri") or f"http://127.0.0.1{CALLBACK_PATH}"
    return make_provider(name, config, home, str(redirect), refuse, never)


def _login_hint(name: str) -> Any:
    """An ``httpx.Auth`` that sends requests as they are and turns a 401 into
    :data:`LOGIN_NEEDED` (no discovery, no registration: nothing happens without a login)."""
    import httpx2  # the HTTP client the mcp SDK is built on

    class LoginHint(httpx2.Auth):
        async def async_auth_flow(self, request: Any) -> Any:
            response = yield request
            if response.status_code == 401:
                raise LoginNeeded(LOGIN_NEEDED.format(name=name))

    return LoginHint()
