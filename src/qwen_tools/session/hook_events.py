"""SessionStart and SessionEnd, fired by :class:`~qwen_tools.session.session.Session`.

SessionStart fires once the session is open (``source`` ``startup``, or ``resume`` for a named
session that had been saved before); its ``additionalContext`` is kept on the hook system and
an agent running in the session adds it to the system prompt, as Qwen Code 0.24.4 does
(:func:`session_start_block`). SessionEnd fires as the session closes (``reason`` ``other``),
before its processes are stopped; then the hooks still running in the background (async hooks,
notifications) are waited for, so none outlives the session.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from qwen_tools.hooks.gate import hooks_for

if TYPE_CHECKING:
    from qwen_tools.config.config import Config

__all__ = ["session_end", "session_start", "session_start_block"]

_OPEN = '<qwen:session-start-context hidden="true">'
_CLOSE = "</qwen:session-start-context>"


async def session_start(config: Config, *, resumed: bool = False, model: str = "") -> None:
    """Fire SessionStart (when configured) and keep its context for the agent."""
    hooks = hooks_for(config)
    if hooks is None or not hooks.has("SessionStart"):
        return
    source = "resume" if resumed else "startup"
    result = await hooks.fire("SessionStart", {"source": source, "model": model}, target=source)
    context = result.output.additional_context() if result.output else None
    hooks.session_start_context = context.strip() if context and context.strip() else None


async def session_end(config: Config, reason: str = "other") -> None:
    """Fire SessionEnd (when configured), then wait for the background hooks."""
    hooks = hooks_for(config)
    if hooks is None:
        return
    if hooks.has("SessionEnd"):
        await hooks.fire("SessionEnd", {"reason": reason}, target=reason)
    await hooks.aclose()


def session_start_block(config: Config) -> str:
    """What the system prompt ends with when a SessionStart hook gave context (else ``""``)."""
    hooks = hooks_for(config)
    context = hooks.session_start_context if hooks is not None else None
    if not context:
        return ""
    return f"\n\n{_OPEN}\nSessionStart additional context:\n{context}\n{_CLOSE}"
