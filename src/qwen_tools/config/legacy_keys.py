"""Old spellings of settings keys, moved to their current place when a file is read.

* Qwen Code's v1 flat keys (``coreTools``, ``toolDiscoveryCommand``, ``mcpServerCommand`` …) go
  to their v2 place (``tools.core``, ``tools.discoveryCommand``, ``mcp.serverCommand`` …) unless
  that place is taken; only the keys that matter to the tools system (and folder trust) are
  moved. A file declaring ``$version`` 2 or later is not migrated, as in Qwen Code, and its
  legacy keys are ignored with Qwen Code's warning on the ``qwen_tools.settings`` logger.
* The seeds' spellings inside the v2 sections (``tools.toolDiscoveryCommand``,
  ``tools.toolCallCommand``, ``mcp.mcpServerCommand``) count as the v2 key, which wins when both
  are set. Qwen Code ignores these; we accept them because the seeds use them.

Nothing is written back: the files are shared with Qwen Code.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

__all__ = ["accept_seed_names", "migrate_v1"]

_log = logging.getLogger("qwen_tools.settings")

# Only the legacy keys that matter to the tools system (and to folder trust) are moved.
_V1_TO_V2: dict[str, str] = {
    "coreTools": "tools.core", "excludeTools": "tools.exclude", "allowedTools": "tools.allowed",
    "toolDiscoveryCommand": "tools.discoveryCommand", "toolCallCommand": "tools.callCommand",
    "mcpServerCommand": "mcp.serverCommand", "allowMCPServers": "mcp.allowed",
    "excludeMCPServers": "mcp.excluded", "approvalMode": "tools.approvalMode",
    "useRipgrep": "tools.useRipgrep", "fileFiltering": "context.fileFiltering",
    "includeDirectories": "context.includeDirectories", "autoAccept": "tools.autoAccept",
    "sandbox": "tools.sandbox", "shouldUseNodePtyShell": "tools.shell.enableInteractiveShell",
    "shellPager": "tools.shell.pager", "shellShowColor": "tools.shell.showColor",
    "folderTrust": "security.folderTrust.enabled",
    "folderTrustFeature": "security.folderTrust.featureEnabled",
    "excludedProjectEnvVars": "advanced.excludedEnvVars",
}  # fmt: skip

# Top-level v2 sections: an object under one of these names is already in v2 shape.
_V2_CONTAINERS = frozenset(
    {"ui", "tools", "mcp", "advanced", "model", "general", "context", "security", "ide"}
    | {"privacy", "telemetry", "extensions"}
)


# The seeds' spellings of three keys inside their v2 sections (``tools.toolDiscoveryCommand``):
# accepted as the v2 key, which wins when both are set. Qwen Code knows only the flat v1 names.
_SEED_NAMES: dict[tuple[str, str], str] = {
    ("tools", "toolDiscoveryCommand"): "discoveryCommand",
    ("tools", "toolCallCommand"): "callCommand",
    ("mcp", "mcpServerCommand"): "serverCommand",
}


def accept_seed_names(data: dict[str, Any]) -> dict[str, Any]:
    """Move the seeds' spellings to their v2 key when that key is still free (in memory only)."""
    for (section, old), new in _SEED_NAMES.items():
        node = data.get(section)
        if isinstance(node, dict) and old in node:
            value = node.pop(old)
            node.setdefault(new, value)
    return data


def migrate_v1(data: dict[str, Any], path: Path | None = None) -> dict[str, Any]:
    """Move legacy flat keys to their v2 place when that place is still free (in memory only).

    A file that declares ``$version`` 2 or later is not migrated, as in Qwen Code; its legacy
    keys are ignored with Qwen Code's warning (logged on ``qwen_tools.settings``).
    """
    version = data.get("$version")
    if isinstance(version, int | float) and not isinstance(version, bool) and version >= 2:
        for old, new in _V1_TO_V2.items():
            if old in data and not (old in _V2_CONTAINERS and isinstance(data[old], dict)):
                _log.warning(
                    "Warning: Legacy setting '%s' will be ignored in %s. Please use '%s' instead.",
                    old,
                    path,
                    new,
                )
        return data
    for old, new in _V1_TO_V2.items():
        if old not in data or (old in _V2_CONTAINERS and isinstance(data[old], dict)):
            continue
        value = data.pop(old)
        *parents, leaf = new.split(".")
        node: Any = data
        for part in parents:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                data[old] = value  # the v2 parent is not an object: leave the key alone
                break
        else:
            node.setdefault(leaf, value)
    return data
