"""The environment a pool session's commands start from.

A worker's own environment holds what the host needs and the model must not read: the model
server's API key (``OPENAI_API_KEY``), cloud credentials, Ray's tokens. A session's commands
get only the plain variables a command needs to behave (the search path, locale, time zone,
terminal, user and home), unless the pool is given an environment of its own, which is then
used exactly.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

__all__ = ["PLAIN_VARIABLES", "command_env"]

PLAIN_VARIABLES = frozenset(
    {"PATH", "LANG", "LANGUAGE", "TZ", "TERM", "USER", "LOGNAME", "HOME", "SHELL", "TMPDIR"}
)
"""What a session's commands inherit from the worker by default (with every ``LC_*``)."""


def command_env(given: Mapping[str, str] | None = None) -> dict[str, str]:
    """``given`` as it is, or the worker's plain variables (:data:`PLAIN_VARIABLES`, ``LC_*``)."""
    if given is not None:
        return dict(given)
    return {
        name: value
        for name, value in os.environ.items()
        if name in PLAIN_VARIABLES or name.startswith("LC_")
    }
