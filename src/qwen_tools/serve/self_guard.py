"""A server never connects to itself, directly or through a chain of servers.

``qwen-tools serve`` reads the same settings as the client that starts it, so the configuration
a client uses to reach us (``"qwen-tools": {"command": "qwen-tools", "args": ["serve", ...]}``) is
in the server's own ``mcpServers``; connecting to it would start another server, which would
start another, without end. Before connecting, :func:`guard_servers` marks these entries as not
to be started (their ``error``, which the MCP manager reports as the reason the server is
disconnected, and logs once):

* an entry whose command line runs ``qwen-tools serve`` (or ``python -m qwen_tools serve``),
  directly or through a wrapper such as ``uvx``, ``env`` or ``sh -c``;
* an HTTP/SSE entry whose URL is this server's own address (``--transport http``);
* every entry, when this server was itself started through the ``mcpServers`` of a server with
  the same workspace and settings (a chain the first rule did not see, e.g. through a script),
  or when servers are already nested :data:`MAX_DEPTH` deep.

The chain is carried by the environment variable ``QWEN_TOOLS_SERVE_CHAIN`` (one identity per
server, a hash of its workspace and ``mcpServers``), which :func:`guard_servers` extends for the
processes this server starts.
"""

from __future__ import annotations

import dataclasses
import hashlib
import ipaddress
import json
import os
from urllib.parse import urlsplit

from qwen_tools.config.config import Config
from qwen_tools.config.tool_settings import McpServerConfig

__all__ = ["CHAIN_VAR", "MAX_DEPTH", "guard_servers", "starts_qwen_tools_serve"]

CHAIN_VAR = "QWEN_TOOLS_SERVE_CHAIN"
MAX_DEPTH = 3
"""Servers nested this deep (each started by the one before) connect to no upstream server."""

STARTS_SERVE = (
    "not started: this entry runs 'qwen-tools serve', and a qwen-tools server never starts "
    "qwen-tools servers (with the same settings it would connect to itself, without end)"
)
OWN_ADDRESS = "not started: this is the address of this qwen-tools server itself"
SAME_SERVER = (
    "not started: this qwen-tools server was started through the mcpServers of a qwen-tools "
    "server with the same workspace and settings; connecting would start it again (a loop)"
)
TOO_DEEP = f"not started: qwen-tools servers are nested {MAX_DEPTH} deep (a loop is likely)"


def _words(entry: McpServerConfig) -> list[str]:
    words: list[str] = []
    for part in (entry.command or "", *entry.args):
        words.extend(word.strip("'\"") for word in part.split())
    return words


def starts_qwen_tools_serve(entry: McpServerConfig) -> bool:
    """Whether ``entry``'s command line starts ``qwen-tools serve``."""
    words = _words(entry)
    for index, word in enumerate(words):
        # qwen-tools (any path, any wrapper before it), or python -m qwen_tools
        if os.path.basename(word) in ("qwen-tools", "qwen_tools") and "serve" in words[index:]:
            return True
    return False


def _is_own_address(entry: McpServerConfig, host: str, port: int) -> bool:
    url = entry.http_url or entry.url
    if not url:
        return False
    try:
        parts = urlsplit(url)
        target_port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return False
    if target_port != port:
        return False
    target = (parts.hostname or "").strip("[]")
    if target in ("localhost", host.strip("[]")) or host in ("0.0.0.0", "::"):
        return True
    try:
        return ipaddress.ip_address(target).is_loopback and _loopback(host)
    except ValueError:
        return False


def _loopback(host: str) -> bool:
    try:
        return host == "localhost" or ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def identity(config: Config) -> str:
    """A short hash of what makes two servers the same: workspace and ``mcpServers``."""
    servers = {
        name: [entry.command, list(entry.args), entry.cwd, entry.url, entry.http_url]
        for name, entry in sorted(config.settings.mcp_servers.items())
    }
    payload = json.dumps(
        [[str(d) for d in config.workspace.directories], servers], sort_keys=True, default=str
    )
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def guard_servers(
    config: Config,
    *,
    http_address: tuple[str, int] | None = None,
    environ: dict[str, str] | None = None,
) -> dict[str, str]:
    """Mark the ``mcpServers`` entries this server must not connect to; extend the chain.

    ``http_address`` is ``(host, port)`` when serving over HTTP. ``environ`` (default
    ``os.environ``) holds the chain and receives the extended one. Returns the reason of each
    entry marked, by name.
    """
    env: dict[str, str] | os._Environ[str] = os.environ if environ is None else environ
    chain = env.get(CHAIN_VAR, "").split()
    me = identity(config)
    everything = SAME_SERVER if me in chain else TOO_DEEP if len(chain) >= MAX_DEPTH else None
    reasons: dict[str, str] = {}
    servers = dict(config.settings.mcp_servers)
    for name, entry in servers.items():
        reason = everything
        if reason is None and starts_qwen_tools_serve(entry):
            reason = STARTS_SERVE
        if reason is None and http_address is not None and _is_own_address(entry, *http_address):
            reason = OWN_ADDRESS
        if reason is not None and entry.error is None:
            servers[name] = dataclasses.replace(entry, error=reason)
            reasons[name] = reason
    if reasons:
        config.settings = dataclasses.replace(config.settings, mcp_servers=servers)
    env[CHAIN_VAR] = " ".join([*chain, me])
    return reasons
