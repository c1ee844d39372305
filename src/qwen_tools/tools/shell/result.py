"""What ``run_shell_command`` returns: the foreground result and the background start block.

The texts are Qwen Code 0.24.4's (``tools/shell.ts``): the 7-line block, the timeout and
cancellation sentences, the long-run note, the background block and the ``git commit`` refusal.
Two lines of the background block name Qwen Code UI features this package does not have (the
``/tasks`` command and the Background tasks dialog); that sentence is shortened to the part that
applies here, reading the output file.
"""

from __future__ import annotations

import math
import os
import shlex

import anyio

from qwen_tools.config.config import Config
from qwen_tools.contract.errors import ToolErrorType
from qwen_tools.contract.results import ToolResult
from qwen_tools.contract.tool_names import ToolNames
from qwen_tools.jscompat.jstext import utf16_len
from qwen_tools.shell.background import BackgroundShell
from qwen_tools.shell.execution import ShellRun
from qwen_tools.shell.output import BINARY_NOTICE, truncate_and_save
from qwen_tools.tools.shell.params import ShellParams

__all__ = [
    "REFUSE_GIT_COMMIT",
    "background_started",
    "build_result",
    "is_exit_error",
    "long_run_hint",
    "runs_git_commit",
]

PREVIEW_CHARS = 4_000
MIN_LONG_RUN_THRESHOLD_MS = 1_000

REFUSE_GIT_COMMIT = (
    "Refusing to run `git commit` in background mode: AI-attribution notes are written by the "
    "foreground completion path. Re-run the commit with is_background=false (or split it out of "
    "the compound command)."
)
REFUSE_GIT_COMMIT_DISPLAY = "Refused: `git commit` is not supported in background shell mode."

_EXIT_ONE_IS_NOT_ERROR = frozenset({"grep", "rg", "diff", "test", "[", "[["})
_PIPE_OPERATORS = frozenset({"|", "|&", "<<<", ">>", ">&", "<&", "<", ">"})
_CONTROL_OPERATORS = frozenset({";", "&&", "||", "&", "|", "|&", ";;", "(", ")"})
_WRAPPERS = frozenset({"sudo", "command", "env"})
_GIT_FLAGS_WITH_VALUE = frozenset(
    {"-c", "-C", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env"}
)


# -- reading commands -----------------------------------------------------------------------------


def _segments(command: str) -> tuple[list[list[str]], list[str]] | None:
    """The words of each top-level simple command and the operators met (``None``: unparsable)."""
    lexer = shlex.shlex(command.replace("\n", " ; "), posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    segments: list[list[str]] = [[]]
    operators: list[str] = []
    try:
        for token in lexer:
            if token and all(ch in "();<>|&" for ch in token):
                operators.append(token)
                if token in _CONTROL_OPERATORS:
                    segments.append([])
            else:
                segments[-1].append(token)
    except ValueError:
        return None
    return [s for s in segments if s], operators


def _words(segment: list[str]) -> list[str]:
    """A simple command's words without leading ``VAR=value`` and a ``sudo``/``env`` wrapper."""
    i = 0
    while i < len(segment) and segment[i].split("=", 1)[0].isidentifier() and "=" in segment[i]:
        i += 1
    if i < len(segment) and segment[i] in _WRAPPERS:
        i += 1
        while i < len(segment) and (segment[i].startswith("-") or "=" in segment[i]):
            i += 1
    return segment[i:]


def is_exit_error(command: str, exit_code: int | None) -> bool:
    """Whether an exit code is a failure: 1 is not after grep, rg, diff, test, ``[`` or ``[[``.

    The command that sets the status is the only one, or the last of a plain pipeline (only
    ``|``, ``|&`` and redirections between the commands); anything else with exit 1 fails.
    """
    if not exit_code:
        return False
    if exit_code >= 2:
        return True
    parsed = _segments(command)
    if parsed is None or not parsed[0]:
        return True
    segments, operators = parsed
    if len(segments) > 1 and (
        not any(op in ("|", "|&") for op in operators)
        or any(op not in _PIPE_OPERATORS for op in operators)
    ):
        return True
    words = _words(segments[-1])
    return not words or os.path.basename(words[0]) not in _EXIT_ONE_IS_NOT_ERROR


def runs_git_commit(command: str) -> bool:
    """Whether one of the command's simple commands is ``git [global flags] commit``."""
    parsed = _segments(command)
    for segment in parsed[0] if parsed else []:
        words = _words(segment)
        if not words or words[0] != "git":
            continue
        i = 1
        while i < len(words) and words[i].startswith("-"):
            i += 2 if words[i] in _GIT_FLAGS_WITH_VALUE else 1
        if i < len(words) and words[i] == "commit":
            return True
    return False


# -- foreground -----------------------------------------------------------------------------------


def long_run_hint(elapsed_ms: float) -> str:
    """The note appended after a long foreground run."""
    seconds = math.floor(elapsed_ms / 1000 + 0.5)
    return (
        f"Note: this foreground command ran for {seconds}s. Next time you run a similar "
        "long-running process (build watchers, dev servers, soak tests, polling loops), pass "
        "`is_background: true` so the agent isn't blocked while the command runs. (This is "
        "forward-looking guidance for FUTURE invocations \u2014 do NOT re-run the command that "
        "just completed; for stateful operations like deploys, migrations, or git push, that "
        "would cause double side effects.) The output of background runs stays inspectable via "
        "/tasks (text, any mode) or the on-disk output file; in interactive mode the Background "
        "tasks dialog also has a per-entry detail view + live updates."
    )


def _llm_text(params: ShellParams, run: ShellRun, summary: str | None) -> str:
    output = run.output
    if summary is not None:
        if output:
            return f"{summary} Below is the output before it timed out:\n{output}"
        return f"{summary} There was no output before it timed out."
    if run.aborted:
        text = "Command was cancelled by user before it could complete."
        if output:
            return f"{text} Below is the output before it was cancelled:\n{output}"
        return f"{text} There was no output before it was cancelled."
    exit_code = "(none)" if run.exit_code is None else run.exit_code
    signal = "(none)" if run.signal is None else run.signal
    # One f-string: the output may be large, so it is copied once, not once per piece.
    return (
        f"Command: {params['command']}\nDirectory: {params.get('directory') or '(root)'}\n"
        f"Output: {output or '(empty)'}\nError: {run.error or '(none)'}\n"
        f"Exit Code: {exit_code}\nSignal: {signal}\nProcess Group PGID: (none)"
    )


def _display_text(run: ShellRun, summary: str | None) -> str:
    if run.output:
        return f"{summary}\n{run.output}" if summary is not None else run.output
    if summary is not None:
        return f"{summary} There was no output before it timed out."
    if run.aborted:
        return "Command cancelled by user."
    if run.signal:
        return f"Command terminated by signal: {run.signal}"
    if run.error:
        return f"Command failed: {run.error}"
    if run.exit_code:
        return f"Command exited with code: {run.exit_code}"
    return BINARY_NOTICE if run.binary else ""


async def build_result(
    config: Config, params: ShellParams, run: ShellRun, timeout_ms: int, threshold: float
) -> ToolResult:
    """The ``ToolResult`` of a finished foreground run (see the module docstring of ``shell``)."""
    summary = (
        f"Command timed out after {timeout_ms}ms before it could complete."
        if run.timed_out and timeout_ms > 0
        else None
    )
    llm = _llm_text(params, run, summary)
    display = _display_text(run, summary)
    long_run = None if timeout_ms == 0 else max(MIN_LONG_RUN_THRESHOLD_MS, timeout_ms // 2)
    hint = (
        long_run_hint(run.elapsed_ms)
        if long_run is not None
        and not run.aborted
        and not run.signal
        and run.elapsed_ms >= long_run
        else None
    )
    reserved = 2 + utf16_len(hint) if hint else 0
    files: list[str] = []
    if math.isfinite(threshold):
        body_budget = max(1, int(threshold) - min(reserved, int(threshold) // 2))
        truncation = await anyio.to_thread.run_sync(
            lambda: truncate_and_save(
                llm,
                directory=config.get_project_temp_dir(),
                tool_name=ToolNames.SHELL,
                threshold=body_budget,
                preview_chars=min(PREVIEW_CHARS, body_budget),
            )
        )
        llm = truncation.content
        if truncation.output_file is not None:
            files.append(truncation.output_file)
            display = f"Output too long and was saved to: {truncation.output_file}"
    if hint:
        llm += f"\n\n{hint}"
        display += f"\n\n{hint}" if display else hint
    if summary is not None:
        result = ToolResult.failure(
            llm, ToolErrorType.EXECUTION_TIMEOUT, llm_content=llm, display=display
        )
    elif run.error:
        message = run.error + (f"\n\n---\n{hint}" if hint else "")
        result = ToolResult.failure(
            message, ToolErrorType.SHELL_EXECUTE_ERROR, llm_content=llm, display=display
        )
    elif (not run.aborted and run.signal) or is_exit_error(params["command"], run.exit_code):
        result = ToolResult.failure(
            llm, ToolErrorType.SHELL_EXECUTE_ERROR, llm_content=llm, display=display
        )
    else:
        result = ToolResult(llm_content=llm, return_display=display)
    result.result_file_paths = files
    result.output_budget_applied = True
    result.interrupted = run.aborted
    return result


# -- background -----------------------------------------------------------------------------------


def _status_guidance(entry: BackgroundShell) -> str:
    return (
        f"status file: {entry.status_path}\n"
        "To check whether this process is still running, Read the status file (status: "
        "running|completed|failed|cancelled). Do NOT infer liveness from the output file: "
        "programs often block-buffer stdout when not attached to a TTY, so an empty output file "
        "is normal while the process is alive (for live output, re-run with e.g. `python -u` or "
        "`stdbuf -oL`)."
    )


def background_started(entry: BackgroundShell) -> ToolResult:
    """The ``Background shell started.`` block for a new shell."""
    pid_line = f"pid: {entry.pid}\n" if entry.pid is not None else ""
    llm = (
        f"Background shell started.\nid: {entry.id}\n{pid_line}"
        f"output file: {entry.output_path}\n{_status_guidance(entry)}\n"
        "To inspect: Read the output file directly to view the captured output."
    )
    pid = f" (pid {entry.pid})" if entry.pid is not None else ""
    return ToolResult(llm_content=llm, return_display=f"Background shell {entry.id} started{pid}.")


def git_commit_refused() -> ToolResult:
    """The refusal of ``git commit`` in background mode (not an error, as in the reference)."""
    return ToolResult(llm_content=REFUSE_GIT_COMMIT, return_display=REFUSE_GIT_COMMIT_DISPLAY)
