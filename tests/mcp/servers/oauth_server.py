"""An MCP server that is also its own OAuth 2.1 authorization server (the SDK's auth support).

Usage: ``python oauth_server.py --port N [--uses K] [--expires-in S] [--log FILE]``. Dynamic client registration,
authorization code + PKCE (the SDK checks the verifier), refresh tokens. ``/authorize`` approves
at once: it redirects to the client's ``redirect_uri`` with a code, as a user clicking "allow"
would. An access token is good for ``K`` authenticated requests (default: unlimited), after which
it is rejected (401); ``--expires-in 0`` announces tokens as expired at once, so a client that
tracks expiry refreshes before its next request. Each grant is
appended to ``--log`` as one line (``authorization_code`` or ``refresh_token``).
"""

from __future__ import annotations

import argparse
import secrets
import time
from pathlib import Path
from typing import Any

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken


class Provider:
    def __init__(self, uses: int, log: Path | None, expires_in: int) -> None:
        self.expires_in = expires_in
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}
        self.left: dict[str, int] = {}
        self.uses = uses
        self.log = log

    def _note(self, grant: str) -> None:
        if self.log is not None:
            with self.log.open("a") as f:
                f.write(grant + "\n")

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        self.clients[client_info.client_id] = client_info

    async def authorize(
        self, client: OAuthClientInformationFull, params: AuthorizationParams
    ) -> str:
        code = secrets.token_hex(16)
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or [],
            expires_at=time.time() + 600,
            client_id=client.client_id or "",
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(self, client: Any, authorization_code: str) -> Any:
        return self.codes.get(authorization_code)

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access, refresh = secrets.token_hex(16), secrets.token_hex(16)
        self.access[access] = AccessToken(
            token=access, client_id=client_id, scopes=scopes, resource=resource
        )
        self.left[access] = self.uses
        self.refresh[refresh] = RefreshToken(
            token=refresh, client_id=client_id, scopes=scopes, resource=resource
        )
        return OAuthToken(
            access_token=access,
            token_type="Bearer",
            expires_in=self.expires_in,
            refresh_token=refresh,
            scope=" ".join(scopes) or None,
        )

    async def exchange_authorization_code(self, client: Any, authorization_code: Any) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        self._note("authorization_code")
        return self._issue(client.client_id, authorization_code.scopes, authorization_code.resource)

    async def load_refresh_token(self, client: Any, refresh_token: str) -> Any:
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(
        self, client: Any, refresh_token: Any, scopes: list[str]
    ) -> OAuthToken:
        self.refresh.pop(refresh_token.token, None)
        self._note("refresh_token")
        return self._issue(client.client_id, scopes or refresh_token.scopes, refresh_token.resource)

    async def load_access_token(self, token: str) -> Any:
        found = self.access.get(token)
        if found is None:
            return None
        if self.uses > 0:
            if self.left.get(token, 0) <= 0:
                return None
            self.left[token] -= 1
        return found

    async def revoke_token(self, token: Any) -> None:
        self.access.pop(getattr(token, "token", ""), None)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--uses", type=int, default=0)
    parser.add_argument("--log", type=Path)
    parser.add_argument("--expires-in", type=int, default=3600)
    args = parser.parse_args()
    base = f"http://127.0.0.1:{args.port}"
    server = MCPServer(
        "secured",
        auth_server_provider=Provider(args.uses, args.log, args.expires_in),
        auth=AuthSettings(
            issuer_url=base,
            resource_server_url=f"{base}/mcp",
            client_registration_options=ClientRegistrationOptions(enabled=True),
            required_scopes=[],
        ),
    )

    @server.tool(structured_output=False)
    def whoami() -> str:
        """Say hello to an authorized client."""
        return "authorized"

    server.run("streamable-http", host="127.0.0.1", port=args.port)


if __name__ == "__main__":
    main()
