"""``SessionHost``: the sessions of one process, each in a workspace of its own.

A pool worker is one of these behind a Ray actor; the rollout runner uses one directly when
it runs without Ray. Each session gets ``sessions/<id>/workspace`` (a copy of its template)
and its own ``QWEN_HOME``; the host's settings (``settings=``) are written as the system
settings file every session reads last.

A template is untrusted content (a repository from the internet, in RL and evaluation), so it
configures nothing: sessions are opened with ``workspace_settings=False``
(:class:`~qwen_tools.Session`), and the workspace's ``.qwen/settings.json`` (hooks, MCP servers,
discovery commands, approval mode, permission rules, ``env``...), ``.mcp.json``, ``.lsp.json``
and ``.qwen/agents`` are never read, neither as the template has them nor as the model writes
them during the session (hooks and MCP servers would run in this process, outside the shell's
sandbox). The host's own settings apply in full. ``QWEN.md`` context files are still read, as
text for the model, by an agent loop on the session (the rollout runner), but only where their
real path is inside the workspace (:mod:`qwen_tools.agent.context`).

Where bubblewrap works, the host's settings turn the shell sandbox on and the host confines
it (:func:`~qwen_tools.shell.sandbox.confine_workspaces`): a session's commands may write only
its workspace (and its own temp dir and a private ``/tmp``), and see no other session's files. The file tools are confined to the workspace already.

A session's commands do not inherit this process's environment (API keys, credentials): they
get its plain variables only, or exactly ``command_env=`` (:mod:`.command_env`). The sandbox
confines writes, not reads: the rest of the host's file system stays readable to commands, so
keep secrets out of the workers' files (containers or a dedicated user).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import tempfile
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from qwen_tools.config.tool_settings import ApprovalMode
from qwen_tools.execution.call_types import CompletedToolCall, ToolCallRequest
from qwen_tools.pool.errors import SessionLost
from qwen_tools.pool.template import Template
from qwen_tools.pool.workspace import Baseline, TemplateCache
from qwen_tools.session.session import Session

__all__ = ["HostedSession", "SessionHost", "detach"]


def detach(done: CompletedToolCall) -> CompletedToolCall:
    """``done`` without its tool object (which holds the session): what crosses a process."""
    return replace(done, tool=None)


@dataclass
class HostedSession:
    """One open session of the host, its workspace and its template's baseline."""

    session: Session
    directory: Path
    baseline: Baseline

    @property
    def workspace(self) -> Path:
        """The session's workspace directory."""
        return self.directory / "workspace"


class SessionHost:
    """Opens, runs and closes many :class:`~qwen_tools.Session` objects in this process."""

    def __init__(
        self,
        root: str | os.PathLike[str] | None = None,
        *,
        settings: Mapping[str, Any] | None = None,
        sandbox: bool | None = None,
        hide: str | os.PathLike[str] | None = None,
        command_env: Mapping[str, str] | None = None,
    ) -> None:
        """``root``: where workspaces live (default: a new temporary directory, removed by
        :meth:`aclose`); ``settings``: settings every session gets (as system settings);
        ``sandbox``: run shells in the confined bwrap sandbox (default: where bwrap works);
        ``hide``: the directory sandboxed commands cannot see (default: ``root``; a pool worker
        hides the directory of every worker on its node); ``command_env``: the environment of
        the sessions' commands (default: this process's plain variables, no secrets)."""
        from qwen_tools.pool.command_env import command_env as commands_environment
        from qwen_tools.shell.sandbox import bwrap_path, confine_workspaces

        self._command_env = commands_environment(command_env)

        self._owns_root = root is None
        self.root = Path(tempfile.mkdtemp(prefix="qwen-pool-") if root is None else root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.root = self.root.resolve()
        self.sandboxed = bwrap_path() is not None if sandbox is None else sandbox
        merged: dict[str, Any] = json.loads(json.dumps(dict(settings or {})))
        if self.sandboxed:
            merged.setdefault("tools", {})["sandbox"] = "bwrap"
            confine_workspaces(self.root if hide is None else hide)
        self._settings_file = self.root / "system-settings.json"
        self._settings_file.write_text(json.dumps(merged), encoding="utf-8")
        self._templates = TemplateCache(self.root)
        self._sessions: dict[str, HostedSession] = {}
        self._lock = asyncio.Lock()

    def __len__(self) -> int:
        return len(self._sessions)

    def has_template(self, template_id: str) -> bool:
        """Whether ``template_id`` is prepared here (its archive need not be sent again)."""
        return template_id in self._templates

    def _env(self, directory: Path) -> dict[str, str]:
        env = dict(os.environ)
        env["QWEN_HOME"] = str(directory / "home")
        env["QWEN_CODE_SYSTEM_SETTINGS_PATH"] = str(self._settings_file)
        env["QWEN_CODE_SYSTEM_DEFAULTS_PATH"] = str(self.root / "system-defaults.json")
        return env

    async def open(
        self,
        template: Template,
        *,
        approval_mode: ApprovalMode | str | None = None,
        session_id: str | None = None,
    ) -> str:
        """A new session on a fresh copy of ``template``; its id."""
        sid = session_id or uuid.uuid4().hex
        if sid in self._sessions:
            raise ValueError(f"session {sid} is already open")
        async with self._lock:  # prepares each template once, even under concurrent opens
            baseline = self._templates.get(template) if template.id not in self._templates else None
            if baseline is None:
                baseline = await asyncio.to_thread(self._templates.get, template)
        directory = self.root / "sessions" / sid
        await asyncio.to_thread(baseline.materialize, directory / "workspace")
        (directory / "home").mkdir()
        session = Session(
            directory / "workspace",
            approval_mode=approval_mode,
            env=self._env(directory),
            workspace_settings=False,  # the template is untrusted: it configures nothing
            command_env=self._command_env,
        )
        try:
            await session.__aenter__()
        except BaseException:
            shutil.rmtree(directory, ignore_errors=True)
            raise
        self._sessions[sid] = HostedSession(session, directory, baseline)
        return sid

    def hosted(self, session_id: str) -> HostedSession:
        """The open session ``session_id``; :class:`SessionLost` when it is not open here."""
        found = self._sessions.get(session_id)
        if found is None:
            raise SessionLost(
                session_id,
                "it is not open on this worker (closed, or the worker "
                "was restarted after a failure)",
            )
        return found

    def session(self, session_id: str) -> Session:
        """The :class:`~qwen_tools.Session` itself."""
        return self.hosted(session_id).session

    def workspace(self, session_id: str) -> Path:
        """The session's workspace directory."""
        return self.hosted(session_id).workspace

    async def call(
        self,
        session_id: str,
        name: str,
        args: Mapping[str, Any] | None = None,
        call_id: str = "call_1",
    ) -> CompletedToolCall:
        """One call, as :meth:`Session.call` (without the tool object)."""
        return detach(await self.session(session_id).call(name, args, call_id=call_id))

    async def batch(
        self, session_id: str, requests: Sequence[ToolCallRequest]
    ) -> list[CompletedToolCall]:
        """One batch, as :meth:`Session.run_batch`."""
        done = await self.session(session_id).run_batch(list(requests))
        return [detach(item) for item in done]

    async def diff(self, session_id: str) -> str:
        """The workspace's changes against its template, as a unified (git, binary) diff."""
        hosted = self.hosted(session_id)
        index = hosted.directory / "index"
        return await asyncio.to_thread(hosted.baseline.diff, hosted.workspace, index)

    async def run(self, session_id: str, fn: Callable[..., Awaitable[Any]], *args: Any) -> Any:
        """``await fn(session, workspace, *args)`` here, next to the session."""
        hosted = self.hosted(session_id)
        return await fn(hosted.session, hosted.workspace, *args)

    async def close(self, session_id: str) -> None:
        """Close the session and delete its directory (a no-op when it is not open)."""
        hosted = self._sessions.pop(session_id, None)
        if hosted is None:
            return
        try:
            await hosted.session.aclose()
        finally:
            await asyncio.to_thread(shutil.rmtree, hosted.directory, True)

    async def aclose(self) -> None:
        """Close every session (and remove the root when the host made it)."""
        for sid in list(self._sessions):
            await self.close(sid)
        if self.sandboxed:
            from qwen_tools.shell.sandbox import confine_workspaces

            confine_workspaces(None)
        if self._owns_root:
            await asyncio.to_thread(shutil.rmtree, self.root, True)
