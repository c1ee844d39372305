"""``Session``: everything one run of tool calls needs, assembled once and closed once.

```python
async with Session("/path/to/project") as session:
    done = await session.call("read_file", {"absolute_path": "/path/to/project/README.md"})
    print(done.response_text)
    results = await session.run_batch([ToolCallRequest("glob", {"pattern": "*.py"}, "c1")])
    declarations = session.declarations("openai")
```

Opening a session loads the settings (``settings.json`` files, as Qwen Code does) and, when
``name`` is given, locks and restores a named session (:mod:`.named`). Entering it builds the
registry (built-in tools, the ``tools.discoveryCommand`` tools, the caller's ``tools``) and joins
the MCP servers: ``mcp="on_demand"`` connects a server only when a call asks for one of its tools,
``"connect"`` connects them all first (to declare every tool), ``"off"`` never. Leaving it stops
the background shells (and their process trees), disconnects the MCP servers and saves/unlocks
the named session. Every front end (``call``, ``call --batch``, ``serve``, ``run``, ``chat``) is
one of these.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal

from qwen_tools.config.config import Config, project_temp_dir, qwen_home
from qwen_tools.config.tool_settings import ApprovalMode
from qwen_tools.contract.abort import AbortSignal
from qwen_tools.function_tools.context import ToolContext

if TYPE_CHECKING:
    from qwen_tools.config.session import SessionState
    from qwen_tools.config.tool_settings import ToolSettings
    from qwen_tools.config.workspace import WorkspaceContext
    from qwen_tools.contract.declarative import BaseDeclarativeTool
    from qwen_tools.contract.display import ToolResultDisplay
    from qwen_tools.discovery.shared import SharedDiscovery
    from qwen_tools.execution.call_types import (
        CompletedToolCall,
        ConfirmationHandler,
        ToolCallRequest,
    )
    from qwen_tools.execution.scheduler import ToolCallEvent, ToolScheduler
    from qwen_tools.mcp.manager import McpManager
    from qwen_tools.mcp.on_demand import McpOnDemand
    from qwen_tools.registry.exporters import ExportFormat
    from qwen_tools.registry.registry import ToolRegistry
    from qwen_tools.session.named import NamedSession

__all__ = ["McpMode", "Session"]

McpMode = Literal["on_demand", "connect", "off"]


class Session:
    """One workspace, its settings, its registry, its MCP servers and its mutable state."""

    def __init__(
        self,
        cwd: str | os.PathLike[str] | None = None,
        *,
        config: Config | None = None,
        include_directories: Iterable[str | os.PathLike[str]] = (),
        approval_mode: ApprovalMode | str | None = None,
        interactive: bool = False,
        confirm: ConfirmationHandler | None = None,
        tools: Iterable[BaseDeclarativeTool[Any]] = (),
        exclude_tools: Iterable[str] = (),
        mcp: McpMode = "on_demand",
        name: str | None = None,
        env: Mapping[str, str] | None = None,
        read_saved_output: bool = True,
        workspace: WorkspaceContext | None = None,
        experimental_lsp: bool = False,
        workspace_settings: bool = True,
        command_env: Mapping[str, str] | None = None,
        discovery: SharedDiscovery | None = None,
    ) -> None:
        """Load the settings for ``cwd`` (or use ``config``); nothing is started yet.

        ``interactive``: whether a person answers confirmations (the plan-mode tools need
        one); ``confirm`` answers them (without it, calls that need approval are refused);
        ``tools``: extra tools (a ``@tool`` function's copy receives this session's
        :class:`ToolContext`); ``exclude_tools``: built-ins to leave out; ``name``: a named
        session, kept under the Qwen runtime directory and locked while this one is open;
        ``workspace``: the directories the tools may use, narrower than ``cwd`` (a serve client's
        roots); the settings are still those of ``cwd``; ``experimental_lsp``: offer the ``lsp``
        tool as ``lsp.enabled`` does (Qwen Code's ``--experimental-lsp``);
        ``workspace_settings=False``: the workspace's content configures nothing (its
        ``.qwen/settings.json``, ``.mcp.json``, ``.lsp.json`` and ``.qwen/agents`` are not read,
        then or later; its ``QWEN.md`` files are still context, if their real paths are inside
        the workspace), for a workspace whose content is
        not trusted (the session pool's templates); it has no effect with ``config``;
        ``command_env``: the environment the model's commands start from (default: this
        process's; the session pool gives its sessions only plain variables, no secrets);
        ``discovery``: ``tools.discoveryCommand``'s declarations shared with other sessions on
        the same settings and project (a :class:`~qwen_tools.session.template.SessionTemplate`'s),
        instead of a run of the command for this session.
        Raises :class:`~qwen_tools.SettingsError` on bad settings.
        """
        mode = (
            ApprovalMode.parse(approval_mode) if isinstance(approval_mode, str) else approval_mode
        )
        self._named: NamedSession | None = None
        if name is not None and config is not None:
            raise ValueError("a named session loads its own Config: give cwd, not config")
        if name is not None:
            self._named = self._open_named(cwd if config is None else config.target_dir, name, env)
            mode = mode or self._named.approval_mode
        try:
            if config is None:
                config = Config.load(
                    cwd,
                    include_directories=include_directories,
                    approval_mode=mode,
                    env=env,
                    interactive=interactive,
                    session_id=self._named.session_id if self._named else None,
                    state=self._named.state if self._named else None,
                    workspace=workspace,
                    workspace_settings=workspace_settings,
                    command_env=command_env,
                )
            else:
                if mode is not None:
                    config.approval_mode = mode
                if command_env is not None:
                    config.command_env = dict(command_env)
            if experimental_lsp:
                config.services.lsp.enable()
            if read_saved_output:
                from qwen_tools.execution.persisted_output import allow_reading_saved_output

                allow_reading_saved_output(config)
        except BaseException:
            self._release_named()
            raise
        self.config = config
        self._start_mode = config.approval_mode
        self.confirm = confirm
        self._extra_tools = list(tools)
        self._exclude = set(exclude_tools)
        self._mcp_mode: McpMode = mcp
        self._registry: ToolRegistry | None = None
        self._manager: McpManager | None = None
        self._on_demand: McpOnDemand | None = None
        self._closed = False
        self._discovery = discovery

    @staticmethod
    def _open_named(cwd: Any, name: str, env: Mapping[str, str] | None) -> NamedSession:
        from qwen_tools.session.named import NamedSession

        target = Path(os.path.realpath(os.fspath(cwd) if cwd is not None else os.getcwd()))
        directory = project_temp_dir(target, qwen_home(env)) / "sessions"
        return NamedSession(directory, name).acquire()

    # -- what the session holds -------------------------------------------------------------

    @property
    def settings(self) -> ToolSettings:
        """The immutable tool settings."""
        return self.config.settings

    @property
    def workspace(self) -> WorkspaceContext:
        """The workspace directories."""
        return self.config.workspace

    @property
    def state(self) -> SessionState:
        """The mutable state: read cache, "always allow" answers, background shells."""
        return self.config.session

    @property
    def context(self) -> ToolContext:
        """What a ``@tool`` function asking for :class:`ToolContext` receives."""
        return ToolContext(self.config)

    @property
    def approval_mode(self) -> ApprovalMode:
        """The current approval mode (tools such as ``exit_plan_mode`` change it)."""
        return self.config.approval_mode

    @approval_mode.setter
    def approval_mode(self, mode: ApprovalMode | str) -> None:
        self.config.approval_mode = ApprovalMode.parse(mode) if isinstance(mode, str) else mode

    @property
    def registry(self) -> ToolRegistry:
        """The session's tools (available once the session is entered)."""
        if self._registry is None:
            raise RuntimeError("the Session is not open: use 'async with Session(...)'")
        return self._registry

    @property
    def mcp_manager(self) -> McpManager | None:
        """The MCP servers of the session (``None`` without ``mcpServers`` or with ``mcp="off"``)."""
        return self._manager

    def declarations(self, fmt: ExportFormat = "openai") -> list[dict[str, Any]]:
        """The tool declarations in a provider's format (``openai``, ``anthropic``, ``mcp``…)."""
        return self.registry.export(fmt)

    # -- opening and closing ----------------------------------------------------------------

    async def __aenter__(self) -> Session:
        try:
            await self._assemble()
            if self._has_hooks():
                from qwen_tools.session.hook_events import session_start

                resumed = self._named is not None and self._named.path.exists()
                await session_start(self.config, resumed=resumed)
        except BaseException:
            await self.aclose()
            raise
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def _assemble(self) -> None:
        from qwen_tools.session.default_registry import build_registry_async

        registry = await build_registry_async(self.config, self._exclude, self._discovery)
        for excluded in self._exclude:  # a discovered tool of that name
            registry.unregister_tool(excluded)
        for extra in self._extra_tools:
            registry.register_tool(self._bound(extra))
        self._registry = registry
        if self._mcp_mode == "off" or not self.config.settings.mcp_servers:
            return
        from qwen_tools.mcp.manager import McpManager

        self._manager = McpManager(self.config)
        if self._mcp_mode == "connect":
            from qwen_tools.mcp.registration import register_mcp_tools

            await register_mcp_tools(registry, self._manager)
        else:
            from qwen_tools.mcp.on_demand import McpOnDemand

            self._on_demand = await McpOnDemand(registry, self._manager).__aenter__()

    def _bound(self, extra: BaseDeclarativeTool[Any]) -> BaseDeclarativeTool[Any]:
        from qwen_tools.function_tools.function_tool import FunctionTool

        if isinstance(extra, FunctionTool) and extra.context_param is not None:
            return extra.bind(self.context)
        return extra

    async def aclose(self) -> None:
        """Stop background shells, disconnect MCP servers, save and unlock a named session.

        Safe to call more than once.
        """
        if self._closed:
            return
        self._closed = True
        try:
            if self._has_hooks():
                from qwen_tools.session.hook_events import session_end

                await session_end(self.config)
            lsp = self.config.services.lsp
            if self._manager is not None or self.state.background_shells.list() or lsp.active:
                import anyio  # only when there is something to stop: opening stays cheap

                with anyio.CancelScope(shield=True):
                    await self.state.background_shells.stop_all()
                    if self._manager is not None:
                        await self._manager.aclose()
                    await lsp.aclose()  # the language servers and their process trees
        finally:
            self._save_named()

    def _has_hooks(self) -> bool:
        from qwen_tools.hooks.gate import hooks_for

        return hooks_for(self.config) is not None

    def close_sync(self) -> None:
        """Release a session that was never entered (a named session's lock, unsaved)."""
        if not self._closed:
            self._closed = True
            self._release_named()

    def _save_named(self) -> None:
        named = self._named
        if named is None:
            return
        mode = self.config.approval_mode
        try:
            # only a mode set during the session (by a tool, or the setter) is kept: a command's
            # own --approval-mode is not handed to the next command
            named.save(self.state, mode if mode is not self._start_mode else None)
        finally:
            self._release_named()

    def _release_named(self) -> None:
        if self._named is not None:
            self._named.release()

    # -- calls ------------------------------------------------------------------------------

    async def ensure_tool(self, name: str) -> None:
        """Connect the MCP server that may offer ``name`` (``mcp="on_demand"``; else a no-op)."""
        if self._on_demand is not None:
            await self._on_demand.ensure_tool(name)

    def scheduler(self, **options: Any) -> ToolScheduler:
        """A :class:`~qwen_tools.ToolScheduler` on this session (``confirm`` defaults to ours)."""
        from qwen_tools.execution.scheduler import ToolScheduler

        options.setdefault("confirm", self.confirm)
        return ToolScheduler(self.registry, self.config, **options)

    async def run_batch(
        self,
        requests: Sequence[ToolCallRequest],
        signal: AbortSignal | None = None,
        *,
        on_event: Callable[[ToolCallEvent], object] | None = None,
    ) -> list[CompletedToolCall]:
        """Run one batch through the scheduler (read-only calls in parallel, the rest in order);
        ``on_event`` sees every state change and piece of live output."""
        for request in requests:
            await self.ensure_tool(request.name)
        scheduler = self.scheduler()
        if on_event is not None:
            listener = on_event

            def relay(event: ToolCallEvent) -> None:
                listener(event)

            scheduler.subscribe(relay)
        return await scheduler.schedule(requests, signal)

    async def call(
        self,
        name: str,
        args: Mapping[str, Any] | None = None,
        *,
        call_id: str = "call_1",
        signal: AbortSignal | None = None,
        on_output: Callable[[ToolResultDisplay], object] | None = None,
    ) -> CompletedToolCall:
        """Run one call; ``on_output`` receives its live output (shell commands)."""
        from qwen_tools.execution.call_types import ToolCallRequest

        def relay(event: ToolCallEvent) -> None:
            if on_output is not None and event.output is not None:
                on_output(event.output)

        request = ToolCallRequest(name, dict(args or {}), call_id)
        (completed,) = await self.run_batch([request], signal, on_event=relay)
        return completed

    async def events(
        self, requests: Sequence[ToolCallRequest], signal: AbortSignal | None = None
    ) -> AsyncIterator[ToolCallEvent]:
        """The batch's events as they happen; the last ones carry the completed calls."""
        import asyncio

        queue: asyncio.Queue[ToolCallEvent | None] = asyncio.Queue()
        task = asyncio.ensure_future(self.run_batch(requests, signal, on_event=queue.put_nowait))
        task.add_done_callback(lambda _t: queue.put_nowait(None))
        try:
            while (event := await queue.get()) is not None:
                yield event
            task.result()
        finally:
            if not task.done():
                task.cancel()
