"""``Config``: the context every tool gets (workspace, ignore rules, limits, approval mode, session).

It is three things: immutable settings (:attr:`Config.settings`, the workspace), the session's
mutable state (:attr:`Config.state`, and the approval mode plan mode changes), and the services
it owns (:attr:`Config.services`: file discovery, the model an agent lends). Nothing is set on it
after it was built except the approval mode.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from qwen_tools.config.file_service import FileDiscoveryService, FileFilteringOptions
from qwen_tools.config.services import ConfigServices
from qwen_tools.config.session import SessionState
from qwen_tools.config.settings import LoadedSettings, load_settings
from qwen_tools.config.tool_settings import ApprovalMode, ToolSettings, parse_tool_settings
from qwen_tools.config.workspace import WorkspaceContext

if TYPE_CHECKING:
    from qwen_tools.model.protocol import ContentGenerator
    from qwen_tools.subagents.protocol import SubagentRunner


def uuid4_hex() -> str:
    """What ``uuid.uuid4().hex`` gives (16 random bytes, version 4, RFC 4122 variant), without
    importing ``uuid``, which imports ``platform``: every command builds a Config at startup."""
    raw = bytearray(os.urandom(16))
    raw[6] = (raw[6] & 0x0F) | 0x40
    raw[8] = (raw[8] & 0x3F) | 0x80
    return raw.hex()


def qwen_home(env: Mapping[str, str] | None = None) -> Path:
    """``~/.qwen``, or ``$QWEN_HOME`` when set."""
    env = os.environ if env is None else env
    override = env.get("QWEN_HOME")
    return (
        Path(override).expanduser() if override else Path(env.get("HOME") or Path.home()) / ".qwen"
    )


def project_temp_dir(target_dir: Path, home_dir: Path) -> Path:
    """``<$QWEN_RUNTIME_DIR or qwen home>/tmp/<sha256 of the project root>``."""
    runtime = os.environ.get("QWEN_RUNTIME_DIR")
    digest = hashlib.sha256(str(target_dir).encode()).hexdigest()
    return (Path(runtime) if runtime else home_dir) / "tmp" / digest


class Config:
    """Workspace context and settings for one session of tool calls.

    Build it with :meth:`load` to read ``settings.json`` files as Qwen Code does, or directly
    with explicit :class:`ToolSettings` (tests, embedding applications).
    """

    def __init__(
        self,
        target_dir: str | os.PathLike[str],
        *,
        settings: ToolSettings | None = None,
        include_directories: Iterable[str | os.PathLike[str]] = (),
        approval_mode: ApprovalMode | None = None,
        home_dir: str | os.PathLike[str] | None = None,
        session_id: str | None = None,
        loaded_settings: LoadedSettings | None = None,
        interactive: bool = True,
        state: SessionState | None = None,
        workspace: WorkspaceContext | None = None,
        file_service: FileDiscoveryService | None = None,
        command_env: Mapping[str, str] | None = None,
    ) -> None:
        """``interactive``: whether a person can answer confirmations (``False`` for headless
        runs and serve); ``state``: the session's mutable state (a fresh one by default, or one
        restored from a named session); ``workspace``: the directories the tools may use, when
        they are not ``target_dir`` and the included ones (a serve client's roots: the settings
        stay those of ``target_dir``, the workspace's first directory becomes the target;
        ``include_directories`` are then ignored); ``file_service``: file discovery for the
        target directory with these settings' ignore files, already made (see
        :meth:`FileDiscoveryService.fresh`); ``command_env``: the environment the commands the
        model runs start from (default: this process's, as Qwen Code does)."""
        self.settings = settings if settings is not None else ToolSettings()
        if workspace is not None:  # its directories are realpath-resolved already
            self.target_dir = workspace.target_dir
            self.workspace = workspace
        else:
            self.target_dir = Path(os.path.realpath(os.fspath(target_dir)))
            extra = [*self.settings.include_directories, *include_directories]
            resolved_extra = [
                Path(os.path.expanduser(os.fspath(d)))
                if os.path.isabs(os.path.expanduser(os.fspath(d)))
                else self.target_dir / os.fspath(d)
                for d in extra
            ]
            self.workspace = WorkspaceContext(self.target_dir, resolved_extra)
        self.loaded_settings = loaded_settings
        self.home_dir = Path(home_dir) if home_dir is not None else qwen_home()
        filtering = self.settings.file_filtering
        self.services = ConfigServices(
            file_service
            if file_service is not None
            else FileDiscoveryService(
                self.target_dir, custom_ignore_files=filtering.custom_ignore_files
            )
        )
        """What the session owns: file discovery, and the model an agent lends (``.model``)."""
        self.file_filtering = FileFilteringOptions(
            respect_git_ignore=filtering.respect_git_ignore,
            respect_qwen_ignore=filtering.respect_qwen_ignore,
        )
        self.approval_mode: ApprovalMode = (
            approval_mode or self.settings.approval_mode or ApprovalMode.DEFAULT
        )
        self.session_id = session_id or uuid4_hex()
        self.session = state if state is not None else SessionState()
        self._temp_dir_cache: tuple[str | None, Path] | None = None
        self._interactive = interactive
        self.command_env: dict[str, str] | None = None if command_env is None else dict(command_env)
        """The environment the model's commands start from; ``None``: this process's."""

    @classmethod
    def load(
        cls,
        cwd: str | os.PathLike[str] | None = None,
        *,
        include_directories: Iterable[str | os.PathLike[str]] = (),
        approval_mode: ApprovalMode | None = None,
        env: Mapping[str, str] | None = None,
        interactive: bool = True,
        session_id: str | None = None,
        state: SessionState | None = None,
        workspace: WorkspaceContext | None = None,
        workspace_settings: bool = True,
        command_env: Mapping[str, str] | None = None,
    ) -> Config:
        """Read the settings files for ``cwd`` (default: the current directory) and build a Config.

        ``workspace``: see :class:`Config` (the settings are still read for ``cwd``);
        ``workspace_settings=False``: the workspace configures nothing (no ``.qwen/settings.json``
        nor ``.mcp.json``; see :func:`~qwen_tools.config.settings.load_settings`).

        Raises :class:`~qwen_tools.SettingsError` naming the file and key on bad input.
        """
        target = Path(os.path.realpath(os.fspath(cwd) if cwd is not None else os.getcwd()))
        home = qwen_home(env)
        loaded = load_settings(
            target, qwen_home_dir=home, env=env, workspace_settings=workspace_settings
        )
        settings = parse_tool_settings(loaded)
        if workspace_settings:
            from qwen_tools.config.project_mcp import with_project_servers

            settings = with_project_servers(settings, loaded, target)
        return cls(
            target,
            settings=settings,
            include_directories=include_directories,
            approval_mode=approval_mode,
            home_dir=home,
            loaded_settings=loaded,
            interactive=interactive,
            session_id=session_id,
            state=state,
            workspace=workspace,
            command_env=command_env,
        )

    @property
    def file_service(self) -> FileDiscoveryService:
        """File discovery with the project's ignore files."""
        return self.services.file_service

    @property
    def content_generator(self) -> ContentGenerator | None:
        """The session's model for one-shot generation (``web_fetch``), lent by an agent."""
        return self.services.model.content_generator

    @property
    def subagent_runner(self) -> SubagentRunner | None:
        """Runs subagents for the ``task`` tool, lent by an agent."""
        return self.services.model.subagent_runner

    @property
    def workspace_settings(self) -> bool:
        """Whether the workspace's own files may configure the session (``.mcp.json``,
        ``.lsp.json``, ``.qwen/agents``): ``False`` when loaded with ``workspace_settings=False``."""
        loaded = self.loaded_settings
        return loaded is None or loaded.workspace_settings

    @property
    def interactive(self) -> bool:
        """Whether a person can answer confirmations (``False`` for headless runs and serve)."""
        return self._interactive

    @property
    def state(self) -> SessionState:
        """The session's mutable state (the same object as :attr:`session`)."""
        return self.session

    # -- limits ---------------------------------------------------------------------------

    @property
    def truncate_tool_output_threshold(self) -> int:
        """Character threshold of the output budget (≤ 0 disables it)."""
        return self.settings.truncate_tool_output_threshold

    @property
    def truncate_tool_output_lines(self) -> int:
        """Line threshold of the output budget (≤ 0 disables it)."""
        return self.settings.truncate_tool_output_lines

    # -- paths ----------------------------------------------------------------------------

    def get_project_temp_dir(self) -> Path:
        """``<qwen home>/tmp/<sha256 of the project root>``, where large outputs are saved."""
        runtime = os.environ.get("QWEN_RUNTIME_DIR")
        cached = self._temp_dir_cache
        if cached is not None and cached[0] == runtime:
            return cached[1]
        path = project_temp_dir(self.target_dir, self.home_dir)
        self._temp_dir_cache = (runtime, path)
        return path

    def workspace_error(self) -> str:
        """The model-facing message for a path outside every workspace directory."""
        dirs = ", ".join(str(d) for d in self.workspace.directories)
        return f"File path must be within one of the workspace directories: {dirs}"

    def describe(self) -> dict[str, Any]:
        """A JSON-friendly summary (for diagnostics)."""
        return {
            "targetDir": str(self.target_dir),
            "workspaceDirectories": [str(d) for d in self.workspace.directories],
            "approvalMode": self.approval_mode.value,
            "sessionId": self.session_id,
        }
