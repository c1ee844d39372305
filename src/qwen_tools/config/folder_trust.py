"""Folder trust: whether ``trustedFolders.json``'s rules trust a workspace directory.

Rules map a path to ``TRUST_FOLDER`` (that folder and below), ``TRUST_PARENT`` (its parent and
below) or ``DO_NOT_TRUST``. The deepest rule that contains the workspace wins; at equal depth,
distrust wins; no matching rule means not trusted. Paths are compared both as written
(normalised) and with symlinks resolved.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["trust_verdict"]


def _path_variants(raw: str) -> set[str]:
    return {os.path.normpath(os.path.abspath(raw)), os.path.realpath(raw)}


def _is_within(child: str, parent: str) -> bool:
    rel = os.path.relpath(child, parent)
    return rel == "." or (
        rel != ".." and not rel.startswith(".." + os.sep) and not os.path.isabs(rel)
    )


def _depth(path: str) -> int:
    return len([part for part in Path(path).parts[1:] if part])


def trust_verdict(workspace_dir: Path, rules: Mapping[str, Any]) -> bool:
    """Whether ``rules`` (the parsed ``trustedFolders.json``) trust ``workspace_dir``."""
    location = _path_variants(str(workspace_dir))
    best_depth, verdict = -1, False  # no matching rule: not trusted
    for rule_path, level in rules.items():
        if level not in ("TRUST_FOLDER", "TRUST_PARENT", "DO_NOT_TRUST"):
            continue
        base = os.path.dirname(rule_path) if level == "TRUST_PARENT" else rule_path
        depth = max(
            (_depth(v) for v in _path_variants(base) for loc in location if _is_within(loc, v)),
            default=-1,
        )
        trusted = level != "DO_NOT_TRUST"
        if depth > best_depth or (depth == best_depth >= 0 and not trusted):
            best_depth, verdict = depth, trusted
    return verdict
