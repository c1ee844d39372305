"""The checks a subagent definition must pass, with Qwen Code 0.24.4's messages.

:func:`validation_errors` returns the errors of a whole definition in the reference's order
(name, description, system prompt, tools, disallowed tools, model, run config); the loader
joins them into ``Validation failed: <e1>, <e2>``. :func:`name_errors` is usable on its own.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["RESERVED_NAMES", "name_errors", "validation_errors"]

RESERVED_NAMES = frozenset({"self", "system", "user", "model", "tool", "config", "default", "main"})
"""Names no subagent may take (compared case-insensitively)."""

_NAME_CHARS = re.compile(r"[\w-]+")  # letters, digits, underscores and hyphens (Unicode)


def name_errors(name: str) -> list[str]:
    """What is wrong with a subagent name (empty when it is valid)."""
    trimmed = name.strip()
    if not trimmed:
        return ["Name is required and cannot be empty"]
    errors: list[str] = []
    if len(trimmed) < 2:
        errors.append("Name must be at least 2 characters long")
    if len(trimmed) > 50:
        errors.append("Name must be 50 characters or less")
    if not _NAME_CHARS.fullmatch(trimmed):
        errors.append("Name can only contain letters, numbers, hyphens, and underscores")
    if trimmed[0] in "-_":
        errors.append("Name cannot start with a hyphen or underscore")
    if trimmed[-1] in "-_":
        errors.append("Name cannot end with a hyphen or underscore")
    if trimmed.lower() in RESERVED_NAMES:
        errors.append(f'"{trimmed}" is a reserved name and cannot be used')
    return errors


def _prompt_errors(prompt: str) -> list[str]:
    trimmed = prompt.strip()
    if not trimmed:
        return ["System prompt is required and cannot be empty"]
    if len(trimmed) < 10:
        return ["System prompt must be at least 10 characters long"]
    return []


def _tool_errors(tools: Sequence[str]) -> list[str]:
    return ["Tool name cannot be empty" for tool in tools if not tool.strip()]


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _run_config_errors(run_config: Mapping[str, Any]) -> list[str]:
    errors: list[str] = []
    minutes = run_config.get("max_time_minutes")
    if minutes is not None:
        if not _is_number(minutes):
            errors.append("max_time_minutes must be a number")
        elif minutes <= 0:
            errors.append("max_time_minutes must be greater than 0")
    turns = run_config.get("max_turns")
    if turns is not None:
        if not _is_number(turns):
            errors.append("max_turns must be a number")
        elif turns <= 0:
            errors.append("max_turns must be greater than 0")
        elif not (math.isfinite(turns) and float(turns).is_integer()):
            errors.append("max_turns must be an integer")
    return errors


def validation_errors(
    *,
    name: str,
    description: str,
    system_prompt: str,
    tools: Sequence[str] | None,
    disallowed_tools: Sequence[str] | None,
    model: str | None,
    run_config: Any,
) -> list[str]:
    """Every error of a parsed definition, in the reference's order."""
    errors = name_errors(name)
    if not description.strip():
        errors.append("Description is required and cannot be empty")
    errors += _prompt_errors(system_prompt)
    if tools:
        errors += _tool_errors(tools)
    if disallowed_tools:
        errors += _tool_errors(disallowed_tools)
    if model is not None and not model.strip():
        errors.append("Model must be a non-empty string")
    if isinstance(run_config, Mapping):
        errors += _run_config_errors(run_config)
    return errors
