"""Writing an "Always allow …" rule into ``permissions.allow`` of a settings file.

Qwen Code 0.24.4 persists such a rule into the workspace's ``.qwen/settings.json`` ("in this
project") or the user's ``~/.qwen/settings.json`` ("for this user"). The file is edited with
:mod:`.settings_edit`, so its comments and other keys stay as written; a rule already listed is
not added again. The file must stay inside its scope's directory — the workspace, or the home
directory that holds the user's ``.qwen`` — after symlinks are resolved (checked before reading,
and again on every directory the atomic write opens). A file outside it, an unreadable file or
one that is not a valid settings object gives one :class:`PermissionPersistError` whose message
says so, and nothing is written.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from qwen_tools.config.settings import SettingsError
from qwen_tools.config.settings_edit import SettingsEditError, read_section, set_entry
from qwen_tools.fs.atomic import write_bytes_atomic

__all__ = ["PermissionPersistError", "Scope", "persist_allow_rules", "scope_settings_file"]

Scope = Literal["project", "user"]


class PermissionPersistError(Exception):
    """The rule could not be saved; the message says why (nothing was written)."""


def scope_settings_file(scope: Scope, target_dir: Path, qwen_home: Path) -> tuple[Path, Path]:
    """The settings file of ``scope`` and the directory it must stay in."""
    if scope == "user":
        return qwen_home / "settings.json", qwen_home.parent
    return target_dir / ".qwen" / "settings.json", target_dir


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def persist_allow_rules(path: Path, root: Path, rules: Iterable[str]) -> bool:
    """Add ``rules`` to ``permissions.allow`` of ``path``; whether the file changed.

    Raises :class:`PermissionPersistError` (nothing written) when ``path`` resolves outside
    ``root``, cannot be read or written, or is not a valid settings file.
    """
    wanted = list(dict.fromkeys(rules))
    if not wanted:
        return False

    def failure(reason: str) -> PermissionPersistError:
        return PermissionPersistError(
            f"Could not save the permission rule to {path}: {reason}. Nothing was written."
        )

    real_root = os.path.realpath(root)
    real = os.path.realpath(path)
    if not _inside(real, real_root):
        raise failure(f"it resolves to {real}, outside {real_root}")
    try:
        text = Path(real).read_text(encoding="utf-8") if os.path.lexists(real) else ""
    except (OSError, UnicodeDecodeError) as exc:
        raise failure(f"cannot read it ({getattr(exc, 'strerror', None) or exc})") from None
    try:
        permissions = read_section(text, "permissions", path=path)
    except SettingsError as exc:
        raise failure(f"it is not a valid settings file ({exc})") from None
    if permissions is not None and not isinstance(permissions, dict):
        raise failure('"permissions" is not an object')
    allow = (permissions or {}).get("allow")
    if allow is not None and not isinstance(allow, list):
        raise failure('"permissions.allow" is not a list')
    current = list(allow or [])
    added = [rule for rule in wanted if rule not in current]
    if not added:
        return False
    try:
        new_text = set_entry(text, "permissions", "allow", current + added, path=path)
        os.makedirs(os.path.dirname(real), exist_ok=True)
        write_bytes_atomic(real, new_text.encode("utf-8"), roots=[real_root])
    except (SettingsError, SettingsEditError) as exc:
        raise failure(str(exc)) from None
    except OSError as exc:
        raise failure(f"cannot write it ({exc.strerror or exc})") from None
    return True
