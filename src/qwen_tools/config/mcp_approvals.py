"""Approvals of gated MCP servers (``.mcp.json`` and workspace settings), as Qwen Code 0.24.4.

A gated server runs only once the user approved it (``qwen-tools mcp approve NAME``). Decisions
live in ``$QWEN_HOME/mcpApprovals.json`` (or ``$QWEN_CODE_MCP_APPROVALS_PATH``), the same file and
format as Qwen Code's, so both tools share them::

    {"/abs/project": {"server": {"hash": "<sha256>", "status": "approved"}}}

Each decision is bound to a hash of the server's entry (:func:`config_hash`: every field except
``scope``, ``extensionName`` and ``description``, keys sorted): editing the entry makes the server
``pending`` again. The file is written atomically with mode 0600.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from qwen_tools.config.settings import _parse_jsonc

__all__ = [
    "ApprovalState",
    "McpApprovals",
    "approvals_path",
    "config_hash",
]

ApprovalState = Literal["approved", "rejected", "pending"]

APPROVALS_FILENAME = "mcpApprovals.json"
_NON_BEHAVIORAL = frozenset({"scope", "extensionName", "description"})
_log = logging.getLogger("qwen_tools.mcp")


def approvals_path(qwen_home_dir: Path, env: Mapping[str, str] | None = None) -> Path:
    """``$QWEN_CODE_MCP_APPROVALS_PATH``, else ``<qwen home>/mcpApprovals.json``."""
    env = os.environ if env is None else env
    override = env.get("QWEN_CODE_MCP_APPROVALS_PATH")
    return Path(override) if override else qwen_home_dir / APPROVALS_FILENAME


def _js_number(value: Any) -> Any:
    """Integral floats as integers, as ``JSON.stringify`` prints them (``1.0`` → ``1``)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return int(value)
    if isinstance(value, dict):
        return {key: _js_number(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_js_number(item) for item in value]
    return value


def config_hash(entry: Mapping[str, Any]) -> str:
    """Qwen Code's ``hashMcpServerConfig``: sha256 of the behavioural fields, keys sorted."""
    import hashlib  # not at import time: a built-in call never loads it

    behavioral = {k: _js_number(v) for k, v in entry.items() if k not in _NON_BEHAVIORAL}
    stable = json.dumps(behavioral, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(stable.encode("utf-8", "surrogatepass")).hexdigest()


def project_key(project_root: Path | str) -> str:
    """The key of a project in the file: its absolute path."""
    return os.path.abspath(os.fspath(project_root))


class McpApprovals:
    """The approvals file, read once; :meth:`set_state` writes it back."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.data: dict[str, Any] = {}
        self.errors: list[str] = []
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return
        except (OSError, UnicodeDecodeError) as exc:
            self._error(str(exc))
            return
        try:
            parsed = _parse_jsonc(text, path, "MCP approvals file")
        except Exception as exc:  # SettingsError: not JSON, or not an object
            self._error(getattr(exc, "detail", str(exc)))
            return
        self.data = parsed

    def _error(self, message: str) -> None:
        self.errors.append(message)
        _log.warning("Warning: MCP approvals file error: %s", message)

    def state(self, project_root: Path | str, name: str, entry_hash: str) -> ApprovalState:
        """``approved`` or ``rejected`` when decided for this very entry, else ``pending``."""
        project = self.data.get(project_key(project_root))
        record = project.get(name) if isinstance(project, dict) else None
        if not isinstance(record, dict) or record.get("hash") != entry_hash:
            return "pending"
        status = record.get("status")
        return status if status in ("approved", "rejected") else "pending"

    def set_state(
        self,
        project_root: Path | str,
        name: str,
        entry_hash: str,
        status: Literal["approved", "rejected"],
    ) -> None:
        """Record a decision bound to ``entry_hash`` and save the file (0600); raises OSError."""
        from qwen_tools.fs.atomic import write_bytes_atomic

        key = project_key(project_root)
        project = self.data.get(key)
        if not isinstance(project, dict):
            project = self.data[key] = {}
        project[name] = {"hash": entry_hash, "status": status}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(self.data, indent=2, ensure_ascii=False)
        write_bytes_atomic(self.path, text.encode("utf-8"), mode=0o600)
        os.chmod(self.path, 0o600)
