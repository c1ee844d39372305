"""``run_shell_command``: run a bash command in the foreground or as a background shell.

Behaviour follows Qwen Code 0.24.4 (``tools/shell.ts``); the process handling itself is in
:mod:`qwen_tools.shell.execution`, the output handling in :mod:`qwen_tools.shell.output` and
the background shells in :mod:`qwen_tools.shell.background`.

* **Validation**, in the reference's order: the command guards of
  :func:`~qwen_tools.shell.command_analysis.validate_shell_command` (empty command, killing every
  node process, a bare trailing ``&`` in background mode, no command root), the timeout, the
  directory (absolute, not in the user skills directories, inside the workspace), and last the
  foreground ``sleep`` block.
* **Confirmation**: none for read-only commands without command substitution that name no path
  outside the workspace and run no git whose repository configuration names a program
  (:func:`~qwen_tools.shell.command_analysis.read_only_refusal`); otherwise an exec
  confirmation naming the roots of the commands that are not read-only (all roots when every one
  is), with the substitution warning when there is substitution (the pipeline never pre-approves
  those). A command that ran as read-only is checked again right before it starts (a verdict
  never outlives the moment of use), and its git runs with ``core.fsmonitor``/``core.hooksPath``
  switched off.
* **Foreground**: the 7-line ``Command/Directory/Output/Error/Exit Code/Signal/Process Group PGID``
  block (PGID is always ``(none)`` without a PTY), or the timeout and cancellation texts; an
  over-budget block (30,000 chars, or ``tools.truncateToolOutputThreshold`` when set) is saved to
  ``<project tmp>/run_shell_command_<hex>.output`` and replaced by a 4,000-char head + tail
  preview (``output_budget_applied`` is set, so the generic budget leaves it alone); a run that
  took at least half its timeout (≥ 1 s) gets the reference's "ran for Ns" note.
* **Errors**: ``shell_execute_error`` for a spawn error, a signal, an exit code ≥ 2, or exit
  code 1 unless the last command of a pipeline is ``grep``, ``rg``, ``diff``, ``test``, ``[`` or
  ``[[``; the message is the block itself (a spawn error: Node's ``spawn bash ENOENT``). A
  timeout is ``execution_timeout`` and its message is the whole timeout text, which is what
  Qwen Code's scheduler sends the model for timeouts.
* **Sandbox**: with ``tools.sandbox = "bwrap"`` the command runs inside bubblewrap (writable:
  the workspace, the project temp dir and ``/tmp``; network per ``tools.sandboxNetwork``).

Not reproduced: the ``git commit`` co-author trailer and ``gh pr create`` attribution, the
``sed -i`` edit simulation, PTY mode, and the interactive timeout warning / heartbeat.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any, ClassVar, Literal

import anyio

from qwen_tools.config.config import Config
from qwen_tools.contract.abort import AbortSignal
from qwen_tools.contract.confirmation import ExecConfirmationDetails
from qwen_tools.contract.declarative import BaseDeclarativeTool
from qwen_tools.contract.errors import ToolErrorType
from qwen_tools.contract.invocation import BaseToolInvocation, ToolInvocation, UpdateOutput
from qwen_tools.contract.kinds import Kind
from qwen_tools.contract.results import ToolResult
from qwen_tools.contract.tool_names import ToolDisplayNames, ToolNames
from qwen_tools.jscompat.jstext import js_trim
from qwen_tools.shell.command_analysis import (
    SUBSTITUTION_WARNING,
    analyze_command,
    foreground_sleep_rejection,
    read_only_refusal,
    strip_trailing_ampersand,
    validate_command_text,
)
from qwen_tools.shell.execution import run_foreground, shell_argv, shell_env
from qwen_tools.shell.git_config_risk import with_neutral_git_config
from qwen_tools.shell.sandbox import SandboxPolicy, SandboxUnavailable, wrap_command
from qwen_tools.tools.common.paths import is_outside
from qwen_tools.tools.shell.params import ShellParams
from qwen_tools.tools.shell.result import (
    background_started,
    build_result,
    git_commit_refused,
    runs_git_commit,
)

__all__ = ["ShellParams", "ShellTool", "shell_output_threshold"]

DEFAULT_SHELL_OUTPUT_THRESHOLD = 30_000
DEFAULT_FOREGROUND_TIMEOUT_MS = 120_000
MAX_TIMEOUT_MS = 600_000

CANCELLED_BEFORE_START = "Command was cancelled by user before it could start."
SANDBOX_SETUP_FAILED = (
    "Sandbox payload did not run: setup failed before execution (bubblewrap or the payload "
    "binary may be missing)."
)

_DESCRIPTION = """\
Runs a command with bash (as `bash -c <command>`) and returns what it printed with its exit \
status. Use it for terminal work such as git, package managers, builds, tests and containers; \
for reading, searching, editing or writing files use the dedicated file tools instead.

- The command runs in the project root unless `directory` names another absolute directory \
inside the workspace. Prefer absolute paths over `cd`.
- Foreground commands time out after 120000 ms by default; `timeout` accepts up to 600000 ms. \
Commands that keep running (dev servers, watchers, long test loops) belong in the background: \
set `is_background: true` (do not append `&`). A background command returns at once with its \
id, an output file and a status file; read the status file to learn whether it is still \
running, and stop it with the `task_stop` tool.
- Every command leads its own process group (`kill -- -PGID` ends it and its children). Never \
kill all node processes (`pkill node`, `killall node`); stop one PID or one group.
- Quote arguments that contain shell metacharacters; a quoted heredoc is the safest way to pass \
long multi-line text.
- Chain dependent commands with `&&`; send independent commands as separate calls.
- Standalone `sleep` of 2 s or more is refused in the foreground; add a trailing \
`# intentional-sleep: <reason>` when a deliberate pause is really needed.
- Output longer than the budget is saved to a file and shown as its beginning and end.
"""

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "command": {
            "type": "string",
            "description": "The bash command to run, exactly as `bash -c <command>` will get it.",
        },
        "is_background": {
            "type": "boolean",
            "description": "Run the command as a background shell and return immediately "
            "(for servers, watchers and other long-running processes). Defaults to false.",
        },
        "timeout": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_TIMEOUT_MS,
            "description": "Foreground time limit in milliseconds (1 to 600000; default 120000).",
        },
        "description": {
            "type": "string",
            "description": "A short, single-line summary of what the command does, for the user.",
        },
        "directory": {
            "type": "string",
            "description": "Absolute path of an existing directory inside the workspace to run "
            "the command in. Defaults to the project root.",
        },
    },
    "required": ["command"],
}


def shell_output_threshold(config: Config) -> float:
    """30,000 chars, or ``tools.truncateToolOutputThreshold`` when it was set (≤ 0: no limit)."""
    settings = config.settings
    if config.loaded_settings is not None:
        explicit = config.loaded_settings.get(("tools", "truncateToolOutputThreshold")) is not None
    else:
        explicit = settings.truncate_tool_output_threshold != 25_000
    if not explicit:
        return DEFAULT_SHELL_OUTPUT_THRESHOLD
    value = settings.truncate_tool_output_threshold
    return math.inf if value <= 0 else value


class ShellInvocation(BaseToolInvocation[ShellParams]):
    """One validated ``run_shell_command`` call."""

    def __init__(self, config: Config, params: ShellParams, threshold: float) -> None:
        super().__init__(params)
        self.config = config
        self.threshold = threshold
        self.runs_as_read_only = False
        """Set when the command was let through without approval because it only reads."""

    def get_description(self) -> str:
        """``<command> [in <dir>] [background]|[timeout: Nms] (<description>)``."""
        params = self.params
        text = str(params["command"])
        if params.get("directory"):
            text += f" [in {params['directory']}]"
        if params.get("is_background"):
            text += " [background]"
        elif params.get("timeout"):
            text += f" [timeout: {params['timeout']}ms]"
        if params.get("description"):
            text += f" ({str(params['description']).replace(chr(10), ' ')})"
        return text

    async def should_confirm_execute(
        self, signal: AbortSignal
    ) -> ExecConfirmationDetails | Literal[False]:
        """Ask unless the command only reads, inside the workspace, with a clean git config."""
        analysis = analyze_command(self.params["command"])
        if (
            analysis.is_read_only
            and not analysis.has_command_substitution
            and await anyio.to_thread.run_sync(self._read_only_refusal) is None
        ):
            self.runs_as_read_only = True
            return False
        return ExecConfirmationDetails(
            title="Confirm Shell Command",
            command=self.params["command"],
            root_commands=analysis.non_read_only_roots or analysis.roots,
            warnings=(SUBSTITUTION_WARNING,) if analysis.has_command_substitution else (),
        )

    def _read_only_refusal(self) -> str | None:
        inside = self.config.workspace.is_path_within_workspace
        return read_only_refusal(self.params["command"], self.cwd, inside)

    async def _still_read_only(self) -> ToolResult | None:
        """The refusal when a command let through as read-only no longer is (else ``None``)."""
        if not self.runs_as_read_only:
            return None
        refusal = await anyio.to_thread.run_sync(self._read_only_refusal)
        if refusal is None:
            return None
        message = (
            "Command was not run: it was approved to run without confirmation as read-only, "
            f"but {refusal}. Call it again to ask the user."
        )
        return ToolResult.failure(message, ToolErrorType.EXECUTION_DENIED)

    def _env(self) -> dict[str, str]:
        env = shell_env(self.config.session_id, base=self.config.command_env)
        return with_neutral_git_config(env) if self.runs_as_read_only else env

    @property
    def cwd(self) -> str:
        """``directory`` when given, else the project root."""
        return str(self.params.get("directory") or self.config.target_dir)

    async def execute(
        self, signal: AbortSignal, update_output: UpdateOutput | None = None
    ) -> ToolResult:
        """Run the command in the foreground or start it as a background shell."""
        if signal.aborted:
            return ToolResult(
                llm_content=CANCELLED_BEFORE_START, return_display="Command cancelled by user."
            )
        refused = await self._still_read_only()
        if refused is not None:
            return refused
        if self.params.get("is_background"):
            return await self._background()
        return await self._foreground(signal, update_output)

    def _timeout_ms(self) -> int:
        if self.params.get("timeout") is not None:
            return int(self.params["timeout"])
        configured = self.config.settings.shell_default_timeout_ms
        if isinstance(configured, int) and 0 <= configured <= 2**31 - 1:
            return configured
        return DEFAULT_FOREGROUND_TIMEOUT_MS

    def _argv(self, command: str) -> list[str] | ToolResult:
        """``bash -c <command>``, wrapped in bubblewrap when ``tools.sandbox`` is ``"bwrap"``."""
        argv = shell_argv(command)
        if self.config.settings.sandbox != "bwrap":
            return argv
        temp = self.config.get_project_temp_dir()
        policy = SandboxPolicy.for_workspace(
            (str(d) for d in self.config.workspace.directories),
            project_temp_dir=temp,
            allow_network=self.config.settings.sandbox_network,
        )
        try:
            temp.mkdir(parents=True, exist_ok=True)
            return wrap_command(argv, policy, cwd=self.cwd)
        except (SandboxUnavailable, OSError) as exc:
            return ToolResult.failure(
                SANDBOX_SETUP_FAILED,
                ToolErrorType.SHELL_EXECUTE_ERROR,
                display=f"{SANDBOX_SETUP_FAILED}\n{exc}",
            )

    async def _foreground(
        self, signal: AbortSignal, update_output: UpdateOutput | None
    ) -> ToolResult:
        argv = self._argv(js_trim(self.params["command"]))
        if isinstance(argv, ToolResult):
            return argv
        timeout = self._timeout_ms()
        run = await run_foreground(
            argv,
            cwd=self.cwd,
            env=self._env(),
            signal=signal,
            timeout_ms=timeout,
            on_output=update_output,
        )
        return await build_result(self.config, self.params, run, timeout, self.threshold)

    async def _background(self) -> ToolResult:
        if runs_git_commit(analyze_command(self.params["command"]).stripped_command):
            return git_commit_refused()
        command = strip_trailing_ampersand(js_trim(self.params["command"]))
        argv = self._argv(command)
        if isinstance(argv, ToolResult):
            return argv
        output_dir = (
            self.config.get_project_temp_dir() / "background-shells" / self.config.session_id
        )
        entry = await self.config.session.background_shells.start(
            command,
            argv=argv,
            cwd=self.cwd,
            env=self._env(),
            output_dir=output_dir,
        )
        return background_started(entry)


class ShellTool(BaseDeclarativeTool[ShellParams]):
    """The ``run_shell_command`` tool (display name ``Shell``, kind ``execute``)."""

    Name: ClassVar[str] = ToolNames.SHELL

    def __init__(self, config: Config) -> None:
        super().__init__(
            self.Name,
            ToolDisplayNames.SHELL,
            _DESCRIPTION,
            Kind.EXECUTE,
            _SCHEMA,
            is_output_markdown=False,
            can_update_output=True,
        )
        self.config = config
        self.threshold = shell_output_threshold(config)
        self.max_output_chars = self.threshold

    def is_concurrency_safe(self, params: ShellParams) -> bool:
        """Whether this command may run alongside other safe calls.

        Qwen Code's scheduler uses a narrower read-only test here than the permission check
        (fewer programs, no ``bash -c`` wrapper, no assignments); the analysis computes it.
        """
        return analyze_command(str(params.get("command", ""))).concurrency_safe

    def validate_tool_param_values(self, params: ShellParams) -> str | None:
        """The reference's checks, in its order (the sleep block comes last)."""
        command = str(params["command"])
        background = bool(params.get("is_background"))
        error = validate_command_text(command, is_background=background)
        if error is not None:
            return error
        timeout = params.get("timeout")
        if timeout is not None:
            if not isinstance(timeout, int) or isinstance(timeout, bool):
                return "Timeout must be an integer number of milliseconds."
            if timeout <= 0:
                return "Timeout must be a positive number."
            if timeout > MAX_TIMEOUT_MS:
                return "Timeout cannot exceed 600000ms (10 minutes)."
        directory = params.get("directory")
        if directory:
            error = self._check_directory(str(directory))
            if error is not None:
                return error
        return None if background else foreground_sleep_rejection(command)

    def _check_directory(self, directory: str) -> str | None:
        if not os.path.isabs(directory):
            return "Directory must be an absolute path."
        resolved = os.path.normpath(directory)
        home = Path(os.path.expanduser("~"))
        for skills in (self.config.home_dir / "skills", home / ".agents" / "skills"):
            root = os.path.normpath(str(skills))
            if resolved == root or resolved.startswith(root + os.sep):
                return (
                    "Explicitly running shell commands from within the user skills directory is "
                    "not allowed. Please use absolute paths for command parameter instead."
                )
        if is_outside(self.config, directory):
            return f"Directory '{directory}' is not within any of the registered workspace directories."
        return None

    def create_invocation(self, params: ShellParams) -> ToolInvocation[ShellParams]:
        """Build the invocation for validated params."""
        return ShellInvocation(self.config, params, self.threshold)
