"""``AgentSession``: the session's model wired into its ``Config``, and a factory for loops.

Creating a session lends the config's services (:class:`~qwen_tools.config.services.ModelAccess`)
the chat client (for ``web_fetch``) and a subagent runner (nested loops, for ``task``), taken
back when it closes. The system prompt (our instructions
and the context files) is built once per session; each loop opens its conversation with the
environment reminder (date, operating system, workspace tree; see :mod:`.environment`).

Usage::

    config = Config.load(cwd)
    registry = build_registry(config)
    model = resolve_model_config(config.loaded_settings)
    async with AgentSession(config, registry, model) as session:
        loop = session.new_loop(on_event=handle)
        finished = await loop.send("Fix the failing test")
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from qwen_tools.agent.context import ContextFiles, load_context
from qwen_tools.agent.loop import AgentLoop
from qwen_tools.agent.prompt import assemble_system_prompt, base_prompt
from qwen_tools.agent.stats import SessionStats
from qwen_tools.agent.subagents import LoopSubagentRunner
from qwen_tools.model.client import ChatClient

if TYPE_CHECKING:
    import httpx

    from qwen_tools.agent.events import EventHandler
    from qwen_tools.config.config import Config
    from qwen_tools.execution.call_types import ConfirmationHandler
    from qwen_tools.model.model_config import ModelConfig
    from qwen_tools.model.retry import RetryPolicy
    from qwen_tools.registry.registry import ToolRegistry

__all__ = ["AgentSession"]


class AgentSession:
    """One model, one workspace, one registry: builds :class:`AgentLoop` instances."""

    def __init__(
        self,
        config: Config,
        registry: ToolRegistry,
        model: ModelConfig,
        *,
        confirm: ConfirmationHandler | None = None,
        stream: bool = True,
        policy: RetryPolicy | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        system_prompt: str | None = None,
    ) -> None:
        """``system_prompt`` replaces our base instructions (context files are still added)."""
        self.config = config
        self.registry = registry
        self.model = model
        self.confirm = confirm
        self.stream = stream
        self.client = ChatClient(model, policy=policy, transport=transport)
        self.stats = SessionStats()
        self._base = system_prompt
        self._context: ContextFiles | None = None
        self._prompt: str | None = None
        self.subagents = LoopSubagentRunner(self)
        from qwen_tools.mcp.tool_bridge import enable_for_agent

        enable_for_agent(config, registry)  # MCP tools behind tool_search / tool_call
        config.services.model.lend(content_generator=self.client, subagent_runner=self.subagents)

    @property
    def context(self) -> ContextFiles:
        """The context files (``QWEN.md`` …) of the workspace, read once."""
        if self._context is None:
            self._context = load_context(self.config)
        return self._context

    def system_prompt(self) -> str:
        """Base instructions, then the context files after ``---``."""
        if self._prompt is None:
            base = self._base if self._base is not None else base_prompt()
            self._prompt = assemble_system_prompt(base, self.context.text)
            from qwen_tools.session.hook_events import session_start_block

            self._prompt += session_start_block(self.config)
        return self._prompt

    def new_loop(
        self,
        *,
        on_event: EventHandler | None = None,
        max_turns: int = -1,
        registry: ToolRegistry | None = None,
        system_prompt: str | None = None,
        model: ModelConfig | None = None,
        date_reminders: bool = True,
        config: Config | None = None,
    ) -> AgentLoop:
        """A fresh conversation (empty history) sharing the session's client and stats.

        ``date_reminders=False`` (subagents) leaves out the current-date reminder that the main
        conversation sends with its user messages; the environment reminder is always sent.
        ``config`` replaces the session's for this loop's approvals (a subagent's own mode).
        """
        return AgentLoop(
            client=self.client,
            registry=registry if registry is not None else self.registry,
            config=config if config is not None else self.config,
            system_prompt=system_prompt if system_prompt is not None else self.system_prompt(),
            model=model or self.model,
            confirm=self.confirm,
            max_turns=max_turns,
            stream=self.stream,
            on_event=on_event,
            stats=self.stats,
            date_reminders=date_reminders,
        )

    async def aclose(self) -> None:
        """Close the client and take back what was lent to the ``Config``'s services."""
        await self.client.aclose()
        self.config.services.model.withdraw(
            content_generator=self.client, subagent_runner=self.subagents
        )

    async def __aenter__(self) -> AgentSession:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
