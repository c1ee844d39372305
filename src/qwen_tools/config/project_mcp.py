"""A project's ``.mcp.json`` servers, assembled with those of the settings files as Qwen Code 0.24.4.

``<project>/.mcp.json`` holds ``{"mcpServers": {...}}`` in Claude Code's format: an entry with
``"type": "http"`` and a ``url`` is a Streamable HTTP server (our ``httpUrl``), one with a ``url``
otherwise is SSE; ``type`` is dropped. Comments are allowed; ``$VAR`` is *not* expanded (as in
0.24.4). A file that is not JSON, or has no ``mcpServers`` object, or an entry that is not an
object, is reported as a ``Warning: ...`` line and skipped.

Precedence (:func:`with_project_servers`): user settings < ``.mcp.json`` < workspace settings
< system settings < ``mcp.serverCommand``. Servers from ``.mcp.json`` (scope ``project``) are
*gated*: they run only once approved (:mod:`.mcp_approvals`); :attr:`ToolSettings.mcp_gated` maps
each to its entry's hash. Unlike 0.24.4, servers of the workspace's ``.qwen/settings.json`` are not
gated (that file is already subject to folder trust, and its servers ran before approvals existed).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from qwen_tools.config.mcp_approvals import config_hash
from qwen_tools.config.settings import (
    LoadedSettings,
    SettingScope,
    SettingsFile,
    _strip_json_comments,
)
from qwen_tools.config.tool_settings import McpServerConfig, ToolSettings, _mcp_server, _Reader

__all__ = [
    "PROJECT_MCP_FILENAME",
    "ProjectMcpServers",
    "load_project_mcp_servers",
    "normalize_claude_server",
    "with_project_servers",
]

PROJECT_MCP_FILENAME = ".mcp.json"
_log = logging.getLogger("qwen_tools.settings")


@dataclass
class ProjectMcpServers:
    """What ``.mcp.json`` holds: raw (normalized) entries, the file, and what was wrong."""

    servers: dict[str, dict[str, Any]] = field(default_factory=dict)
    path: Path | None = None
    errors: list[str] = field(default_factory=list)


def normalize_claude_server(raw: dict[str, Any]) -> dict[str, Any]:
    """Claude Code's entry shape to ours (0.24.4's ``normalizeClaudeMcpServer``)."""
    if raw.get("command") or raw.get("httpUrl") or raw.get("tcp"):
        if raw.get("type") is None or raw.get("type") == "sdk":
            return raw
        return {k: v for k, v in raw.items() if k != "type"}
    url = raw.get("url")
    if isinstance(url, str):
        rest = {k: v for k, v in raw.items() if k != "url"}
        if rest.get("type") != "sdk":
            rest.pop("type", None)
        return {**rest, ("httpUrl" if raw.get("type") == "http" else "url"): url}
    return raw


def load_project_mcp_servers(project_root: Path) -> ProjectMcpServers:
    """Read ``<project_root>/.mcp.json`` (nothing, without errors, when it does not exist)."""
    path = project_root / PROJECT_MCP_FILENAME
    try:
        text = path.read_bytes().decode("utf-8", errors="replace")
    except OSError:
        return ProjectMcpServers()
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        parsed = json.loads(_strip_json_comments(text))
    except ValueError as exc:
        return ProjectMcpServers(path=path, errors=[f"Failed to parse {path}: {exc}"])
    servers = parsed.get("mcpServers") if isinstance(parsed, dict) else None
    if not isinstance(servers, dict):
        return ProjectMcpServers(path=path, errors=[f'{path} has no "mcpServers" object'])
    found = ProjectMcpServers(path=path)
    for name, value in servers.items():
        if not isinstance(value, dict):
            found.errors.append(f'{path}: server "{name}" is not an object \u2014 skipped')
            continue
        found.servers[name] = normalize_claude_server(value)
    return found


def _scope_of(loaded: LoadedSettings, name: str) -> SettingScope | None:
    """The scope of the file whose ``mcpServers.<name>`` won the merge."""
    for settings_file in reversed(loaded.files):
        servers = settings_file.data.get("mcpServers")
        if isinstance(servers, dict) and name in servers:
            return settings_file.scope
    return None


def _project_entry(path: Path, name: str, raw: dict[str, Any]) -> McpServerConfig:
    """Parse one ``.mcp.json`` entry as a settings entry (errors name the file)."""
    data = {"mcpServers": {name: raw}}
    loaded = LoadedSettings([SettingsFile(SettingScope.WORKSPACE, path, data, True)], data)
    return _mcp_server(_Reader(loaded), name, raw)


def with_project_servers(
    settings: ToolSettings, loaded: LoadedSettings, project_root: Path
) -> ToolSettings:
    """``settings`` with the ``.mcp.json`` servers merged in and the gated servers marked."""
    project = load_project_mcp_servers(project_root)
    for error in project.errors:
        _log.warning("Warning: %s", error)
    if not project.servers:
        return settings
    below: dict[str, McpServerConfig] = {}
    above: dict[str, McpServerConfig] = {}
    gated: dict[str, str] = {}
    for name, server in settings.mcp_servers.items():
        scope = _scope_of(loaded, name)
        if name == "mcp" and settings.mcp_server_command is not None:
            scope = None
            above[name] = server
        elif scope in (SettingScope.WORKSPACE, SettingScope.SYSTEM):
            above[name] = server
        else:
            below[name] = server
    servers = dict(below)
    for name, raw in project.servers.items():
        assert project.path is not None
        servers[name] = _project_entry(project.path, name, raw)
        if name not in above:
            gated[name] = config_hash(raw)
    servers.update(above)
    return replace(settings, mcp_servers=servers, mcp_gated=gated)
