"""``qwen-tools run``: the agent on one prompt, headless, like ``qwen -p`` (Qwen Code 0.24.4).

The prompt comes from ``PROMPT`` or ``-p``; piped stdin (up to 8 MiB, read when it starts
within half a second) goes before it, separated by a blank line, as the reference does.
With a terminal, calls needing approval are asked about; without one they are refused
(unless ``--approval-mode`` allows them) and the model gets the refusal. Errors are
reported as the reference reports them: ``[API Error: ...]`` for the endpoint, the turn-limit
and cancellation messages (with ``--output-format json``, as a JSON object on stderr).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import select
import signal as os_signal
import sys
import time
from typing import TYPE_CHECKING, Any

from qwen_tools.cli.context import CliConfigError, open_session, report_config_error
from qwen_tools.cli.exit_codes import (
    EXIT_CONFIG,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_TOOL_ERROR,
    EXIT_USAGE,
)
from qwen_tools.cli.interrupts import Interrupts

if TYPE_CHECKING:
    from qwen_tools.agent.events import AgentEvent, Finished, Retrying
    from qwen_tools.agent.stats import SessionStats
    from qwen_tools.cli.run_output import HeadlessOutput
    from qwen_tools.contract.abort import AbortController
    from qwen_tools.execution.call_types import ConfirmationHandler
    from qwen_tools.model.model_config import ModelConfig
    from qwen_tools.session.session import Session

EXIT_TURN_LIMIT = 53
"""The session turn limit was reached (Qwen Code's ``FatalTurnLimitedError`` code)."""

STDIN_LIMIT = 8 * 1024 * 1024
STDIN_WAIT_S = 0.5
TURN_LIMIT_MESSAGE = (
    "Reached max session turns for this session. Increase the number of turns by specifying "
    "maxSessionTurns in settings.json."
)
CANCELLED_MESSAGE = "Operation cancelled."


def read_piped_stdin() -> str:
    """Piped stdin, or ``""`` when stdin is a terminal or nothing arrives within 0.5 s."""
    stream = sys.stdin
    if stream is None or stream.closed or stream.isatty():
        return ""
    try:
        ready, _, _ = select.select([stream.fileno()], [], [], STDIN_WAIT_S)
    except (OSError, ValueError):
        return ""
    if not ready:
        return ""
    data = stream.buffer.read(STDIN_LIMIT + 1)
    if len(data) > STDIN_LIMIT:
        data = data[:STDIN_LIMIT]
        print(f"Warning: stdin input truncated to {STDIN_LIMIT} bytes.", file=sys.stderr)
    return data.decode("utf-8", "replace")


def compose_prompt(args: argparse.Namespace, stdin_text: str) -> str | None:
    """The prompt from the arguments and stdin (``stdin\\n\\nprompt``), or ``None``."""
    prompt = args.prompt if args.prompt is not None else " ".join(args.prompt_words)
    if stdin_text:
        prompt = f"{stdin_text}\n\n{prompt}" if prompt else stdin_text
    return prompt if prompt.strip() else None


def _json_error(kind: str, message: str, code: int) -> str:
    return json.dumps({"error": {"type": kind, "message": message, "code": code}}, indent=2)


def _report(fmt: str, kind: str, message: str, code: int) -> None:
    text = _json_error(kind, message, code) if fmt == "json" else message
    print(text, file=sys.stderr)


def _init_info(session: Session, model: ModelConfig) -> dict[str, Any]:
    from qwen_tools._version import __version__

    registry, config = session.registry, session.config
    servers = [
        {
            "name": name,
            "status": "connected" if registry.get_tools_by_server(name) else "disconnected",
        }
        for name in config.settings.mcp_servers
    ]
    return {
        "cwd": str(config.target_dir),
        "tools": registry.get_all_tool_names(),
        "mcp_servers": servers,
        "model": model.model,
        "permission_mode": config.approval_mode.value,
        "slash_commands": [],
        "qwen_code_version": __version__,
        "agents": [],
    }


def _max_turns(args: argparse.Namespace, session: Session) -> int:
    if args.max_session_turns is not None:
        return int(args.max_session_turns)
    loaded = session.config.loaded_settings
    value = loaded.get("model.maxSessionTurns") if loaded is not None else None
    return value if isinstance(value, int) and not isinstance(value, bool) else -1


def _retry_notice(event: Retrying) -> None:
    """Say on stderr which model request failed and when it is tried again (Ctrl-C stops)."""
    of = f" of {event.requests}" if event.requests else ""
    print(
        f"Model request failed: {event.reason.strip().rstrip('.')}. Retrying (attempt "
        f"{event.request or event.attempt}{of}, waiting {event.delay_s:.1f}s; Ctrl-C to stop)",
        file=sys.stderr,
        flush=True,
    )


def _denied_warning(event: AgentEvent) -> None:
    from qwen_tools.agent.events import ToolCallFinished

    if isinstance(event, ToolCallFinished):
        done = event.completed
        if done.error_type is not None and done.error_type.value == "execution_denied":
            print(
                f'Warning: tool "{done.request.name}" needs approval, which cannot be asked '
                "without a terminal. Use --approval-mode yolo (or -y) to allow every call.\n",
                file=sys.stderr,
            )


async def _run(
    session: Session,
    model: ModelConfig,
    args: argparse.Namespace,
    prompt: str,
    interactive: bool,
) -> int:
    from qwen_tools.contract.abort import AbortController

    controller = AbortController()
    interrupts = Interrupts(controller)
    started = time.monotonic()
    with interrupts.installed():
        code = await _session(session, model, args, prompt, interactive, controller, started)
    if interrupts.code is not None and interrupts.signum != os_signal.SIGINT:
        return interrupts.code  # SIGTERM/SIGHUP: cancelled like Ctrl-C, the code names the signal
    return code


async def _session(
    session: Session,
    model: ModelConfig,
    args: argparse.Namespace,
    prompt: str,
    interactive: bool,
    controller: AbortController,
    started: float,
) -> int:
    from qwen_tools.agent.events import Retrying
    from qwen_tools.agent.session import AgentSession
    from qwen_tools.cli.run_output import HeadlessOutput

    fmt = args.output_format
    async with session:
        confirm: ConfirmationHandler | None = None
        if interactive:
            from qwen_tools.cli.confirm import terminal_confirm_handler

            confirm = terminal_confirm_handler(session.registry)
        output = HeadlessOutput(
            fmt,
            session_id=session.config.session_id,
            model=model.model,
            partial=args.include_partial_messages,
        )
        if fmt != "text":
            output.system_init(_init_info(session, model))
        async with AgentSession(session.config, session.registry, model, confirm=confirm) as agent:

            def on_event(event: AgentEvent) -> None:
                output.on_event(event)
                if isinstance(event, Retrying) and event.kind == "http":
                    _retry_notice(event)
                if isinstance(event, Retrying) and event.kind == "truncated":
                    print(
                        f"Retrying provider attempt ({event.discarded_tool_calls} "
                        "buffered tool call(s) discarded).",
                        file=sys.stderr,
                    )
                if fmt == "text":
                    _denied_warning(event)

            agent_loop = agent.new_loop(on_event=on_event, max_turns=_max_turns(args, session))
            finished = await agent_loop.send(prompt, signal=controller.signal)
            return _conclude(fmt, output, finished, agent.stats, started)


def _conclude(
    fmt: str, output: HeadlessOutput, finished: Finished, stats: SessionStats, started: float
) -> int:
    from qwen_tools.agent.events import StopReason

    duration = (time.monotonic() - started) * 1000
    common: dict[str, Any] = {
        "duration_ms": duration,
        "api_ms": stats.api_ms,
        "turns": finished.turns,
        "usage": stats.usage_json(),
        "stats": stats.to_json() if fmt == "json" else None,
    }
    if finished.reason is StopReason.GOAL:
        output.result(is_error=False, **common)
        return EXIT_OK
    if finished.reason is StopReason.MAX_TURNS:
        _report(fmt, "FatalTurnLimitedError", TURN_LIMIT_MESSAGE, EXIT_TURN_LIMIT)
        return EXIT_TURN_LIMIT
    if finished.reason is StopReason.CANCELLED:
        _report(fmt, "FatalCancellationError", CANCELLED_MESSAGE, EXIT_INTERRUPTED)
        return EXIT_INTERRUPTED
    error = finished.error or "[API Error: An unknown error occurred.]"
    if fmt == "text":
        print(error, file=sys.stderr)
        return EXIT_TOOL_ERROR
    output.api_error(error)
    output.result(is_error=True, error=error, **common)
    _report(fmt, "AlreadyReportedError", error, 1)
    return EXIT_TOOL_ERROR


def _no_model(fmt: str, session_id: str, message: str) -> int:
    from qwen_tools.cli.run_output import HeadlessOutput

    print(message, file=sys.stderr)
    if fmt != "text":
        output = HeadlessOutput(fmt, session_id=session_id, model="")
        output.result(
            is_error=True,
            duration_ms=0,
            api_ms=0,
            turns=0,
            usage={"input_tokens": 0, "output_tokens": 0},
            stats=None,
            error=message.splitlines()[0],
        )
    return EXIT_CONFIG


def open_agent_session(
    args: argparse.Namespace, output_format: str = "text", *, interactive: bool = True
) -> tuple[Session, ModelConfig] | int:
    """The session and its model for ``run``/``chat``, or the exit code after saying what is wrong
    (a settings problem, or no model configured: which variables and settings to set)."""
    try:
        session = open_session(args, interactive=interactive)
    except CliConfigError as exc:
        report_config_error(exc)
        return EXIT_CONFIG
    from qwen_tools.config.model_settings import resolve_model_config
    from qwen_tools.model.model_config import ModelNotConfigured

    try:
        model = resolve_model_config(session.config.loaded_settings, cli_model=args.model)
    except ModelNotConfigured as exc:
        session.close_sync()
        return _no_model(output_format, session.config.session_id, str(exc))
    return session, model


def run_run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Entry point of ``qwen-tools run``."""
    if args.prompt is not None and args.prompt_words:
        print("qwen-tools: give the prompt as PROMPT or with -p, not both", file=sys.stderr)
        return EXIT_USAGE
    if args.yolo:
        if args.approval_mode not in (None, "yolo"):
            print("qwen-tools: --yolo and --approval-mode cannot be used together", file=sys.stderr)
            return EXIT_USAGE
        args.approval_mode = "yolo"
    stdin_text = read_piped_stdin()
    prompt = compose_prompt(args, stdin_text)
    if prompt is None:
        print(
            "qwen-tools run: no prompt (give PROMPT, -p TEXT, or pipe it on stdin)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    interactive = not stdin_text and sys.stdin.isatty() and sys.stderr.isatty()
    opened = open_agent_session(args, args.output_format, interactive=interactive)
    if isinstance(opened, int):
        return opened
    session, model = opened
    try:
        return asyncio.run(_run(session, model, args, prompt, interactive))
    finally:
        session.close_sync()
