"""Where OAuth tokens and registered clients of remote MCP servers are kept (mode 0600).

One JSON file, ``$QWEN_HOME/mcp-oauth-tokens.json``, keyed by server name; each entry holds the
tokens, when the access token expires (so a later process refreshes it before use), the client
registered for the server, and the server's URL, so a server whose URL changed starts a fresh login instead of sending another
server's token. The file is written atomically and always with mode 0600 (a file that was
readable by others is narrowed on the next write). Qwen Code keeps its tokens in an encrypted
``mcp-oauth-tokens-v2.json``; the two are not shared.

:class:`FileTokenStorage` is the ``mcp`` SDK's ``TokenStorage`` for one server.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

__all__ = ["TOKENS_FILENAME", "FileTokenStorage", "forget_server", "has_tokens", "tokens_path"]

TOKENS_FILENAME = "mcp-oauth-tokens.json"


def tokens_path(qwen_home_dir: Path) -> Path:
    """``<qwen home>/mcp-oauth-tokens.json``."""
    return qwen_home_dir / TOKENS_FILENAME


def _load(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _save(path: Path, data: dict[str, Any]) -> None:
    from qwen_tools.fs.atomic import write_bytes_atomic

    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, indent=2, ensure_ascii=False)
    write_bytes_atomic(path, text.encode("utf-8"), mode=0o600)
    os.chmod(path, 0o600)


def _entry(path: Path, name: str, url: str) -> dict[str, Any]:
    entry = _load(path).get(name)
    return entry if isinstance(entry, dict) and entry.get("url") == url else {}


def has_tokens(path: Path, name: str, url: str) -> bool:
    """Whether tokens for server ``name`` at ``url`` are stored."""
    return isinstance(_entry(path, name, url).get("tokens"), dict)


def forget_server(path: Path, name: str) -> bool:
    """Drop what is stored for server ``name``; whether there was anything."""
    data = _load(path)
    if name not in data:
        return False
    del data[name]
    _save(path, data)
    return True


class FileTokenStorage:
    """The SDK's ``TokenStorage`` for server ``name`` at ``url``, backed by the 0600 file."""

    def __init__(self, path: Path, name: str, url: str) -> None:
        self.path = path
        self.name = name
        self.url = url

    def _update(self, key: str, value: dict[str, Any]) -> None:
        data = _load(self.path)
        entry = data.get(self.name)
        if not isinstance(entry, dict) or entry.get("url") != self.url:
            entry = {"url": self.url}
        entry[key] = value
        data[self.name] = entry
        _save(self.path, data)

    async def get_tokens(self) -> OAuthToken | None:
        from mcp.shared.auth import OAuthToken

        raw = _entry(self.path, self.name, self.url).get("tokens")
        return OAuthToken.model_validate(raw) if isinstance(raw, dict) else None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        import time

        self._update("tokens", tokens.model_dump(mode="json", exclude_none=True))
        if tokens.expires_in is not None:
            self._update("expires_at", {"epoch": time.time() + int(tokens.expires_in)})

    def expires_at(self) -> float | None:
        """When the stored access token expires (epoch seconds), if the server said."""
        raw = _entry(self.path, self.name, self.url).get("expires_at")
        epoch = raw.get("epoch") if isinstance(raw, dict) else None
        return float(epoch) if isinstance(epoch, int | float) else None

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        from mcp.shared.auth import OAuthClientInformationFull

        raw = _entry(self.path, self.name, self.url).get("client_info")
        return OAuthClientInformationFull.model_validate(raw) if isinstance(raw, dict) else None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self._update("client_info", client_info.model_dump(mode="json", exclude_none=True))
