"""Subagent definitions: Markdown files with YAML front matter, parsed as Qwen Code 0.24.4 does.

A file is ``---\\n<yaml>\\n---\\n<system prompt>`` (after stripping a BOM and turning CRLF/CR
into LF). ``name`` and ``description`` are required; the body, trimmed, is the system prompt.
Optional fields and how bad values are treated:

* ``tools`` / ``disallowedTools``: a list (non-strings dropped) or a comma-separated string;
* ``model`` (or the legacy ``modelConfig.model``); ``inherit`` means the session's model;
* ``runConfig`` (``max_turns``, ``max_time_minutes``) and ``maxTurns`` (a positive integer,
  winning over ``runConfig.max_turns``); invalid ``maxTurns`` is dropped;
* ``color``, ``permissionMode``, ``background``, ``mcpServers``, ``hooks``: dropped when invalid;
* ``approvalMode``: an invalid value rejects the file; ``permissionMode`` (Claude-style) stands
  in for it when it is absent;
* ``executor`` (an external agent) and ``executionBackend`` (``container``): a malformed block
  rejects the file, and a file that claims one but fails to load refuses its name outright, so
  a lower-precedence definition of the same name is not silently run instead.

Errors are raised as :class:`SubagentDefinitionError` with the reference's messages; the
catalogue (:mod:`~qwen_tools.tools.task.catalog`) logs them and skips the file.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from qwen_tools.subagents.definition_rules import validation_errors
from qwen_tools.subagents.definition_yaml import js_number, js_string, parse_front_matter

__all__ = [
    "APPROVAL_MODES",
    "COLORS",
    "Level",
    "SubagentDefinition",
    "SubagentDefinitionError",
    "parse_subagent_definition",
]

_log = logging.getLogger("qwen_tools")

Level: TypeAlias = Literal["project", "user", "builtin"]

COLORS = ("red", "blue", "green", "yellow", "purple", "orange", "pink", "cyan")
APPROVAL_MODES = ("plan", "default", "auto-edit", "auto", "yolo", "bubble")
_PERMISSION_TO_APPROVAL = {
    "default": "default",
    "plan": "plan",
    "acceptEdits": "auto-edit",
    "auto": "auto-edit",
    "bypassPermissions": "yolo",
    "dontAsk": "default",
}
_FRONT_MATTER = re.compile(r"\A---\n(.*?)\n---\n(.*)\Z", re.DOTALL)


class SubagentDefinitionError(Exception):
    """A subagent file that cannot be used; ``refused_name`` blocks lower-precedence fallbacks."""

    def __init__(self, message: str, *, refused_name: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.refused_name = refused_name


@dataclass(frozen=True)
class SubagentDefinition:
    """One subagent: who it is, its system prompt, and how it may run."""

    name: str
    description: str
    system_prompt: str
    level: Level
    file_path: str
    tools: tuple[str, ...] | None = None
    disallowed_tools: tuple[str, ...] | None = None
    model: str | None = None
    run_config: Any = None
    max_turns: int | None = None
    color: str | None = None
    approval_mode: str | None = None
    permission_mode: str | None = None
    background: bool | None = None
    mcp_servers: dict[str, Any] | None = None
    hooks: dict[str, Any] | None = None
    executor: dict[str, Any] | None = None
    execution_backend: str | None = None

    @property
    def effective_max_turns(self) -> int | None:
        """``maxTurns``, else an integral ``runConfig.max_turns``, else ``None``."""
        if self.max_turns is not None:
            return self.max_turns
        turns = self.run_config.get("max_turns") if isinstance(self.run_config, dict) else None
        if isinstance(turns, int | float) and not isinstance(turns, bool) and turns > 0:
            return int(turns) if float(turns).is_integer() else None
        return None

    @property
    def model_override(self) -> str | None:
        """The model to run with, or ``None`` to inherit the session's."""
        model = (self.model or "").strip()
        return None if model in ("", "inherit") else model


def _tool_list(raw: Any) -> tuple[str, ...] | None:
    if isinstance(raw, list):
        return tuple(item for item in raw if isinstance(item, str))
    if isinstance(raw, str):
        return tuple(part.strip() for part in raw.split(",") if part.strip())
    return None


def _max_turns(raw: Any) -> int | None:
    """The reference's ``parseMaxTurns``: a positive integer, from a number or a string."""
    if isinstance(raw, bool):
        return None
    candidate = js_number(raw.strip()) if isinstance(raw, str) and raw else raw
    if isinstance(candidate, float) and candidate.is_integer():
        candidate = int(candidate)
    return candidate if isinstance(candidate, int) and candidate > 0 else None


def _js_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return "string" if isinstance(value, str) else "object"


def _approval_mode(front: Mapping[str, Any]) -> str | None:
    raw = front.get("approvalMode")
    valid = ", ".join(APPROVAL_MODES)
    if raw is not None and not isinstance(raw, str):
        raise ValueError(
            f'Invalid "approvalMode" value: expected a string, got {_js_type(raw)}. '
            f"Valid values: {valid}"
        )
    if raw and raw not in APPROVAL_MODES:
        raise ValueError(f'Invalid "approvalMode" value "{raw}". Valid values: {valid}')
    return raw or None


def _executor(raw: Any) -> dict[str, Any] | None:
    """The reference's ``parseAgentExecutor``: ``{kind: acp|codex, command, args?}`` or ``None``."""
    if not isinstance(raw, dict) or raw.get("kind") not in ("acp", "codex"):
        return None
    command = raw.get("command")
    if not isinstance(command, str) or not command.strip():
        return None
    spec: dict[str, Any] = {"kind": raw["kind"], "command": command.strip()}
    if "args" in raw:
        args = raw["args"]
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            return None
        spec["args"] = list(args)
    return spec


def _optional_fields(front: Mapping[str, Any], file_path: str) -> dict[str, Any]:
    """The fields that are dropped (with a warning) when their value is invalid."""
    found: dict[str, Any] = {}
    color = front.get("color")
    if isinstance(color, str) and (color in COLORS or color == "auto"):
        found["color"] = color
    elif isinstance(color, str):
        _log.warning(
            "Agent file %s has invalid color '%s'. Valid options: %s, auto. Dropping field.",
            file_path,
            color,
            ", ".join(COLORS),
        )
    background = front.get("background")
    if background in (True, "true"):
        found["background"] = True
    elif background in (False, "false"):
        found["background"] = False
    elif "background" in front:
        _log.warning("Agent file %s has invalid background value '%s'.", file_path, background)
    permission = front.get("permissionMode")
    if isinstance(permission, str) and permission in _PERMISSION_TO_APPROVAL:
        found["permission_mode"] = permission
    elif "permissionMode" in front:
        _log.warning("Agent file %s has invalid permissionMode '%s'.", file_path, permission)
    if "maxTurns" in front:
        found["max_turns"] = _max_turns(front["maxTurns"])
        if found["max_turns"] is None:
            _log.warning("Agent file %s has invalid maxTurns '%s'.", file_path, front["maxTurns"])
    servers = front.get("mcpServers")
    if isinstance(servers, dict):
        found["mcp_servers"] = {k: v for k, v in servers.items() if isinstance(v, dict)} or None
    hooks = front.get("hooks")
    if isinstance(hooks, dict):
        found["hooks"] = {k: v for k, v in hooks.items() if isinstance(v, list)} or None
    for key, raw, attr in (("mcpServers", servers, "mcp_servers"), ("hooks", hooks, "hooks")):
        if raw is not None and found.get(attr) is None:
            _log.warning("Agent file %s has invalid %s. Dropping field.", file_path, key)
    return found


def _build(front: dict[str, Any], body: str, file_path: str, level: Level) -> SubagentDefinition:
    name_raw, description_raw = front.get("name"), front.get("description")
    if name_raw is None or name_raw == "":
        raise ValueError('Missing "name" in frontmatter')
    if description_raw is None or description_raw == "":
        raise ValueError('Missing "description" in frontmatter')
    model_raw, legacy = front.get("model"), front.get("modelConfig")
    model = (
        js_string(model_raw)
        if model_raw is not None and model_raw != ""
        else legacy.get("model")
        if isinstance(legacy, dict) and isinstance(legacy.get("model"), str)
        else None
    )
    approval = _approval_mode(front)
    optional = _optional_fields(front, file_path)
    if approval is None and optional.get("permission_mode"):
        approval = _PERMISSION_TO_APPROVAL[optional["permission_mode"]]
    executor = None
    if "executor" in front:
        executor = _executor(front["executor"])
        if executor is None:
            raise SubagentDefinitionError(
                f"Agent file {file_path} has an invalid executor block (expected "
                "{ kind: 'acp' | 'codex', command: string, args?: string[] }). Refusing to load "
                "the definition: dropping the block would silently run it in-process instead "
                "of in the external agent it asked for.",
                refused_name=js_string(name_raw),
            )
    definition = SubagentDefinition(
        name=js_string(name_raw),
        description=js_string(description_raw),
        system_prompt=body.strip(),
        level=level,
        file_path=file_path,
        tools=_tool_list(front.get("tools")),
        disallowed_tools=_tool_list(front.get("disallowedTools")),
        model=model,
        run_config=front.get("runConfig"),
        approval_mode=approval,
        executor=executor,
        execution_backend=front.get("executionBackend"),
        **optional,
    )
    errors = validation_errors(
        name=definition.name,
        description=definition.description,
        system_prompt=definition.system_prompt,
        tools=definition.tools,
        disallowed_tools=definition.disallowed_tools,
        model=definition.model,
        run_config=definition.run_config,
    )
    if errors:
        raise ValueError(f"Validation failed: {', '.join(errors)}")
    return definition


def parse_subagent_definition(content: str, file_path: str, level: Level) -> SubagentDefinition:
    """Parse one file's text; raises :class:`SubagentDefinitionError` with the reference's text."""
    text = content.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    match = _FRONT_MATTER.match(text)
    if not match:
        raise SubagentDefinitionError(
            "Failed to parse subagent file: Invalid format: missing YAML frontmatter"
        )
    front = parse_front_matter(match.group(1))
    declared = front.get("name")
    declared_name = js_string(declared) if declared not in (None, "") else None
    backend = front.get("executionBackend")
    if "executionBackend" in front and backend != "container":
        raise SubagentDefinitionError(
            "Agent definition has an invalid executionBackend declaration: expected "
            '"container". Refusing to run it locally.',
            refused_name=declared if isinstance(declared, str) else None,
        )
    try:
        return _build(front, match.group(2), file_path, level)
    except SubagentDefinitionError:
        raise
    except Exception as exc:  # any failure skips the file with its reason
        reason = str(exc) or type(exc).__name__
        if backend is not None and declared_name:
            raise SubagentDefinitionError(
                f"Agent file {file_path} has an invalid executionBackend declaration: the "
                f"definition failed to load ({reason}). Refusing to fall through to a local "
                "substitute.",
                refused_name=declared_name,
            ) from None
        if "executor" in front and declared_name:
            raise SubagentDefinitionError(
                f"Agent file {file_path} has an invalid executor block: it declares an executor "
                f"but failed to load ({reason}). Refusing to fall through to a lower-precedence "
                "in-process substitute.",
                refused_name=declared_name,
            ) from None
        raise SubagentDefinitionError(f"Failed to parse subagent file: {reason}") from None
