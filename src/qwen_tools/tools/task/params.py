"""The checks a ``task`` (0.24.4: ``agent``) call's params must pass, in the reference's order.

Qwen Code 0.24.4 replaces the schema pass of this tool with its own checks, so nothing is
coerced and keys it does not know are ignored. Every param of 0.24.4's ``agent`` is checked as
it checks them in a session without a team, a session workflow or model grades; the texts are
the reference's. What passes here but cannot run in this implementation (worktree isolation
and ``working_dir``) is refused afterwards with our own text; ``run_in_background`` and
``todo_id`` are accepted and have no effect (subagents run in the foreground here).

:class:`TaskParams` types the params the schema declares to the model, which these checks
guarantee for every call that passes them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Required, TypedDict

from qwen_tools.jscompat.jstext import js_trim, utf16_len

__all__ = ["FORK_SUBAGENT_TYPE", "TaskParams", "check_task_params", "unsupported_param"]


class TaskParams(TypedDict, total=False):
    """``task``'s declared params: a short name for the job, the brief, the subagent to run.

    The other params of 0.24.4's ``agent`` are undeclared: checked here, read untyped.
    """

    description: Required[str]
    prompt: Required[str]
    subagent_type: str


FORK_SUBAGENT_TYPE = "fork"
_FORK_TURNS = re.compile(r"[1-9][0-9]*")
_MAX_TODO_ID = 500


def _blank(value: Any) -> bool:
    """True unless ``value`` is a string with something besides whitespace (JS ``trim``)."""
    return not isinstance(value, str) or js_trim(value) == ""


def _missing(params: Mapping[str, Any], key: str) -> bool:
    """JavaScript's ``params[key] === undefined`` (a JSON ``null`` is a value)."""
    return key not in params


def _is_fork(params: Mapping[str, Any]) -> bool:
    subagent = params.get("subagent_type")
    return isinstance(subagent, str) and subagent.lower() == FORK_SUBAGENT_TYPE


def _required(params: Mapping[str, Any]) -> str | None:
    for key in ("description", "prompt"):
        if _blank(params.get(key)):
            return f'Parameter "{key}" must be a non-empty string.'
    todo_id = params.get("todo_id")
    if not _missing(params, "todo_id") and (
        not isinstance(todo_id, str) or _blank(todo_id) or utf16_len(todo_id) > _MAX_TODO_ID
    ):
        return 'Parameter "todo_id" must be a non-empty string of at most 500 characters.'
    if not _missing(params, "subagent_type") and _blank(params["subagent_type"]):
        return 'Parameter "subagent_type" must be a non-empty string.'
    return None


def _model(params: Mapping[str, Any]) -> str | None:
    if _missing(params, "model"):
        return None
    model = params["model"]
    if _blank(model):
        return 'Parameter "model" must be a non-empty model grade when set.'
    if _is_fork(params):
        return 'Parameter "model" cannot be used with subagent_type "fork".'
    return f'Unknown model grade "{model}". Available: .'  # no grades are configured here


def _fork_only(params: Mapping[str, Any], key: str) -> str | None:
    if not _is_fork(params):
        return f'Parameter "{key}" can only be used with subagent_type "fork".'
    if not _missing(params, "name"):
        return f'Parameter "{key}" cannot be used when spawning a named teammate.'
    return None


def _fork(params: Mapping[str, Any]) -> str | None:
    if not _missing(params, "fork_turns"):
        turns = params["fork_turns"]
        if not isinstance(turns, str) or not (turns == "all" or _FORK_TURNS.fullmatch(turns)):
            return 'Parameter "fork_turns" must be "all" or a positive integer string such as "3".'
        if error := _fork_only(params, "fork_turns"):
            return error
    if not _missing(params, "fork_tools") and (error := _fork_only(params, "fork_tools")):
        return error
    if not _missing(params, "fork_profile"):
        if error := _fork_only(params, "fork_profile"):
            return error
        if not _missing(params, "fork_tools"):
            return 'Parameters "fork_profile" and "fork_tools" cannot be used together.'
    return None


def _explicit_subagent(params: Mapping[str, Any]) -> bool:
    return bool(params.get("subagent_type")) and not _is_fork(params)


def _working_dir(params: Mapping[str, Any]) -> str | None:
    if not _missing(params, "isolation"):
        if params["isolation"] != "worktree":
            return 'Parameter "isolation" must be "worktree" when set.'
        if not _explicit_subagent(params):
            return (
                'Parameter "isolation" requires an explicit subagent_type (and cannot be "fork").'
            )
    working_dir = params.get("working_dir")
    if working_dir is None or (isinstance(working_dir, str) and js_trim(working_dir) == ""):
        return None  # the reference drops a null or blank working_dir
    if not isinstance(working_dir, str):
        return 'Parameter "working_dir" must be a non-empty string when set.'
    if params.get("run_in_background") is True and _missing(params, "name"):
        return (
            'Parameters "working_dir" and "run_in_background" are incompatible: the caller owns '
            "the worktree lifecycle and could remove it while a background agent is still "
            "running."
        )
    if not _explicit_subagent(params):
        return 'Parameter "working_dir" requires an explicit subagent_type (and cannot be "fork").'
    return None


def _team_flags(params: Mapping[str, Any]) -> str | None:
    for key in ("plan_mode_required", "read_only"):
        if _missing(params, key):
            continue
        value = params[key]
        if not isinstance(value, bool):
            return f'Parameter "{key}" must be a boolean when set.'
        if value:
            if _blank(params.get("name")):
                return f'Parameter "{key}" requires a named teammate via "name".'
            return f'Parameter "{key}" requires an active team.'
    return None


def check_task_params(params: Mapping[str, Any]) -> str | None:
    """The first of the reference's messages that ``params`` earns, or ``None``."""
    for check in (_required, _model, _fork, _working_dir, _team_flags):
        if error := check(params):
            return error
    return None


def unsupported_param(params: Mapping[str, Any]) -> str | None:
    """Our refusal of the 0.24.4 params valid there that this implementation cannot honour."""
    if params.get("isolation") == "worktree":
        return (
            'Parameter "isolation" is not supported: subagents run in the session\'s '
            "workspace, without a separate worktree."
        )
    working_dir = params.get("working_dir")
    if isinstance(working_dir, str) and js_trim(working_dir) != "":
        return (
            'Parameter "working_dir" is not supported: subagents run in the session\'s workspace.'
        )
    return None
