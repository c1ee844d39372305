"""``SharedDiscovery``: ``tools.discoveryCommand`` run once for many sessions of one server.

What the discovery command declares depends only on the settings and the project directory
(it runs there), so the sessions a :class:`~qwen_tools.session.template.SessionTemplate` opens
(``serve``'s clients; over ``--stateless``, one per request) share one run instead of starting
a process per session. Each session still gets tools of its own, bound to its own config, and
a discovered tool's call still runs ``tools.callCommand`` for every call.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from qwen_tools.discovery.command_discovery import (
    Declarations,
    DiscoveryReport,
    discover_declarations,
)

if TYPE_CHECKING:
    from qwen_tools.config.config import Config

__all__ = ["SharedDiscovery"]


class SharedDiscovery:
    """Runs the discovery command on first need, then hands the same declarations to all.

    Meant for sessions on one settings object and one project directory (a template's); a
    run that failed is not retried (its problems are reported once, as a session would).
    """

    def __init__(self) -> None:
        self._found: Declarations | None = None
        self._lock = asyncio.Lock()

    async def report(self, config: Config) -> DiscoveryReport:
        """The discovered tools bound to ``config``; the command runs for the first caller only."""
        if self._found is None:
            async with self._lock:
                if self._found is None:
                    self._found = await discover_declarations(config)
        return self._found.report(config)
