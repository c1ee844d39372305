"""The HTTP client of the MCP transports (streamable HTTP and SSE), with one TLS context.

The SDK's ``create_mcp_http_client`` makes a client whose default ``verify=True`` builds a new
TLS context, loading the CA bundle each time: about 25 ms of CPU per server, which made
``mcp list`` with 400 servers spend 10 of its 12 seconds there. Ours builds the same default
context (httpx's own, honouring ``SSL_CERT_FILE``/``SSL_CERT_DIR``) once per process and
shares it; the timeouts are the SDK's.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import ssl

    import httpx2

__all__ = ["mcp_http_client"]


@functools.cache
def _tls_context() -> ssl.SSLContext:
    import httpx2

    return httpx2.create_ssl_context()


def mcp_http_client(
    headers: dict[str, str] | None = None,
    timeout: httpx2.Timeout | None = None,
    auth: httpx2.Auth | None = None,
) -> httpx2.AsyncClient:
    """An ``AsyncClient`` as the SDK's factory makes it, sharing the process's TLS context."""
    import httpx2
    from mcp.shared._httpx_utils import MCP_DEFAULT_SSE_READ_TIMEOUT, MCP_DEFAULT_TIMEOUT

    return httpx2.AsyncClient(
        headers=headers,
        timeout=timeout or httpx2.Timeout(MCP_DEFAULT_TIMEOUT, read=MCP_DEFAULT_SSE_READ_TIMEOUT),
        auth=auth,
        verify=_tls_context(),
    )
