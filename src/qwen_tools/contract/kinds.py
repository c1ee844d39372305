"""Tool kinds: what a tool does to the world, and the sets the scheduler derives from them."""

from __future__ import annotations

from enum import StrEnum


class Kind(StrEnum):
    """The category of a tool; it drives confirmation and concurrency decisions."""

    READ = "read"
    EDIT = "edit"
    DELETE = "delete"
    MOVE = "move"
    SEARCH = "search"
    EXECUTE = "execute"
    THINK = "think"
    FETCH = "fetch"
    AGENT = "agent"
    OTHER = "other"


MUTATOR_KINDS: frozenset[Kind] = frozenset({Kind.EDIT, Kind.DELETE, Kind.MOVE, Kind.EXECUTE})
"""Kinds whose tools change state outside the conversation."""

CONCURRENCY_SAFE_KINDS: frozenset[Kind] = frozenset({Kind.READ, Kind.SEARCH, Kind.FETCH})
"""Kinds whose calls may run in parallel with each other within one batch."""

READ_ONLY_KINDS: frozenset[Kind] = frozenset({Kind.READ, Kind.SEARCH, Kind.FETCH, Kind.THINK})
"""Kinds that never modify files or run commands (used for MCP annotations and plan mode)."""
