"""``qwen-tools call``: run one tool call, or a batch of them in one session, from the shell."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from qwen_tools.cli.context import (
    CliConfigError,
    open_session,
    person_at_terminal,
    report_config_error,
)
from qwen_tools.cli.exit_codes import (
    EXIT_CONFIG,
    EXIT_OK,
    EXIT_REFUSED,
    EXIT_TOOL_ERROR,
    EXIT_USAGE,
)
from qwen_tools.cli.interrupts import Interrupts

if TYPE_CHECKING:
    from qwen_tools.contract.display import ToolResultDisplay
    from qwen_tools.execution.tool_call import (
        CompletedToolCall,
        ConfirmationHandler,
        ToolCallRequest,
    )
    from qwen_tools.session.session import Session


T = TypeVar("T")


async def _in_session(session: Session, body: Callable[[], Awaitable[T]]) -> T:
    """Run ``body`` in the open session (MCP servers connected on demand)."""
    async with session:
        return await body()


def _utf8(raw: bytes) -> tuple[str, str | None]:
    """``raw`` decoded, or the reason it is not UTF-8 (the first bad byte and its offset)."""
    try:
        return raw.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        return "", f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start})"


def _parse_args_json(raw: str | bytes | None) -> tuple[Any, str | None]:
    """ARGS (text from the command line, bytes from stdin) as ``JSON.parse`` reads it.

    Bytes that are not UTF-8 are refused rather than guessed at (on the command line they
    arrive as lone surrogates, ``surrogateescape``); the arguments' own limits (depth, lone
    surrogates from ``\\ud800`` escapes, huge numbers) are for the call to apply.
    """
    from qwen_tools.contract.arg_limits import ArgumentsTextError, loads_arguments
    from qwen_tools.contract.well_formed import has_surrogates

    if isinstance(raw, str) and has_surrogates(raw):
        raw = os.fsencode(raw)
    if isinstance(raw, bytes):
        raw, problem = _utf8(raw)
        if problem is not None:
            return None, f"ARGS is {problem}"
    if raw is None or raw.strip() == "":
        return {}, None
    try:
        return loads_arguments(raw), None
    except ArgumentsTextError as exc:
        return None, f"ARGS is not valid JSON: {exc}"


def completed_to_json(completed: CompletedToolCall) -> dict[str, Any]:
    """The ``--json`` object for one finished call."""
    from qwen_tools.contract.display import display_to_json
    from qwen_tools.contract.parts import content_to_json

    result = completed.result
    error: dict[str, str] | None = None
    if completed.status != "success":
        message = completed.response.error or ""
        error = {
            "message": message,
            "type": (completed.error_type.value if completed.error_type else "unknown"),
        }
    return {
        "tool": completed.tool.name if completed.tool else completed.request.name,
        "llmContent": content_to_json(result.llm_content) if result is not None else None,
        "returnDisplay": display_to_json(completed.display),
        "error": error,
        "responseText": completed.response_text,
    }


def _exit_code(completed: CompletedToolCall) -> int:
    from qwen_tools.contract.errors import ToolErrorType

    if completed.status == "success":
        return EXIT_OK
    if completed.status == "cancelled" or completed.error_type is ToolErrorType.EXECUTION_DENIED:
        return EXIT_REFUSED
    return EXIT_TOOL_ERROR


def _live(args: argparse.Namespace) -> bool:
    """Whether a running command's output is shown as it comes: on a terminal only (without
    one, the result on stdout has it all; stderr would repeat it)."""
    return not args.json and sys.stderr.isatty()


class _LiveOutput:
    """A running command's output on stderr as it comes. Each chunk is the whole output so far
    (what a screen redraws): only what is new since the last one is written."""

    def __init__(self) -> None:
        self.shown = ""
        self.open_line = False

    def feed(self, chunk: ToolResultDisplay) -> None:
        if not isinstance(chunk, str):
            return
        if self.shown.startswith(chunk):  # nothing new (the final text, trimmed)
            return
        if chunk.startswith(self.shown):
            new = chunk[len(self.shown) :]
        else:  # redrawn from the start (a progress line, a cleared screen): show it all again
            new = ("\n" if self.open_line else "") + chunk
        self.shown = chunk
        if new:
            sys.stderr.write(new)
            sys.stderr.flush()
            self.open_line = not new.endswith("\n")

    def end(self) -> None:
        if self.open_line:
            sys.stderr.write("\n")
            sys.stderr.flush()
            self.open_line = False


async def _interruptible(
    session: Session, interrupts: Interrupts, body: Callable[[], Awaitable[T]]
) -> T:
    """Run ``body`` with stop signals aborting the call in flight; background shells end after.

    A background shell lives as long as its session, and the session of ``call`` ends with it:
    the shells still running are stopped (status ``cancelled``) and named on stderr.
    """
    with interrupts.installed():
        try:
            return await body()
        finally:
            shells = session.config.session.background_shells
            running = [entry for entry in shells.list() if entry.status == "running"]
            await shells.stop_all()
            for entry in running:
                print(
                    f"qwen-tools: stopped background shell {entry.id} ({entry.command}): "
                    "background shells end when the call does",
                    file=sys.stderr,
                )


async def _run_one(
    session: Session, request: ToolCallRequest, live: bool, interrupts: Interrupts
) -> CompletedToolCall:
    from qwen_tools.contract.abort import AbortController
    from qwen_tools.execution.scheduler import ToolCallEvent

    controller = AbortController()
    interrupts.controller = controller
    if interrupts.signum is not None:
        controller.abort("interrupted")

    from qwen_tools.cli.progress import Spinner

    spinner = Spinner(f"Running {request.name}…")  # on a terminal only

    def show(event: ToolCallEvent) -> None:
        if event.status == "executing" and event.output is None:
            spinner.start()
        elif event.status != "executing":
            spinner.stop()  # a confirmation prompt, or the call is done
        if live and event.output is not None:
            spinner.stop()  # the output itself shows progress from now on
            output.feed(event.output)

    output = _LiveOutput()
    try:
        (completed,) = await session.run_batch([request], controller.signal, on_event=show)
    finally:
        spinner.stop()
        output.end()
    return completed


def _confirm_handler(interactive: bool, session: Session) -> ConfirmationHandler | None:
    """The terminal's prompt (built once the session's registry exists), or none."""
    if not interactive:
        return None
    from qwen_tools.cli.confirm import terminal_confirm_handler

    return terminal_confirm_handler(session.registry)


def _print_human(completed: CompletedToolCall) -> None:
    from qwen_tools.cli.render import print_completed

    print_completed(completed)


def _refusal_hint(completed: CompletedToolCall, hinted: set[str]) -> None:
    """After a call refused for want of someone to ask: how to allow it (once per tool)."""
    from qwen_tools.contract.errors import ToolErrorType

    name = completed.request.name
    if completed.error_type is not ToolErrorType.EXECUTION_DENIED or name in hinted:
        return
    if "non-interactive" not in (completed.response.error or ""):
        return  # refused by a hook, plan mode or a rule: no flag of ours allows it
    hinted.add(name)
    print(
        f'qwen-tools: "{name}" needs approval, which cannot be asked without a terminal. '
        "Allow it with -y (--approval-mode yolo), or --approval-mode auto-edit for file edits.",
        file=sys.stderr,
    )


def run_call(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Entry point of ``qwen-tools call``."""
    if args.batch and args.name:
        parser.error("give a tool NAME or --batch, not both")
    if not args.batch and not args.name:
        parser.error("the tool NAME is required (or use --batch FILE)")
    if args.yolo:
        if args.approval_mode not in (None, "yolo"):
            parser.error("-y/--yolo and --approval-mode cannot be used together")
        args.approval_mode = "yolo"
    stdin_is_data = args.batch == "-" or args.args == "-"
    interactive = person_at_terminal() and not stdin_is_data
    try:
        session = open_session(
            args, interactive=interactive, mcp="on_demand", name=getattr(args, "session", None)
        )
    except CliConfigError as exc:
        report_config_error(exc)
        return EXIT_CONFIG
    try:
        return _run_call(session, args, interactive)
    finally:
        session.close_sync()


def _run_call(session: Session, args: argparse.Namespace, interactive: bool) -> int:
    if args.batch:
        return _run_batch(session, args, interactive)

    from qwen_tools.execution.tool_call import ToolCallRequest

    raw = sys.stdin.buffer.read() if args.args == "-" else args.args
    params, problem = _parse_args_json(raw)
    if problem is not None:
        print(f"qwen-tools: {problem}", file=sys.stderr)
        return EXIT_USAGE
    request = ToolCallRequest(name=args.name, args=params, call_id="call_cli_1")
    interrupts = Interrupts()

    async def run() -> CompletedToolCall:
        session.confirm = _confirm_handler(interactive, session)
        return await _interruptible(
            session, interrupts, lambda: _run_one(session, request, _live(args), interrupts)
        )

    completed = asyncio.run(_in_session(session, run))
    if args.json:
        print(json.dumps(completed_to_json(completed), ensure_ascii=False))
    else:
        _print_human(completed)
    _refusal_hint(completed, set())
    return interrupts.code or _exit_code(completed)


def _batch_lines(source: str) -> Iterator[bytes]:
    """The lines as bytes: each is decoded on its own, so one bad line costs only itself."""
    if source == "-":
        yield from sys.stdin.buffer
        return
    with open(source, "rb") as handle:
        yield from handle


def _batch_item(line: bytes) -> tuple[Any, str | None]:
    """One batch line as ``JSON.parse`` reads it, or why it cannot be read."""
    from qwen_tools.contract.arg_limits import ArgumentsTextError, loads_arguments

    text, problem = _utf8(line)
    if problem is not None:
        return None, problem
    try:
        return loads_arguments(text, envelope=1), None
    except ArgumentsTextError as exc:
        return None, f"invalid JSON: {exc}"


def _bad_line(number: int, message: str) -> dict[str, Any]:
    text = f"Line {number}: {message}"
    return {
        "tool": None,
        "llmContent": None,
        "returnDisplay": text,
        "error": {"message": text, "type": "invalid_tool_params"},
        "responseText": text,
    }


def _run_batch(session: Session, args: argparse.Namespace, interactive: bool) -> int:
    from qwen_tools.execution.tool_call import ToolCallRequest

    try:
        lines = list(_batch_lines(args.batch))
    except OSError as exc:
        print(f"qwen-tools: cannot read batch file: {exc}", file=sys.stderr)
        return EXIT_USAGE
    worst = EXIT_OK
    interrupts = Interrupts()
    hinted: set[str] = set()

    async def run_all() -> None:
        nonlocal worst
        session.confirm = _confirm_handler(interactive, session)
        for number, line in enumerate(lines, start=1):
            if interrupts.signum is not None:
                break  # a stop signal ends the batch after the call it interrupted
            if not line.strip():
                continue
            item, problem = _batch_item(line)
            if problem is not None:
                _emit(args, _bad_line(number, problem))
                worst = max(worst, EXIT_TOOL_ERROR)
                continue
            if not isinstance(item, dict) or not isinstance(item.get("name"), str):
                _emit(args, _bad_line(number, 'expected an object {"name": "...", "args": {...}}'))
                worst = max(worst, EXIT_TOOL_ERROR)
                continue
            call_id = str(item.get("id") or f"call_batch_{number}")
            request = ToolCallRequest(name=item["name"], args=item.get("args", {}), call_id=call_id)
            if not args.json:  # a header line tells where each call's output starts
                print(f"── {number}: {request.name} ──", flush=True)
            completed = await _run_one(session, request, False, interrupts)
            if args.json:
                _emit(args, completed_to_json(completed))
            else:
                _print_human(completed)
            _refusal_hint(completed, hinted)
            worst = max(worst, _exit_code(completed))

    asyncio.run(_in_session(session, lambda: _interruptible(session, interrupts, run_all)))
    return interrupts.code or worst


def _emit(args: argparse.Namespace, obj: dict[str, Any]) -> None:
    if args.json:
        from qwen_tools.contract.well_formed import escape_surrogates

        print(escape_surrogates(json.dumps(obj, ensure_ascii=False)), flush=True)
    else:
        print(obj["responseText"], file=sys.stderr)
