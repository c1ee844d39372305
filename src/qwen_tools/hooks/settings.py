"""The ``hooks`` settings as Qwen Code 0.24.4 reads them, and the gate a session asks first.

```json
{"hooks": {"PreToolUse": [{"matcher": "^run_shell_command$", "sequential": false,
  "hooks": [{"type": "command", "command": "\\"$QWEN_PROJECT_DIR/check.sh\\"", "timeout": 10}]}]}}
```

Each settings file's ``hooks`` is read on its own and tagged with its source; hooks run in the
order project (the workspace file), user, system (system defaults included), as the reference's
registry sorts them. The workspace file is only read in a trusted folder (the settings loader
drops it otherwise). ``disableAllHooks: true`` turns every hook off. Unknown event names and
definitions without a ``hooks`` array are skipped; of the hook types only ``command`` runs here
(``http``, ``prompt`` and ``function`` hooks are skipped with a warning in the log).

A command hook's ``timeout`` is in seconds (default 60); a value of 1000 or more keeps its old
meaning of milliseconds, and a value that is not a positive number falls back to the default.

The rest of the code asks :func:`qwen_tools.hooks.gate.hooks_for`, which reads these only when
a settings file has a ``hooks`` section.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from qwen_tools.config.settings import LoadedSettings

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "HOOK_EVENTS",
    "CommandHook",
    "HookEntry",
    "HookSettings",
    "parse_hook_settings",
    "read_timeout_ms",
]

_log = logging.getLogger("qwen_tools.hooks")

HOOK_EVENTS = frozenset(
    {
        "PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "Notification",
        "UserPromptSubmit", "UserPromptExpansion", "SessionStart", "Stop", "MessageDisplay",
        "SubagentStart", "SubagentStop", "PreCompact", "PostCompact", "SessionEnd",
        "SessionDelete", "PermissionRequest", "PermissionDenied", "StopFailure", "TodoCreated",
        "TodoCompleted", "InstructionsLoaded",
    }
)  # fmt: skip
"""Every event name Qwen Code 0.24.4 knows (a hook on another name is skipped)."""

_CONFIG_FIELDS = frozenset({"enabled", "disabled", "notifications"})
DEFAULT_TIMEOUT_S = 60
_LEGACY_MS_THRESHOLD = 1000
_SOURCE_ORDER = {"project": 1, "user": 2, "system": 3}


def read_timeout_ms(value: Any) -> int:
    """A command hook's ``timeout`` in milliseconds, read as the reference reads it."""
    if isinstance(value, str) and value.strip():
        try:
            value = float(value)
        except ValueError:
            return DEFAULT_TIMEOUT_S * 1000
    if isinstance(value, bool) or not isinstance(value, int | float):
        return DEFAULT_TIMEOUT_S * 1000
    if value != value or value in (float("inf"), float("-inf")) or value <= 0:
        return DEFAULT_TIMEOUT_S * 1000
    if value >= _LEGACY_MS_THRESHOLD:
        return int(value)
    return int(value * 1000)


@dataclass(frozen=True, slots=True)
class CommandHook:
    """One ``{"type": "command", ...}`` hook."""

    command: str
    name: str | None = None
    timeout_ms: int = DEFAULT_TIMEOUT_S * 1000
    env: Mapping[str, str] = field(default_factory=dict)
    run_async: bool = False
    source: str = "user"

    @property
    def label(self) -> str:
        """The hook's name, else its command (how the reference names it in messages)."""
        return self.name or self.command

    @property
    def key(self) -> str:
        """The identity used to drop duplicates (``name:command`` or the command)."""
        return f"{self.name}:{self.command}" if self.name else self.command


@dataclass(frozen=True, slots=True)
class HookEntry:
    """One hook under one matcher of one event."""

    event: str
    hook: CommandHook
    matcher: str | None = None
    sequential: bool = False


@dataclass(frozen=True)
class HookSettings:
    """Every hook entry, grouped by event, in run order."""

    entries: Mapping[str, tuple[HookEntry, ...]]

    def for_event(self, event: str) -> tuple[HookEntry, ...]:
        """The entries of ``event`` (project first, then user, then system)."""
        return self.entries.get(event, ())

    def __bool__(self) -> bool:
        return any(self.entries.values())


def _command_hook(raw: Mapping[str, Any], source: str) -> CommandHook | None:
    kind = raw.get("type")
    if kind != "command":
        if kind in ("http", "prompt", "function"):
            _log.warning("%s hooks are not supported here; skipping one", kind)
        return None
    command = raw.get("command")
    if not isinstance(command, str) or not command:
        return None
    env = raw.get("env")
    name = raw.get("name")
    return CommandHook(
        command=command,
        name=name if isinstance(name, str) and name else None,
        timeout_ms=read_timeout_ms(raw.get("timeout")),
        env={str(k): str(v) for k, v in env.items()} if isinstance(env, dict) else {},
        run_async=raw.get("async") is True,
        source=source,
    )


def _source(scope: str) -> str:
    if scope == "workspace":
        return "project"
    return "user" if scope == "user" else "system"


def parse_hook_settings(loaded: LoadedSettings) -> HookSettings:
    """The hooks of every settings file that took part in ``loaded`` (empty when disabled)."""
    if loaded.merged.get("disableAllHooks") is True:
        return HookSettings({})
    found: dict[str, list[HookEntry]] = {}
    seen: set[tuple[str, str, str, str | None, bool]] = set()
    for settings_file in loaded.files:
        section = settings_file.data.get("hooks")
        if not isinstance(section, dict):
            continue
        source = _source(str(settings_file.scope))
        for event, definitions in section.items():
            if event in _CONFIG_FIELDS:
                continue
            if event not in HOOK_EVENTS:
                _log.warning(
                    'Invalid hook event name: "%s" from %s config. Skipping.', event, source
                )
                continue
            if not isinstance(definitions, list):
                continue
            for definition in definitions:
                if not isinstance(definition, dict) or not isinstance(
                    definition.get("hooks"), list
                ):
                    continue
                matcher = definition.get("matcher")
                matcher = matcher if isinstance(matcher, str) else None
                sequential = definition.get("sequential") is True
                for raw in definition["hooks"]:
                    hook = _command_hook(raw, source) if isinstance(raw, dict) else None
                    if hook is None:
                        continue
                    identity = (event, source, hook.label, matcher, sequential)
                    if identity in seen:
                        continue
                    seen.add(identity)
                    found.setdefault(event, []).append(HookEntry(event, hook, matcher, sequential))
    return HookSettings(
        {
            event: tuple(sorted(entries, key=lambda e: _SOURCE_ORDER.get(e.hook.source, 999)))
            for event, entries in found.items()
        }
    )
