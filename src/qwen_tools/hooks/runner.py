"""One command hook as a subprocess, its answer read as Qwen Code 0.24.4 reads it.

The command runs as ``bash -c <command>`` in the project directory, in its own process group,
with the event's JSON on stdin (then closed) and the environment of the session (internal
secrets removed) plus ``QWEN_PROJECT_DIR``, ``CLAUDE_PROJECT_DIR`` and ``GEMINI_PROJECT_DIR`` (the
project directory), ``QWEN_CODE_SESSION_ID`` and the hook's own ``env``. stdout and stderr keep
1 MiB each. The run is bounded by the hook's timeout (60 s by default) and by the abort
signal; either ends the whole process tree (``SIGTERM``, then ``SIGKILL``) through
:func:`~qwen_tools.shell.command_run.run_command`, which the discovery command uses too.

Exit codes and output:

* ``0``: stdout (else stderr) that is a JSON object is the hook's output; a JSON string holding
  an object is read once more. Other text is plain: on SessionStart and UserPromptSubmit it
  becomes ``additionalContext`` (ANSI escapes stripped), elsewhere a ``systemMessage``. Text
  that starts with ``{`` but is not JSON is an error and gives no output ("one clear answer").
* ``2``: a blocking error: stdout is ignored; stderr is the output if it is a JSON object, else
  ``{"decision": "deny", "reason": <stderr>}`` (an empty stderr gives no output).
* anything else, a signal, or a command that cannot start: a non-blocking error; text becomes
  ``{"reason": "Non-blocking error: <text>", "systemMessage": "Warning: <text>"}``.
* a timeout or an abort: no output (``Hook timed out after <N>s``).

Unlike the reference, text that is not JSON never carries ``decision: "allow"``, so a hook that
crashes or prints prose cannot approve a tool call (here a PreToolUse ``allow`` skips the prompt).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from qwen_tools.contract.abort import AbortSignal
from qwen_tools.hooks.settings import CommandHook
from qwen_tools.shell.command_run import child_env, run_command
from qwen_tools.shell.output import strip_ansi

__all__ = ["MAX_OUTPUT_BYTES", "HookRun", "format_seconds", "read_hook_output", "run_hook"]

MAX_OUTPUT_BYTES = 1024 * 1024
PLAIN_TEXT_CONTEXT_EVENTS = frozenset({"SessionStart", "UserPromptSubmit", "UserPromptExpansion"})

Outcome = Literal["success", "blocking", "non_blocking_error", "timeout", "cancelled"]


@dataclass(frozen=True)
class HookRun:
    """How one hook ended and what it answered."""

    hook: CommandHook
    outcome: Outcome
    output: Mapping[str, Any] | None = None
    error: str | None = None
    exit_code: int | None = None
    stdout: str = ""
    stderr: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def success(self) -> bool:
        return self.outcome == "success"


def format_seconds(ms: int) -> str:
    """``ms / 1000`` as JavaScript prints a number (``60``, ``0.5``)."""
    seconds = ms / 1000
    return str(int(seconds)) if seconds == int(seconds) else repr(seconds)


def _no_constants(name: str) -> Any:
    raise ValueError(name)


def _json(text: str) -> tuple[bool, Any]:
    try:
        value = json.loads(text, parse_constant=_no_constants)
        if isinstance(value, str):
            value = json.loads(value, parse_constant=_no_constants)
    except ValueError:
        return False, None
    return True, value


def _plain(text: str, code: int | None, event: str | None) -> dict[str, Any]:
    if code == 0:
        if event in PLAIN_TEXT_CONTEXT_EVENTS:
            clean = "\n".join(strip_ansi(line) for line in text.split("\n"))
            return {
                "reason": "Hook executed successfully",
                "hookSpecificOutput": {"hookEventName": event, "additionalContext": clean},
            }
        return {"reason": "Hook executed successfully", "systemMessage": text}
    if code == 2:
        return {"decision": "deny", "reason": text}
    return {"reason": f"Non-blocking error: {text}", "systemMessage": f"Warning: {text}"}


def read_hook_output(
    event: str, exit_code: int | None, stdout: str, stderr: str
) -> tuple[Outcome, Mapping[str, Any] | None, str | None]:
    """The outcome, output and error of a hook that exited (see the module docstring)."""
    blocking = exit_code == 2
    outcome: Outcome = (
        "success" if exit_code == 0 else "blocking" if blocking else "non_blocking_error"
    )
    error = "Hook killed by signal" if exit_code is None else None
    out_text = stdout.strip()
    text = stderr.strip() if blocking else (out_text or stderr.strip())
    if not text:
        return outcome, None, error
    parsed_ok, parsed = _json(text)
    if parsed_ok and isinstance(parsed, dict):
        return outcome, parsed, error
    if not parsed_ok and not blocking and text.startswith("{"):
        return "non_blocking_error", None, "Hook output is not valid JSON"
    code = exit_code if blocking or exit_code == 0 else 1
    from_stdout = not blocking and out_text != ""
    return outcome, _plain(text, code, event if from_stdout else None), error


def hook_env(hook: CommandHook, cwd: str, session_id: str) -> dict[str, str]:
    """The environment of a hook command."""
    env = child_env()
    env.update(
        GEMINI_PROJECT_DIR=cwd,
        CLAUDE_PROJECT_DIR=cwd,
        QWEN_PROJECT_DIR=cwd,
        QWEN_CODE_SESSION_ID=session_id,
    )
    env.update(hook.env)
    return env


async def run_hook(
    hook: CommandHook,
    event: str,
    payload: Mapping[str, Any],
    *,
    cwd: str,
    session_id: str,
    signal: AbortSignal | None = None,
) -> HookRun:
    """Run ``hook`` for ``event`` with ``payload`` on stdin; never raises for the hook's sake."""
    if signal is not None and signal.aborted:
        return HookRun(hook, "cancelled", error=f"Hook execution cancelled (aborted): {hook.label}")
    data = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
    run = await run_command(
        ["bash", "-c", hook.command],
        cwd=cwd if os.path.isdir(cwd) else os.getcwd(),
        env=hook_env(hook, cwd, session_id),
        input_data=data,
        timeout_s=hook.timeout_ms / 1000,
        signal=signal,
        max_stream_bytes=MAX_OUTPUT_BYTES,
        kill_on_overflow=False,
    )
    if run.timed_out or run.aborted:
        ended = (
            "Hook execution cancelled (aborted)"
            if run.aborted
            else f"Hook timed out after {format_seconds(hook.timeout_ms)}s"
        )
        outcome: Outcome = "cancelled" if run.aborted else "timeout"
        return HookRun(hook, outcome, error=ended, stdout=run.stdout, stderr=run.stderr)
    if run.spawn_error is not None:
        return HookRun(hook, "non_blocking_error", error=run.spawn_error)
    outcome, output, error = read_hook_output(event, run.exit_code, run.stdout, run.stderr)
    return HookRun(
        hook,
        outcome,
        output=output,
        error=error,
        exit_code=run.exit_code,
        stdout=run.stdout,
        stderr=run.stderr,
    )
