"""What becomes of the MCP SDK's client-side tracebacks.

The SDK logs each line of garbage a server prints on stdout (and each unparsable HTTP/SSE
message) with ``logger.exception``: with nobody configuring logging, every such line put a
full traceback on stderr, on every command. :func:`quiet_sdk_tracebacks` puts a filter on the
SDK's client loggers: a record carrying a traceback is passed on, traceback included, to our
logger ``qwen_tools.mcp.sdk`` at DEBUG level (enable that logger, or set
``QWEN_TOOLS_DEBUG=1``, to see them) and dropped from the SDK's logger. The connection
prints one line per server instead (``MCP server 'x': invalid JSON-RPC message on stdout
(…)``). Records without a traceback are left alone.

With ``QWEN_TOOLS_DEBUG`` set to anything but ``""``/``0``, the SDK's records pass unchanged.
"""

from __future__ import annotations

import logging
import os

DEBUG_ENV = "QWEN_TOOLS_DEBUG"
SDK_LOGGERS = (
    "mcp.client.stdio",
    "mcp.client.sse",
    "mcp.client.streamable_http",
    "mcp.client.client",
    "client",  # mcp.client.session logs under this name
)

debug_logger = logging.getLogger("qwen_tools.mcp.sdk")


def debug_enabled() -> bool:
    """Whether ``QWEN_TOOLS_DEBUG`` asks for everything, tracebacks included."""
    return os.environ.get(DEBUG_ENV, "").strip() not in ("", "0")


class _TracebacksToDebug(logging.Filter):
    """Moves records with a traceback to :data:`debug_logger` (DEBUG) unless debugging."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not record.exc_info or debug_enabled():
            return True
        debug_logger.debug("%s: %s", record.name, record.getMessage(), exc_info=record.exc_info)
        return False


_FILTER = _TracebacksToDebug()


def quiet_sdk_tracebacks() -> None:
    """Install the filter on the SDK's client loggers (idempotent)."""
    for name in SDK_LOGGERS:
        sdk_logger = logging.getLogger(name)
        if _FILTER not in sdk_logger.filters:
            sdk_logger.addFilter(_FILTER)
