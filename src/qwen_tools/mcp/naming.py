"""Model-facing names of MCP tools.

Our names are ``<server>__<tool>``: every character outside ``[A-Za-z0-9_-]`` becomes ``_`` and
the name is cut to 64 characters. Only when that sanitising (or the cut) makes two different
tools share a name do they get a suffix ``_<hash>`` — a hash of the original ``server/tool``
string, so the name is the same on every run and does not depend on discovery order. When
exactly one of the colliding tools needed no sanitising, it keeps the bare name.

Qwen Code 0.24.4 names the same tool ``mcp__<server>__<tool>``, passed through
``normalizeToolNameForProvider`` (a hash suffix as soon as any character had to change).
:func:`reference_tool_name` computes that name, and :func:`legacy_tool_name` the older one
0.24.4 keeps for permission rules; both are kept as aliases of the tool.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

MAX_TOOL_NAME_LENGTH = 64
"""Longest name we give an MCP tool (the OpenAI limit)."""

SEPARATOR = "__"

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_LEGACY_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")
_PROVIDER_SAFE = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
_REFERENCE_MAX = 63
_BASE36 = "0123456789abcdefghijklmnopqrstuvwxyz"


def stable_hash(text: str) -> str:
    """FNV-1a (32 bits) over the UTF-16 code units of ``text``, base 36, 7 characters.

    The same function as Qwen Code's ``stableToolNameHash``.
    """
    value = 2166136261
    encoded = text.encode("utf-16-le", "surrogatepass")
    for index in range(0, len(encoded), 2):
        unit = encoded[index] | (encoded[index + 1] << 8)
        value = ((value ^ unit) * 16777619) & 0xFFFFFFFF
    digits = ""
    while value:
        value, rest = divmod(value, 36)
        digits = _BASE36[rest] + digits
    return (digits or "0").rjust(7, "0")


def sanitize(text: str) -> str:
    """``text`` with every character outside ``[A-Za-z0-9_-]`` replaced by ``_``."""
    return _UNSAFE.sub("_", text)


def _base_name(server: str, tool: str) -> tuple[str, bool]:
    """The sanitised, cut name and whether it equals the raw ``server__tool``."""
    raw = f"{server}{SEPARATOR}{tool}"
    name = sanitize(raw)[:MAX_TOOL_NAME_LENGTH]
    return name, name == raw


def _suffixed(name: str, server: str, tool: str) -> str:
    suffix = "_" + stable_hash(f"{server}/{tool}")
    return name[: MAX_TOOL_NAME_LENGTH - len(suffix)] + suffix


def assign_tool_names(pairs: Iterable[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """Names for ``(server, tool)`` pairs, unique across all of them.

    Deterministic: the result depends only on the set of pairs, never on their order.
    """
    bases: dict[tuple[str, str], tuple[str, bool]] = {}
    for pair in pairs:
        bases.setdefault(pair, _base_name(*pair))
    groups: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for pair, (name, _clean) in bases.items():
        groups[name].append(pair)
    names: dict[tuple[str, str], str] = {}
    for name, members in groups.items():
        if len(members) == 1:
            names[members[0]] = name
            continue
        clean = [pair for pair in members if bases[pair][1]]
        keeper = clean[0] if len(clean) == 1 else None
        for pair in members:
            names[pair] = name if pair == keeper else _suffixed(name, *pair)
    return names


def tool_name(server: str, tool: str) -> str:
    """The name of one tool when nothing else collides with it."""
    return _base_name(server, tool)[0]


def reference_tool_name(server: str, tool: str) -> str:
    """Qwen Code 0.24.4's name: ``normalizeToolNameForProvider("mcp__<server>__<tool>")``."""
    name = f"mcp__{server}__{tool}"
    if len(name) <= _REFERENCE_MAX and _PROVIDER_SAFE.fullmatch(name):
        return name
    normalized = sanitize(name)
    if not normalized[:1].isascii() or not normalized[:1].isalpha():
        normalized = "tool_" + normalized
    suffix = "_" + stable_hash(name)
    return normalized[: _REFERENCE_MAX - len(suffix)] + suffix


def legacy_tool_name(server: str, tool: str) -> str:
    """0.24.4's ``generateLegacyMcpToolName`` (kept there for old permission rules)."""
    name = _LEGACY_UNSAFE.sub("_", f"mcp__{server}__{tool}")
    if len(name) > _REFERENCE_MAX:
        name = name[:28] + "___" + name[-32:]
    return name


def tool_aliases(server: str, tool: str, name: str) -> tuple[str, ...]:
    """Other names that should reach the tool called ``name`` (0.24.4's names)."""
    found: list[str] = []
    for alias in (reference_tool_name(server, tool), legacy_tool_name(server, tool)):
        if alias != name and alias not in found:
            found.append(alias)
    return tuple(found)


_KEPT_WHEN_CUT = 28
"""Characters of a name every cut above keeps (the legacy form keeps the first 28)."""
_MAYBE_CUT = 55


def may_name_a_tool_of(name: str, server: str) -> bool:
    """Whether ``name`` may be one of our names, or a 0.24.4 alias, of a tool of ``server``.

    Decided from the name alone, before the server is connected; a long name that may have
    been cut matches on its first characters, so the answer may be a false "yes", never a
    false "no".
    """
    reference = f"mcp__{server}{SEPARATOR}"
    prefixes = (
        sanitize(server) + SEPARATOR,
        sanitize(reference),
        "tool_" + sanitize(reference),
        _LEGACY_UNSAFE.sub("_", reference),
    )
    for prefix in prefixes:
        if name.startswith(prefix):
            return True
        if len(name) >= _MAYBE_CUT:
            kept = min(len(prefix), _KEPT_WHEN_CUT)
            if name[:kept] == prefix[:kept]:
                return True
    return False


def may_be_mcp_tool_name(name: str) -> bool:
    """Whether ``name`` has the shape of an MCP tool's name (a ``__`` in it, or cut long)."""
    return SEPARATOR in name or len(name) >= _MAYBE_CUT
