"""``DiscoveredTool``: a tool found by ``tools.discoveryCommand`` and run by ``tools.callCommand``.

The tool's name and display name are the declared name; its kind is ``other`` and its output is
plain text. The description is the declared one followed by a note (in our words) saying which
commands run and how a failed call is reported.

**A call** runs ``shlex.split(tools.callCommand) + [<tool name>]`` without a shell, in the
project root, in its own process group, with the params as JSON on stdin (then closed). It is
bounded by a timeout (:data:`DEFAULT_CALL_TIMEOUT_S`, 120 s) and by a 10 MiB cap per stream;
either, like the abort signal, kills the whole group.

* **Success** (exit code 0, no signal): the result is stdout verbatim (an empty stdout becomes the
  scheduler's ``(<name> completed with no output)``).
* **Failure** (anything else): ``llm_content``, the display and ``error.message`` are the
  reference's block, with type ``discovered_tool_execution_error``::

      Stdout: <stdout or (empty)>
      Stderr: <stderr or (empty)>
      Error: <error or (none)>
      Exit Code: <exit code or (none)>
      Signal: <signal name or (none)>

  Nothing is stripped, so a trailing newline of stdout or stderr stays in the block. The signal is
  named as Node names it (``SIGKILL``), which is what 0.24.4 prints; a program that cannot be
  started gives ``Error: Error: spawn <program> ENOENT`` and ``Exit Code: -2``, also as 0.24.4.

Deliberate differences from Qwen Code 0.24.4 (framework spec §9 item 3):

* ``tools.callCommand`` is split with :mod:`shlex`, so ``python3 tools.py --call`` works
  (0.24.4 takes the whole string as the program's path and fails with ENOENT);
* timeout, abort (kills the process group) and output cap (0.24.4 has none of them);
* **stderr with exit code 0 is a success.** 0.24.4 treats any stderr output as a failure, but the
  documented protocol (output on stdout) never says so, and interpreters and libraries print
  warnings and logs on stderr (Python's ``warnings`` and ``logging``, Node's deprecation
  notices), which made working calls fail. The stderr text is not lost: it is appended to the
  result after a ``Stderr:`` label (on its own line). Set :attr:`DiscoveredTool.stderr_is_failure`
  to get 0.24.4's rule back;
* the call asks for confirmation (an ``info`` confirmation) unless ``tools.allowed`` or an
  "always allow" answer covers it or the approval mode lets it through (0.24.4's default
  permission for it is ``allow``).
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING, Any, Literal

from qwen_tools.contract.confirmation import InfoConfirmationDetails
from qwen_tools.contract.declarative import BaseDeclarativeTool
from qwen_tools.contract.errors import ToolErrorType
from qwen_tools.contract.invocation import BaseToolInvocation, UpdateOutput
from qwen_tools.contract.kinds import Kind
from qwen_tools.contract.results import ToolResult
from qwen_tools.discovery.process import MAX_STREAM_BYTES, CommandRun, run_command, signal_name
from qwen_tools.jscompat.jsjson import js_stringify

if TYPE_CHECKING:
    from qwen_tools.config.config import Config
    from qwen_tools.contract.abort import AbortSignal

__all__ = [
    "DEFAULT_CALL_TIMEOUT_S",
    "DiscoveredTool",
    "DiscoveredToolInvocation",
    "call_failure_block",
    "discovered_tool_suffix",
    "params_json",
]

DEFAULT_CALL_TIMEOUT_S = 120.0

_SUFFIX = """

This tool was found by running {discovery} in the project root.
{call}
The discovery and call commands are set in the project or user settings \
(`tools.discoveryCommand`, `tools.callCommand`).

The call command runs as a subprocess. When it exits with code 0, the result is what it printed \
on stdout, as is (anything it printed on stderr follows on a `Stderr:` line).
When it fails, the result is instead this block:

Stdout: what it printed on stdout, `(empty)` if nothing; may be partial.
Stderr: what it printed on stderr, `(empty)` if nothing; may be partial.
Error: why it could not start or was stopped, or `(none)`.
Exit Code: its exit code, or `(none)` when a signal ended it.
Signal: the name of the signal that ended it (such as `SIGTERM`), or `(none)`.
"""


def discovered_tool_suffix(
    discovery_command: str | None, call_command: str | None, name: str
) -> str:
    """The note appended to a discovered tool's description."""
    discovery = f"`{discovery_command}`" if discovery_command else "the discovery command"
    if call_command:
        call = (
            f"Calling it runs `{call_command} {shlex.quote(name)}` in the project root, "
            "with the call's arguments as a JSON object on stdin."
        )
    else:
        call = "No call command is configured (`tools.callCommand`), so calling it fails."
    return _SUFFIX.format(discovery=discovery, call=call)


def call_failure_block(
    stdout: str, stderr: str, error: str | None, exit_code: int | None, signal: int | None
) -> str:
    """The reference's five-line failure text (nothing stripped)."""
    return "\n".join(
        [
            f"Stdout: {stdout or '(empty)'}",
            f"Stderr: {stderr or '(empty)'}",
            f"Error: {error or '(none)'}",
            f"Exit Code: {'(none)' if exit_code is None else exit_code}",
            f"Signal: {'(none)' if signal is None else signal_name(signal)}",
        ]
    )


def params_json(params: Any) -> str:
    """Compact JSON, non-ASCII kept, as ``JSON.stringify`` writes it."""
    return js_stringify(params)


class DiscoveredTool(BaseDeclarativeTool[dict[str, Any]]):
    """A project tool declared by ``tools.discoveryCommand`` (see the module docstring)."""

    stderr_is_failure: bool = False
    """``True`` restores 0.24.4's rule: any stderr output makes the call a failure."""

    def __init__(
        self,
        config: Config,
        name: str,
        description: str,
        parameter_schema: dict[str, Any],
        *,
        timeout_s: float = DEFAULT_CALL_TIMEOUT_S,
    ) -> None:
        settings = config.settings
        super().__init__(
            name,
            name,
            description
            + discovered_tool_suffix(settings.discovery_command, settings.call_command, name),
            Kind.OTHER,
            parameter_schema,
            is_output_markdown=False,
        )
        self.config = config
        self.declared_description = description
        self.timeout_s = timeout_s

    def create_invocation(self, params: dict[str, Any]) -> DiscoveredToolInvocation:
        """One call with validated params."""
        return DiscoveredToolInvocation(self, params)

    def call_argv(self) -> list[str] | str:
        """The argv of a call, or why there is none."""
        command = self.config.settings.call_command
        if not command:
            return "No tool call command is configured (tools.callCommand)."
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            return f"Tool call command could not be split into arguments: {exc}"
        if not argv:
            return "Tool call command is empty or contains only whitespace."
        return [*argv, self.name]


class DiscoveredToolInvocation(BaseToolInvocation[dict[str, Any]]):
    """One call of a :class:`DiscoveredTool`."""

    def __init__(self, tool: DiscoveredTool, params: dict[str, Any]) -> None:
        super().__init__(params)
        self.tool = tool

    def get_description(self) -> str:
        """The params as compact JSON (as the reference describes these calls)."""
        return params_json(self.params)

    async def should_confirm_execute(
        self, signal: AbortSignal
    ) -> InfoConfirmationDetails | Literal[False]:
        """Always ask; ``tools.allowed``, "always allow" and the approval mode may waive it."""
        return InfoConfirmationDetails(
            title=f"Confirm {self.tool.display_name}", prompt=self.get_description()
        )

    async def execute(
        self, signal: AbortSignal, update_output: UpdateOutput | None = None
    ) -> ToolResult:
        """Run the call command and turn its outcome into a result."""
        argv = self.tool.call_argv()
        if isinstance(argv, str):
            return _failure(call_failure_block("", "", argv, None, None))
        if signal.aborted:
            return _failure(
                call_failure_block("", "", "The call was cancelled before it started.", None, None)
            )
        run = await run_command(
            argv,
            cwd=str(self.tool.config.target_dir),
            input_data=params_json(self.params).encode(),
            timeout_s=self.tool.timeout_s,
            signal=signal,
        )
        return self._result(run)

    def _result(self, run: CommandRun) -> ToolResult:
        if run.succeeded and not (self.tool.stderr_is_failure and run.stderr):
            text = run.stdout
            if run.stderr:
                separator = "\n" if text and not text.endswith("\n") else ""
                text = f"{text}{separator}Stderr: {run.stderr}"
            return ToolResult(llm_content=text, return_display=text)
        block = call_failure_block(
            run.stdout, run.stderr, self._error_text(run), run.exit_code, run.signal
        )
        return _failure(block)

    def _error_text(self, run: CommandRun) -> str | None:
        if run.spawn_error is not None:
            return f"Error: {run.spawn_error}"
        if run.overflow:
            return f"Tool call command output exceeded size limit of {MAX_STREAM_BYTES} bytes."
        if run.timed_out:
            return (
                f"Tool call command timed out after {self.tool.timeout_s:g} s; "
                "its process group was killed."
            )
        if run.aborted:
            return "The call was cancelled; its process group was killed."
        return None


def _failure(block: str) -> ToolResult:
    return ToolResult.failure(block, ToolErrorType.DISCOVERED_TOOL_EXECUTION_ERROR)
