"""A serve client's MCP roots, narrowed to the server's workspace.

When a client declares the ``roots`` capability, its session's workspace is the client's roots
that lie inside the server's workspace (the ``--cwd`` and included directories): each ``file://``
root is resolved (realpath, so a symlink in the workspace that points elsewhere is outside) and
kept only if it is an existing directory inside one of the server's directories; every other root
is ignored with a logged reason. When none is left the client's calls are refused
(:class:`RootsRefused`), rather than widened to the whole workspace. A client without the
capability gets the server's workspace. Only the directories change: the settings (and so any
``discoveryCommand``) stay the server's, never read from a root.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from qwen_tools.fs.confined import path_within

__all__ = ["RootsRefused", "accept_roots", "client_roots"]

logger = logging.getLogger("qwen_tools.serve")


class RootsRefused(Exception):
    """The client's roots leave it no directory of the server's workspace."""


def _root_dir(uri: str, allowed: Sequence[Path]) -> tuple[Path | None, str]:
    """The resolved directory of the root ``uri``, or ``None`` and why it is ignored."""
    parts = urlsplit(uri)
    if parts.scheme != "file" or parts.netloc not in ("", "localhost"):
        return None, "not a local file:// URI"
    raw = unquote(parts.path)
    if "\0" in raw or not os.path.isabs(raw):
        return None, "not an absolute path"
    real = os.path.realpath(raw)
    if not os.path.isdir(real):
        return None, "not an existing directory"
    if not any(path_within(real, os.fspath(d)) for d in allowed):
        return None, "outside the server's workspace"
    return Path(real), ""


def accept_roots(uris: Sequence[str], allowed: Sequence[Path]) -> list[Path]:
    """The directories of ``uris`` inside ``allowed``, in order, once each.

    Raises :class:`RootsRefused` naming every root when none is accepted.
    """
    accepted: list[Path] = []
    refused: list[str] = []
    for uri in uris:
        directory, reason = _root_dir(uri, allowed)
        if directory is None:
            logger.warning("client root %s ignored: %s", uri, reason)
            refused.append(f"{uri} ({reason})")
        elif directory not in accepted:
            accepted.append(directory)
    if not accepted:
        named = "; ".join(refused) if refused else "the client listed no roots"
        raise RootsRefused(
            "This server refuses the tool calls of this client: none of its roots lies in the "
            f"server's workspace ({', '.join(str(d) for d in allowed)}). Refused roots: {named}."
        )
    return accepted


async def client_roots(
    session: Any, allowed: Sequence[Path] | Callable[[], Sequence[Path]]
) -> list[Path] | None:
    """The accepted roots of the client on ``session`` (an SDK server session).

    ``allowed``: the server's workspace directories (or what gives them, asked only when the
    client declares roots).

    ``None`` when the client did not declare the ``roots`` capability (it gets the server's
    workspace). Raises :class:`RootsRefused` when none is accepted or the roots cannot be asked.
    """
    import mcp_types as types

    capability = types.ClientCapabilities(roots=types.RootsCapability())
    if not session.check_client_capability(capability):
        return None
    try:
        result = await session.list_roots()
    except Exception as exc:
        logger.warning("the client's roots could not be listed: %s", exc)
        raise RootsRefused(
            "This server refuses the tool calls of this client: it declares roots, but "
            f"listing them failed ({exc})."
        ) from None
    directories = allowed() if callable(allowed) else allowed
    return accept_roots([str(root.uri) for root in result.roots], directories)
