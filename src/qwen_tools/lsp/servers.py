"""Language server configurations, read as Qwen Code 0.24.4's ``LspConfigLoader`` reads them.

Two sources, merged by server name (a later one replaces an earlier one): ``lspServers`` from
settings (an object, or the path of a JSON file relative to the workspace; the reference takes
it from extensions), then the workspace's ``.lsp.json``. Both are keyed by language::

    {"python": {"command": "pylsp", "args": [], "extensionToLanguage": {".py": "python"}}}

A server is named after its ``command`` (else its key), so results say ``[pylsp]``. Its keys:
``command``, ``args``, ``env``, ``initializationOptions``, ``settings``, ``extensionToLanguage``
(``.py`` or ``py``, case-insensitive), ``workspaceFolder`` (inside the workspace, else the
workspace root), ``startupTimeout`` / ``shutdownTimeout`` (ms), ``restartOnCrash``,
``maxRestarts``, ``trustRequired`` and ``transport`` (only ``stdio`` is supported here: a
``tcp``/``socket`` server is kept with an error that its calls report). An entry without a
command, or not an object, is skipped with a warning, as in the reference. In an untrusted folder
the servers that require trust (all of ``.lsp.json``'s) are left out.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "DEFAULT_MAX_RESTARTS",
    "DEFAULT_SHUTDOWN_TIMEOUT_MS",
    "DEFAULT_STARTUP_TIMEOUT_MS",
    "LspServerConfig",
    "load_server_configs",
    "parse_server_configs",
]

logger = logging.getLogger("qwen_tools.lsp")

DEFAULT_STARTUP_TIMEOUT_MS = 10_000
DEFAULT_SHUTDOWN_TIMEOUT_MS = 5_000
DEFAULT_MAX_RESTARTS = 3
LSP_CONFIG_FILE = ".lsp.json"


@dataclass(frozen=True)
class LspServerConfig:
    """One configured language server."""

    name: str
    languages: tuple[str, ...]
    command: str | None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    initialization_options: Mapping[str, Any] | None = None
    settings: Mapping[str, Any] | None = None
    extension_to_language: Mapping[str, str] = field(default_factory=dict)
    """Lower-case extension without its dot → language id."""
    workspace_folder: str = ""
    startup_timeout_ms: float = DEFAULT_STARTUP_TIMEOUT_MS
    shutdown_timeout_ms: float = DEFAULT_SHUTDOWN_TIMEOUT_MS
    restart_on_crash: bool = True
    max_restarts: int = DEFAULT_MAX_RESTARTS
    trust_required: bool = True
    transport: str = "stdio"
    origin: str = ""

    def language_for(self, path: str) -> str | None:
        """The language id this server gives ``path``, or ``None`` when it does not handle it."""
        suffix = Path(path).suffix.lower().lstrip(".")
        if not suffix:
            return None
        if suffix in self.extension_to_language:
            return self.extension_to_language[suffix]
        if not self.extension_to_language and suffix in _DEFAULT_EXTENSIONS.get(
            self.languages[0], ()
        ):
            return self.languages[0]
        return None

    @property
    def extensions(self) -> tuple[str, ...]:
        """The extensions (without dot) this server handles."""
        if self.extension_to_language:
            return tuple(self.extension_to_language)
        return _DEFAULT_EXTENSIONS.get(self.languages[0], ())


# The reference's LANGUAGE_ID_TO_EXTENSIONS: used when a server names no extensionToLanguage.
_DEFAULT_EXTENSIONS: dict[str, tuple[str, ...]] = {
    "typescript": ("ts", "tsx"),
    "typescriptreact": ("tsx",),
    "javascript": ("js", "jsx"),
    "javascriptreact": ("jsx",),
    "python": ("py",),
    "csharp": ("cs",),
    "ruby": ("rb",),
}


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()


def _env(value: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        return {}
    out: dict[str, str] = {}
    for key, item in value.items():
        if isinstance(item, bool):
            out[key] = "true" if item else "false"
        elif isinstance(item, str | int | float):
            out[key] = str(item)
    return out


def _extension_map(value: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        return {}
    mapping: dict[str, str] = {}
    for key, lang in value.items():
        ext = key[1:] if key.startswith(".") else key
        if isinstance(lang, str) and ext:
            mapping[ext.lower()] = lang
    return mapping


def _timeout(value: Any, default: float) -> float:
    ok = isinstance(value, int | float) and not isinstance(value, bool) and 0 < value < 1e12
    return float(value) if ok else default


def _workspace_folder(value: Any, root: str) -> str:
    if not isinstance(value, str) or not value.strip():
        return root
    resolved = os.path.normpath(os.path.join(root, value))
    if resolved == root or resolved.startswith(root.rstrip(os.sep) + os.sep):
        return resolved
    logger.warning("LSP workspaceFolder must be within %s; using workspace root instead.", root)
    return root


def _build(
    key: str, spec: Mapping[str, Any], root: str, origin: str, force_trust: bool
) -> LspServerConfig | None:
    command = spec.get("command") if isinstance(spec.get("command"), str) else None
    name = command or key
    transport = str(spec.get("transport") or "stdio").lower()
    transport = transport if transport in ("tcp", "socket") else "stdio"
    if transport == "stdio" and not command:
        logger.warning("LSP config error in %s: %s missing command", origin, name)
        return None
    raw_restarts: Any = spec.get("maxRestarts")
    ok = isinstance(raw_restarts, int | float) and not isinstance(raw_restarts, bool)
    max_restarts = int(raw_restarts) if ok and raw_restarts >= 0 else DEFAULT_MAX_RESTARTS
    trust = spec.get("trustRequired")
    return LspServerConfig(
        name=name,
        languages=(key,),
        command=command,
        args=_strings(spec.get("args")),
        env=_env(spec.get("env")),
        initialization_options=(
            spec["initializationOptions"]
            if isinstance(spec.get("initializationOptions"), dict)
            else None
        ),
        settings=spec["settings"] if isinstance(spec.get("settings"), dict) else None,
        extension_to_language=_extension_map(spec.get("extensionToLanguage")),
        workspace_folder=_workspace_folder(spec.get("workspaceFolder"), root),
        startup_timeout_ms=_timeout(spec.get("startupTimeout"), DEFAULT_STARTUP_TIMEOUT_MS),
        shutdown_timeout_ms=_timeout(spec.get("shutdownTimeout"), DEFAULT_SHUTDOWN_TIMEOUT_MS),
        restart_on_crash=spec.get("restartOnCrash") is not False,
        max_restarts=max_restarts,
        trust_required=True if force_trust else trust is not False,
        transport=transport,
        origin=origin,
    )


def parse_server_configs(
    source: Any, root: str, origin: str, *, force_trust: bool = False
) -> list[LspServerConfig]:
    """The servers of one source object (keys are languages); bad entries are skipped."""
    if not isinstance(source, dict):
        if source is not None:
            logger.warning("LSP config in %s must be an object", origin)
        return []
    configs = []
    for key, spec in source.items():
        if isinstance(spec, dict):
            built = _build(key, spec, root, origin, force_trust)
            if built is not None:
                configs.append(built)
    return configs


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        logger.warning("Failed to load LSP config %s: %s", path, exc)
        return None


def load_server_configs(
    workspace_root: str | os.PathLike[str],
    settings_servers: Any = None,
    *,
    trusted: bool = True,
    project_file: bool = True,
) -> list[LspServerConfig]:
    """Every configured server: ``lspServers`` from settings, then ``.lsp.json`` (which wins;
    not read with ``project_file=False``)."""
    root = os.path.realpath(os.fspath(workspace_root))
    if isinstance(settings_servers, str):
        path = Path(root, settings_servers)
        settings_servers = _read_json(path)
        origin = str(path)
    else:
        origin = "settings (lspServers)"
    merged: dict[str, LspServerConfig] = {}
    for config in parse_server_configs(settings_servers, root, origin):
        merged[config.name] = config
    lsp_json = Path(root, LSP_CONFIG_FILE)
    found = _read_json(lsp_json) if project_file else None
    for config in parse_server_configs(found, root, str(lsp_json), force_trust=True):
        merged[config.name] = config
    return [c for c in merged.values() if trusted or not c.trust_required]
