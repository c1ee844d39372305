"""The gate the rest of the code asks first: this session's hooks, or ``None``.

:func:`hooks_for` answers ``None`` at once when no settings file has a ``hooks`` section (or
``disableAllHooks`` is set), so a session without hooks never imports the hook runner. Otherwise
it parses the settings once and keeps one :class:`~qwen_tools.hooks.system.HookSystem` per
``Config``.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from qwen_tools.config.config import Config
    from qwen_tools.config.settings import LoadedSettings
    from qwen_tools.hooks.system import HookSystem

__all__ = ["hooks_for"]


def _configured(loaded: LoadedSettings | None) -> bool:
    if loaded is None or loaded.merged.get("disableAllHooks") is True:
        return False
    return any(isinstance(f.data.get("hooks"), dict) and f.data["hooks"] for f in loaded.files)


_SYSTEMS: weakref.WeakKeyDictionary[Config, HookSystem | None] = weakref.WeakKeyDictionary()


def hooks_for(config: Config) -> HookSystem | None:
    """The session's hook system, or ``None`` when no hook is configured (the common case).

    One :class:`~qwen_tools.hooks.system.HookSystem` per ``Config``, built on first use.
    """
    try:
        return _SYSTEMS[config]
    except KeyError:
        pass
    system: HookSystem | None = None
    if _configured(config.loaded_settings):
        assert config.loaded_settings is not None
        from qwen_tools.hooks.settings import parse_hook_settings

        parsed = parse_hook_settings(config.loaded_settings)
        if parsed:
            from qwen_tools.hooks.system import HookSystem

            system = HookSystem(config, parsed)
    _SYSTEMS[config] = system
    return system
