"""The ``auto`` approval mode: a call that would ask is approved, blocked, or asked about.

:func:`review` runs Qwen Code 0.24.4's order for one call whose tool wants a confirmation (deny
rules and PreToolUse hooks have already had their say):

1. ``ask_user_question`` and the plan-mode tools always ask.
2. Unless an ask rule forced the prompt: ``edit`` / ``write_file`` inside the workspace are
   approved (0.24.4's accept-edits fast path) unless they write a protected file, and
   read-only / bookkeeping tools are approved.
3. A destructive git or infrastructure shell command is blocked outright
   (:func:`~.auto_guards.destructive_command`).
4. An ask rule, a protected write (:func:`~.auto_guards.protected_write` — here we ask where
   0.24.4 would let its classifier decide) and an edit outside the workspace ask.
5. After too many refusals (3 blocks or 2 classifier failures in a row, 20 in the session) or
   when the model retries the exact call that was just blocked, the call asks — which is what
   the block message promises ("retry the same tool call without changing its arguments").
6. Without a model (``qwen-tools call``, no agent lending one) the call asks, as in ``default``
   mode; this is logged once per session.
7. Otherwise the classifier (:mod:`.auto_classifier`) decides: allow → the call runs; block →
   ``execution_denied`` with 0.24.4's text; unavailable (error, timeout, bad answer) → ask.

"Ask" means the normal confirmation; with nobody to ask it is refused as in ``default`` mode.
A user approving such a fallback resets the run of refusals (:func:`manual_approval`); a
classifier block fires the PermissionDenied hooks (:func:`permission_denied_hooks`).
"""

from __future__ import annotations

import json
import logging
import weakref
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from qwen_tools.contract.tool_names import ToolNames
from qwen_tools.execution.auto_guards import (
    EDIT_TOOLS,
    SHELL_TOOL,
    destructive_command,
    protected_write,
)

if TYPE_CHECKING:
    from qwen_tools.config.config import Config
    from qwen_tools.contract.abort import AbortSignal

__all__ = [
    "AutoVerdict",
    "block_message",
    "manual_approval",
    "permission_denied_hooks",
    "review",
]

_log = logging.getLogger("qwen_tools")

NEVER_CLASSIFIED = frozenset(
    ["ask_user_question", ToolNames.EXIT_PLAN_MODE, ToolNames.ENTER_PLAN_MODE]
)
SAFE_TOOLS = frozenset(
    [
        ToolNames.READ_FILE,
        ToolNames.READ_MANY_FILES,
        ToolNames.GREP,
        ToolNames.GLOB,
        ToolNames.LIST_DIRECTORY,
        ToolNames.LSP,
        "tool_search",
        ToolNames.TODO_WRITE,
        "cron_list",
        ToolNames.TASK_STOP,
    ]
)
_GUIDANCE_HEAD = (
    "Do not try to complete the denied action through another tool, shell indirection, "
    "generated script, alias, symlink, config change, hook, command file, MCP configuration, "
    "encoded payload, or equivalent path."
)
_GUIDANCE_TAIL = (
    "You may continue with unrelated safe work or a genuinely safer alternative that does not "
    "accomplish the denied action."
)
DENIAL_GUIDANCE = (
    f"{_GUIDANCE_HEAD} To request manual approval for this exact action, retry the same tool "
    f"call without changing its arguments. {_GUIDANCE_TAIL}"
)
DESTRUCTIVE_GUIDANCE = (
    f"{_GUIDANCE_HEAD} If this action is required, stop and ask the user for explicit approval. "
    f"{_GUIDANCE_TAIL}"
)
EXTERNAL_WRITE = "Writes outside the workspace require manual approval in AUTO mode."
NO_MODEL = (
    "Auto mode has no model to classify tool calls here (no agent lends one): calls that need "
    "approval are asked about as in default mode."
)
_MAX_BLOCKS, _MAX_UNAVAILABLE, _MAX_TOTAL = 3, 2, 20


def block_message(reason: str) -> str:
    """The model's error for a classifier block (0.24.4's text)."""
    return f"Blocked by auto mode policy: {reason}\n{DENIAL_GUIDANCE}"


def unavailable_message(reason: str) -> str:
    """Why a call asks after the classifier failed (0.24.4's text, shown to the user)."""
    detail = f" ({reason})" if reason else ""
    return (
        f"Auto Mode couldn't classify this action{detail}. Review it manually. Switching to "
        "Default Mode is recommended if you want to continue without the classifier."
    )


@dataclass(frozen=True)
class AutoVerdict:
    """What auto mode decided: run, refuse (``message`` for the model), or ask (``message``
    says why, for the user)."""

    kind: Literal["approved", "blocked", "ask"]
    message: str = ""
    fallback: bool = False
    """The classifier was skipped or failed: a user's approval resets the refusal counters."""
    classifier_denied: bool = False
    """The classifier blocked the call (PermissionDenied hooks hear of it)."""


@dataclass
class _Denials:
    blocks: int = 0
    unavailable: int = 0
    total: int = 0
    retry: str | None = None
    warned: bool = False


_STATE: weakref.WeakKeyDictionary[Config, _Denials] = weakref.WeakKeyDictionary()


def _denials(config: Config) -> _Denials:
    state = _STATE.get(config)
    if state is None:
        state = _STATE[config] = _Denials()
    return state


def manual_approval(config: Config) -> None:
    """The user approved a call auto mode handed over: the runs of refusals start again."""
    state = _denials(config)
    if state.total >= _MAX_TOTAL:
        state.total = 0
    state.blocks = state.unavailable = 0


def _fingerprint(name: str, params: Any, cwd: str) -> str:
    return json.dumps([name, params, cwd], sort_keys=True, default=str)


def _fallback_reason(state: _Denials, key: str) -> str | None:
    if state.total >= _MAX_TOTAL:
        return "Auto mode reached its session denial limit. Review this action manually."
    if state.blocks >= _MAX_BLOCKS:
        return "Auto mode reached its consecutive denial limit on this action. Review it manually."
    if state.unavailable >= _MAX_UNAVAILABLE:
        return "Auto mode could not classify consecutive actions. Review this action manually."
    if state.retry == key:
        return "Auto mode previously blocked this exact action. Review it manually."
    return None


def _last_user_text(transcript: Iterable[Mapping[str, Any]]) -> str:
    from qwen_tools.execution.auto_classifier import render_transcript

    texts = [t for t in render_transcript(transcript, "") if t.startswith("User: ")]
    return texts[-1][len("User: ") :] if texts else ""


def _settings(config: Config) -> Mapping[str, Any]:
    loaded = config.loaded_settings
    value = loaded.get("permissions.autoMode") if loaded is not None else None
    return value if isinstance(value, Mapping) else {}


def classifies_all_shell(config: Config) -> bool:
    """``permissions.autoMode.classifyAllShell``: read-only commands are judged too."""
    return _settings(config).get("classifyAllShell") is True


async def review(
    config: Config,
    name: str,
    params: Any,
    *,
    forced_ask: bool,
    transcript: Iterable[Mapping[str, Any]],
    signal: AbortSignal,
) -> AutoVerdict:
    """Decide one call in ``auto`` mode (see the module docstring)."""
    import anyio.to_thread

    if name in NEVER_CLASSIFIED:
        return AutoVerdict("ask")
    state, cwd = _denials(config), str(config.target_dir)
    key = _fingerprint(name, params, cwd)
    protected = await anyio.to_thread.run_sync(protected_write, config, name, params)
    path = params.get("file_path") if isinstance(params, dict) else None
    inside = isinstance(path, str) and config.workspace.is_path_within_workspace(path)
    if not forced_ask and not protected and name in EDIT_TOOLS and inside:
        return _allowed(state, key)
    if not forced_ask and name in SAFE_TOOLS:
        return _allowed(state, key)
    command = params.get("command") if isinstance(params, dict) else None
    if name == SHELL_TOOL and isinstance(command, str):
        reason = destructive_command(command, _last_user_text(transcript))
        if reason is not None:
            state.blocks, state.unavailable, state.total = state.blocks + 1, 0, state.total + 1
            return AutoVerdict("blocked", f"{reason}\n{DESTRUCTIVE_GUIDANCE}")
    if forced_ask or protected:
        return AutoVerdict("ask")
    if name in EDIT_TOOLS and isinstance(path, str) and not inside:
        return AutoVerdict("ask", EXTERNAL_WRITE, fallback=True)
    skipped = _fallback_reason(state, key)
    if skipped is not None:
        if state.retry == key:
            state.retry = None
        return AutoVerdict("ask", skipped, fallback=True)
    model = config.content_generator
    if model is None:
        if not state.warned:
            state.warned = True
            _log.warning(NO_MODEL)
        return AutoVerdict("ask")
    from qwen_tools.execution.auto_classifier import classify

    verdict = await classify(
        model,
        name,
        params,
        transcript=transcript,
        cwd=cwd,
        settings=_settings(config),
        signal=signal,
    )
    if not verdict.block:
        return _allowed(state, key)
    if verdict.unavailable:
        state.blocks, state.unavailable = 0, state.unavailable + 1
        state.total += 1
        return AutoVerdict("ask", unavailable_message(verdict.reason), fallback=True)
    state.blocks, state.unavailable, state.total = state.blocks + 1, 0, state.total + 1
    state.retry = key
    if state.blocks >= _MAX_BLOCKS or state.total >= _MAX_TOTAL:
        state.retry = None
        limit = _fallback_reason(state, "")
        if state.blocks >= _MAX_BLOCKS and state.total < _MAX_TOTAL:
            suffix = f" ({verdict.reason})" if verdict.reason else ""
            limit = (
                f"Auto mode reached its consecutive denial limit on this action{suffix}. "
                "Review it manually."
            )
        return AutoVerdict("ask", limit or "", fallback=True, classifier_denied=True)
    return AutoVerdict("blocked", block_message(verdict.reason), classifier_denied=True)


async def permission_denied_hooks(config: Config, name: str, params: Any, call_id: str) -> None:
    """Fire PermissionDenied for a classifier block (reason ``classifier_blocked``, as 0.24.4,
    whose ``tool_use_id`` is the call id too); a failing hook changes nothing."""
    from qwen_tools.hooks.gate import hooks_for

    hooks = hooks_for(config)
    if hooks is None or not hooks.has("PermissionDenied"):
        return
    fields = {
        "tool_name": name,
        "tool_input": params,
        "tool_use_id": call_id,
        "tool_call_id": call_id,
        "reason": "classifier_blocked",
    }
    try:
        await hooks.fire("PermissionDenied", fields, target=name)
    except Exception as exc:  # hook failures never block
        _log.warning("PermissionDenied hook failed for tool %s: %s", call_id, exc)


def _allowed(state: _Denials, key: str) -> AutoVerdict:
    state.blocks = state.unavailable = 0
    if state.retry == key:
        state.retry = None
    return AutoVerdict("approved")
