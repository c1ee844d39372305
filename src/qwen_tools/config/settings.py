"""Reading Qwen Code's ``settings.json`` files into one merged, untyped view.

Four files take part, merged in this order (a later file wins): system defaults, user,
workspace, system. Each is JSON with ``//`` and ``/* */`` comments (no trailing commas), may
start with a BOM and may be missing. Legacy v1 flat keys and the seeds' spellings are moved to
their v2 place (:mod:`.legacy_keys`), and ``$VAR`` / ``${VAR}`` references in string values are
expanded from the environment. Nothing is ever written back: the files are shared with Qwen Code.
A caller that does not trust the workspace's content (the session pool) loads without the
workspace file (``workspace_settings=False``).

The typed view of the tool-related keys lives in :mod:`qwen_tools.config.tool_settings`.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from qwen_tools.config.folder_trust import trust_verdict
from qwen_tools.config.legacy_keys import accept_seed_names, migrate_v1

__all__ = ["LoadedSettings", "SettingScope", "SettingsError", "SettingsFile", "load_settings"]


class SettingScope(StrEnum):
    """Where a settings file sits in the precedence order."""

    SYSTEM_DEFAULTS = "system-defaults"
    USER = "user"
    WORKSPACE = "workspace"
    SYSTEM = "system"


class SettingsError(Exception):
    """A settings file cannot be read, is not valid JSON, or holds a value of the wrong type.

    ``path`` is the offending file (when known), ``key`` the dotted settings key (when the
    problem is one value) and ``detail`` what is wrong. ``str(err)`` is a one-line message
    naming all of them.
    """

    def __init__(
        self, detail: str, *, path: Path | None = None, key: str | None = None, problem: str | None = None
    ) -> None:  # fmt: skip
        self.detail, self.path, self.key = detail, path, key
        self.problem = problem or ("Invalid value" if key is not None else "Invalid settings")
        where = (f' for "{key}"' if key is not None else "") + (f" in {path}" if path else "")
        super().__init__(f"{self.problem}{where}: {detail}")


@dataclass
class SettingsFile:
    """One settings file as loaded: ``data`` is after comment stripping, migration and env expansion."""

    scope: SettingScope
    path: Path
    data: dict[str, Any]
    exists: bool


_MISSING: Any = object()


def _split_key(key: str | Sequence[str]) -> tuple[str, ...]:
    return tuple(key.split(".")) if isinstance(key, str) else tuple(key)


def _lookup(data: Any, parts: tuple[str, ...]) -> Any:
    for part in parts:
        if not isinstance(data, dict) or part not in data:
            return _MISSING
        data = data[part]
    return data


@dataclass
class LoadedSettings:
    """The files that took part in the merge (in merge order) and the merged result."""

    files: list[SettingsFile]
    merged: dict[str, Any]
    trusted: bool = True
    workspace_settings: bool = True
    """Whether the workspace may configure the session: ``False`` when loaded with
    ``workspace_settings=False`` (a pool session on an untrusted template). Then its
    ``.qwen/settings.json`` was not read, and neither are its ``.mcp.json``, ``.lsp.json`` and
    ``.qwen/agents`` by the code that would read them."""

    def get(self, dotted_key: str | Sequence[str], default: Any = None) -> Any:
        """The merged value at ``dotted_key`` (``"tools.core"`` or ``("mcpServers", "a.b")``)."""
        value = _lookup(self.merged, _split_key(dotted_key))
        return default if value is _MISSING else value

    def origin(self, dotted_key: str | Sequence[str]) -> Path | None:
        """The highest-precedence file that sets ``dotted_key`` (for error messages), if any."""
        parts = _split_key(dotted_key)
        for settings_file in reversed(self.files):
            if _lookup(settings_file.data, parts) is not _MISSING:
                return settings_file.path
        return None


# -- JSON with comments -------------------------------------------------------------------


_JSONC_TOKEN = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?(?:\*/|\Z)', re.DOTALL)


def _strip_json_comments(text: str) -> str:
    """Blank out ``//`` and ``/* */`` comments outside strings (as ``strip-json-comments`` does).

    Comments become whitespace, so line and column numbers in parse errors stay right.
    """

    def blank(match: re.Match[str]) -> str:
        token = match.group(0)
        return token if token.startswith('"') else re.sub(r"\S", " ", token)

    return _JSONC_TOKEN.sub(blank, text)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _parse_jsonc(text: str, path: Path, what: str = "settings file") -> dict[str, Any]:
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        data = json.loads(_strip_json_comments(text), parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        detail = f"line {exc.lineno} column {exc.colno}: {exc.msg}"
        raise SettingsError(detail, path=path, problem="Malformed JSON") from None
    except ValueError as exc:
        raise SettingsError(str(exc), path=path, problem="Malformed JSON") from None
    if not isinstance(data, dict):
        kind = "an array" if isinstance(data, list) else json.dumps(data)
        raise SettingsError(
            f"expected a JSON object at the top level, got {kind}",
            path=path,
            problem=f"Invalid {what}",
        )
    return data


def _read_text(path: Path, what: str) -> str | None:
    """The file's text, or None when it does not exist."""
    try:
        raw = path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise SettingsError(
            f"cannot read it: {reason}", path=path, problem=f"Unreadable {what}"
        ) from None
    return raw.decode("utf-8", errors="replace")


# -- environment variables -----------------------------------------------------------------

_ENV_REF = re.compile(r"\$(?:(\w+)|\{([^}]+)\})", re.ASCII)
_NEVER_EXPANDED = frozenset(
    {"SESSION_ID", "QWEN_CODE_SESSION_ID", "QWEN_SERVER_TOKEN", "QWEN_DAEMON_TOKEN"}
    | {"QWEN_CODE_EXTERNAL_TOOL_GUARD_TOKEN", "QWEN_CODE_PRIVATE_ACP_CAPABILITY"}
)


def _expand_env(value: Any, env: Mapping[str, str]) -> Any:
    """Expand ``$VAR`` / ``${VAR}`` in every string value; unset variables stay literal."""
    if isinstance(value, str):

        def substitute(match: re.Match[str]) -> str:
            name = match.group(1) or match.group(2)
            if name.upper() in _NEVER_EXPANDED:
                return match.group(0)
            found = env.get(name)
            return found if isinstance(found, str) else match.group(0)

        return _ENV_REF.sub(substitute, value) if "$" in value else value
    if isinstance(value, list):
        return [_expand_env(item, env) for item in value]
    if isinstance(value, dict):
        return {key: _expand_env(item, env) for key, item in value.items()}
    return value


# -- merging -------------------------------------------------------------------------------

_SHALLOW, _CONCAT, _UNION = "shallow_merge", "concat", "union"
# Arrays are replaced and objects deep-merged unless listed here (the tool-related subset of
# Qwen Code's schema, plus hooks and permissions).
_STRATEGIES: dict[tuple[str, ...], str] = {
    ("mcpServers",): _SHALLOW, ("env",): _SHALLOW,
    ("context", "includeDirectories"): _CONCAT, ("mcp", "allowed"): _CONCAT,
    ("mcp", "excluded"): _CONCAT, ("hooks", "*"): _CONCAT,
    **{("permissions", k): _UNION for k in ("allow", "ask", "deny")},
    **{("permissions", "autoMode", "hints", k): _UNION for k in ("allow", "softDeny", "hardDeny", "deny")},
    ("permissions", "autoMode", "environment"): _UNION,
    **{("tools", k): _UNION for k in ("exclude", "disabled", "visible")},
    ("advanced", "excludedEnvVars"): _UNION,
}  # fmt: skip


def _strategy(path: tuple[str, ...]) -> str | None:
    found = _STRATEGIES.get(path)
    if found is None and len(path) == 2:
        found = _STRATEGIES.get((path[0], "*"))
    return found


def _clone(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _clone(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_clone(item) for item in value]
    return value


def _union(first: list[Any], second: list[Any]) -> list[Any]:
    out: list[Any] = []
    seen: set[tuple[type, Any]] = set()
    for item in (*first, *second):
        try:
            marker = (type(item), item)
            if marker in seen:
                continue
            seen.add(marker)
        except TypeError:  # unhashable (object/array): never a duplicate, as with a JS Set
            pass
        out.append(_clone(item))
    return out


def _merge_into(target: dict[str, Any], source: dict[str, Any], path: tuple[str, ...]) -> None:
    for key, src in source.items():
        if key in ("__proto__", "constructor", "prototype"):
            continue
        sub = (*path, key)
        strategy = _strategy(sub)
        current = target.get(key, _MISSING)
        if strategy == _SHALLOW and isinstance(current, dict) and isinstance(src, dict):
            target[key] = {**current, **_clone(src)}
        elif strategy in (_CONCAT, _UNION) and isinstance(current, list):
            items = src if isinstance(src, list) else [src]
            target[key] = current + _clone(items) if strategy == _CONCAT else _union(current, items)
        elif isinstance(current, dict) and isinstance(src, dict):
            _merge_into(current, src, sub)
        elif isinstance(src, dict):
            target[key] = {}
            _merge_into(target[key], src, sub)
        else:
            target[key] = _clone(src)


def _merge(sources: Sequence[dict[str, Any]]) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for source in sources:
        _merge_into(merged, source, ())
    return merged


# -- folder trust --------------------------------------------------------------------------


def _folder_trusted(workspace_dir: Path, qwen_home_dir: Path, env: Mapping[str, str]) -> bool:
    """Read ``trustedFolders.json`` and decide (:func:`~.folder_trust.trust_verdict`)."""
    trust_path = Path(
        env.get("QWEN_CODE_TRUSTED_FOLDERS_PATH") or qwen_home_dir / "trustedFolders.json"
    )
    text = _read_text(trust_path, "trusted folders file")
    rules = {} if text is None else _parse_jsonc(text, trust_path, "trusted folders file")
    return trust_verdict(workspace_dir, rules)


# -- loading -------------------------------------------------------------------------------


def _system_settings_path(env: Mapping[str, str]) -> Path:
    override = env.get("QWEN_CODE_SYSTEM_SETTINGS_PATH")
    if override:
        return Path(override)
    if sys.platform == "darwin":
        return Path("/Library/Application Support/QwenCode/settings.json")
    if sys.platform == "win32":
        return Path("C:\\ProgramData\\qwen-code\\settings.json")
    return Path("/etc/qwen-code/settings.json")


def _load_file(scope: SettingScope, path: Path, env: Mapping[str, str]) -> SettingsFile:
    text = _read_text(path, "settings file")
    if text is None:
        return SettingsFile(scope, path, {}, exists=False)
    data = _expand_env(accept_seed_names(migrate_v1(_parse_jsonc(text, path), path)), env)
    return SettingsFile(scope, path, data, exists=True)


def _same_path(a: Path, b: Path) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)


def load_settings(
    workspace_dir: Path,
    *,
    qwen_home_dir: Path,
    env: Mapping[str, str] | None = None,
    workspace_settings: bool = True,
) -> LoadedSettings:
    """Read and merge the system-defaults, user, workspace and system settings files.

    ``env`` (default: ``os.environ``) supplies ``$VAR`` expansion and the path overrides
    ``QWEN_CODE_SYSTEM_SETTINGS_PATH``, ``QWEN_CODE_SYSTEM_DEFAULTS_PATH`` and
    ``QWEN_CODE_TRUSTED_FOLDERS_PATH``. The workspace file is skipped when the project's
    ``.qwen`` is the Qwen home (project dir == home dir) and dropped when folder trust is
    enabled and the folder is not trusted. ``workspace_settings=False`` never reads it (the
    workspace's content is not trusted to configure anything, whatever folder trust says: the
    session pool's templates) and marks the result so (:attr:`LoadedSettings.workspace_settings`).
    Raises :class:`SettingsError` on a bad file.
    """
    env = os.environ if env is None else env
    system_path = _system_settings_path(env)
    defaults_override = env.get("QWEN_CODE_SYSTEM_DEFAULTS_PATH")
    defaults_path = Path(defaults_override or system_path.parent / "system-defaults.json")

    system_defaults = _load_file(SettingScope.SYSTEM_DEFAULTS, defaults_path, env)
    user = _load_file(SettingScope.USER, qwen_home_dir / "settings.json", env)
    system = _load_file(SettingScope.SYSTEM, system_path, env)

    # Trust is decided without the workspace file (which must not vouch for itself).
    pre_merge = _merge([system_defaults.data, user.data, system.data])
    enabled = _lookup(pre_merge, ("security", "folderTrust", "enabled"))
    trust_on = enabled is not _MISSING and enabled not in (None, False, 0, "")  # JS truthiness
    trusted = _folder_trusted(workspace_dir, qwen_home_dir, env) if trust_on else True

    files = [system_defaults, user]
    home = env.get("HOME")
    is_home = _same_path(workspace_dir / ".qwen", qwen_home_dir) or (
        bool(home) and _same_path(workspace_dir, Path(str(home)))
    )
    if trusted and not is_home and workspace_settings:
        files.append(
            _load_file(SettingScope.WORKSPACE, workspace_dir / ".qwen" / "settings.json", env)
        )
    files.append(system)
    merged = _merge([f.data for f in files])
    return LoadedSettings(files, merged, trusted=trusted, workspace_settings=workspace_settings)
