"""Firing an event: the common input, the matching hooks, the merged answer.

:class:`HookSystem` holds one session's hooks (:mod:`.settings`). :meth:`HookSystem.fire`
builds the input every hook receives (``session_id``, ``transcript_path``, ``cwd``,
``hook_event_name``, ``timestamp``, ``permission_mode``, then the event's own fields), selects
the entries whose matcher accepts the event's target (tool name, source, reason, notification
type, agent type), drops duplicates (same name and command), and runs the hooks in parallel, or
one after another when any of them is ``sequential`` (a PreToolUse hook's ``updatedInput`` is
then what the next one sees). The outputs merge (:func:`~.output.merge_outputs`); failures are
logged and never raise.

``async: true`` hooks and fire-and-forget events (Notification) run as tasks the system keeps;
:meth:`HookSystem.aclose` waits for them (each is bounded by its timeout), so no hook process
outlives the session.
"""

from __future__ import annotations

import asyncio
import datetime
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from qwen_tools.hooks.matcher import matches_hook_pattern, tool_aliases
from qwen_tools.hooks.output import HookOutput, merge_outputs
from qwen_tools.hooks.runner import HookRun, run_hook
from qwen_tools.hooks.settings import HookEntry, HookSettings

if TYPE_CHECKING:
    from qwen_tools.config.config import Config
    from qwen_tools.contract.abort import AbortSignal

__all__ = ["HookResult", "HookSystem", "permission_mode"]

_log = logging.getLogger("qwen_tools.hooks")

_TOOL_EVENTS = frozenset(
    {"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PermissionDenied"}
)
_MATCHED_EVENTS = _TOOL_EVENTS | {
    "SubagentStart", "SubagentStop", "PreCompact", "PostCompact", "SessionStart", "SessionEnd",
    "StopFailure", "Notification", "InstructionsLoaded", "UserPromptExpansion",
}  # fmt: skip
_MODES = {"plan": "plan", "auto-edit": "auto_edit", "auto": "auto", "yolo": "yolo"}


def permission_mode(config: Config) -> str:
    """The approval mode as hooks name it (``default``, ``plan``, ``auto_edit``, ``yolo``…)."""
    return _MODES.get(str(config.approval_mode.value), "default")


def _timestamp() -> str:
    now = datetime.datetime.now(datetime.UTC)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


@dataclass(frozen=True)
class HookResult:
    """The runs of one event's hooks and their merged output (``None``: no hook answered)."""

    runs: tuple[HookRun, ...] = ()
    output: HookOutput | None = None
    errors: tuple[str, ...] = field(default=())


class HookSystem:
    """The hooks of one session."""

    def __init__(self, config: Config, settings: HookSettings) -> None:
        self.config = config
        self.settings = settings
        self._background: set[asyncio.Task[Any]] = set()
        self.session_start_context: str | None = None
        """SessionStart's ``additionalContext``, for the system prompt of an agent."""

    def has(self, event: str) -> bool:
        """Whether any hook is configured for ``event``."""
        return bool(self.settings.for_event(event))

    def _selected(self, event: str, target: str | None) -> list[HookEntry]:
        aliases = tool_aliases(target) if target and event in _TOOL_EVENTS else ()
        chosen: list[HookEntry] = []
        seen: set[str] = set()
        for entry in self.settings.for_event(event):
            if (
                entry.matcher
                and target
                and event in _MATCHED_EVENTS
                and not matches_hook_pattern(entry.matcher, target, aliases)
            ):
                continue
            if entry.hook.key in seen:
                continue
            seen.add(entry.hook.key)
            chosen.append(entry)
        return chosen

    def base_input(self, event: str) -> dict[str, Any]:
        """The fields every hook of every event receives."""
        return {
            "session_id": self.config.session_id,
            "transcript_path": "",
            "cwd": str(self.config.target_dir),
            "hook_event_name": event,
            "timestamp": _timestamp(),
            "permission_mode": permission_mode(self.config),
        }

    async def fire(
        self,
        event: str,
        fields: Mapping[str, Any],
        *,
        target: str | None = None,
        signal: AbortSignal | None = None,
    ) -> HookResult:
        """Run the hooks of ``event`` that ``target`` selects; never raises for a hook."""
        entries = self._selected(event, target)
        if not entries:
            return HookResult()
        payload = {**self.base_input(event), **fields}
        sync = [e for e in entries if not e.hook.run_async]
        for entry in entries:
            if entry.hook.run_async:
                self.spawn(self._run(entry, event, payload, None))
        if any(e.sequential for e in sync):
            runs: list[HookRun] = []
            current = payload
            for entry in sync:
                if signal is not None and signal.aborted:
                    break
                run = await self._run(entry, event, current, signal)
                runs.append(run)
                if run.success and run.output is not None:
                    current = _chain(event, current, run.output)
        else:
            runs = list(await asyncio.gather(*(self._run(e, event, payload, signal) for e in sync)))
        errors = tuple(run.error for run in runs if run.error and not run.success)
        for run in runs:
            if run.error:
                _log.debug("hook %r for %s: %s", run.hook.label, event, run.error)
            message = run.output.get("systemMessage") if run.output else None
            if isinstance(message, str) and message:
                _log.info("hook %r for %s: %s", run.hook.label, event, message)
        outputs = [run.output for run in runs if run.output is not None]
        return HookResult(tuple(runs), merge_outputs(event, outputs), errors)

    async def _run(
        self,
        entry: HookEntry,
        event: str,
        payload: Mapping[str, Any],
        signal: AbortSignal | None,
    ) -> HookRun:
        try:
            return await run_hook(
                entry.hook,
                event,
                payload,
                cwd=str(self.config.target_dir),
                session_id=self.config.session_id,
                signal=signal,
            )
        except Exception as exc:  # the hook machinery itself failed: never the call's problem
            message = f"Hook execution failed for event '{event}' (hook: {entry.hook.label}): {exc}"
            return HookRun(entry.hook, "non_blocking_error", error=message)

    def spawn(self, work: Any) -> None:
        """Run a coroutine in the background until it ends or the session closes."""
        task = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def fire_and_forget(self, event: str, fields: Mapping[str, Any], target: str | None) -> None:
        """:meth:`fire` without waiting (Notification); :meth:`aclose` waits for it."""
        if self.has(event):
            self.spawn(self.fire(event, fields, target=target))

    async def aclose(self) -> None:
        """Wait for the background hooks (each is bounded by its own timeout)."""
        while self._background:
            await asyncio.gather(*tuple(self._background), return_exceptions=True)


def _chain(event: str, payload: Mapping[str, Any], output: Mapping[str, Any]) -> dict[str, Any]:
    """What the next sequential hook sees after ``output`` (as ``applyHookOutputToInput``)."""
    current = dict(payload)
    specific = output.get("hookSpecificOutput")
    if not isinstance(specific, dict):
        return current
    context = specific.get("additionalContext")
    if event == "UserPromptSubmit" and isinstance(context, str) and context:
        current["prompt"] = f"{current.get('prompt', '')}\n\n{context}"
    if event == "PreToolUse" and isinstance(specific.get("updatedInput"), dict):
        tool_input = current.get("tool_input")
        base = tool_input if isinstance(tool_input, dict) else {}
        current["tool_input"] = {**base, **specific["updatedInput"]}
    return current
