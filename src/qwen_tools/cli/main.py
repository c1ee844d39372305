"""``qwen-tools`` entry point: argument parsing and dispatch.

Only the standard library is imported here so ``qwen-tools --help`` starts fast; each command
imports what it needs when it runs.

Exit codes: 0 success; 1 a tool call failed; 2 usage error (bad arguments or JSON);
3 configuration error (settings files, or no model for ``run``); 4 a call was cancelled or
refused; 53 the session turn limit of ``run`` was reached; 130 interrupted (``SIGINT``), 143 and
129 ended by ``SIGTERM`` and ``SIGHUP`` (``serve`` exits with 0 on all three); 141 the reader of
the output went away (``| head``), quietly, as ``SIGPIPE`` ends a tool.

:func:`main` owns the process: when it returns, every process it started (commands and
everything they started, MCP servers) has been ended.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any

from qwen_tools._version import __version__
from qwen_tools.cli.exit_codes import EXIT_BROKEN_PIPE, EXIT_INTERRUPTED, EXIT_USAGE

APPROVAL_MODES = ("plan", "default", "auto-edit", "auto", "yolo")
COMMANDS = ("tools", "schema", "call", "serve", "run", "mcp", "chat", "rollout")
EXPORT_FORMATS = ("openai", "openai-strict", "anthropic", "gemini", "mcp")


def _add_workspace_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--cwd", metavar="DIR", help="project directory (default: the current directory)"
    )
    parser.add_argument(
        "--include-directories",
        metavar="DIRS",
        action="append",
        default=[],
        help="extra workspace directories (comma-separated; repeatable)",
    )


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid port: {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"port out of range (0-65535): {value}")
    return value


def _positive(kind: type[float] | type[int]) -> Callable[[str], float | int]:
    def parse(text: str) -> float | int:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"invalid number: {text!r}") from None
        if not 0 < value < float("inf"):
            raise argparse.ArgumentTypeError(f"must be a positive number: {text!r}")
        return value

    return parse


def _session_name(text: str) -> str:
    from qwen_tools.session.named import SessionNameError, validate_session_name

    try:
        return validate_session_name(text)
    except SessionNameError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The full argument parser (exposed for documentation and tests).

    With ``only`` (one of :data:`COMMANDS`), just that command's sub-parser: what the command
    being run needs, without building (and importing) the others'.
    """
    parser = argparse.ArgumentParser(
        prog="qwen-tools",
        description="Qwen Code's tools system in Python: list, export, call and serve tools.",
        epilog=(
            "exit codes: 0 ok, 1 tool call failed (run: model/API error), 2 usage error, "
            "3 settings error (run: also no model configured), 4 cancelled or refused, "
            "53 session turn limit (run), 130 interrupted (143 SIGTERM, 129 SIGHUP). Without "
            "a command, flags or a prompt mean 'run'."
        ),
    )
    parser.add_argument("--version", action="version", version=f"qwen-tools {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    if only in (None, "tools"):
        tools = sub.add_parser(
            "tools",
            help="list the registered tools",
            description=(
                "List the tools 'call' accepts here (built-ins, discovered and MCP tools) with "
                "their kinds and the first line of their descriptions."
            ),
        )
        tools.add_argument("--json", action="store_true", help="print JSON instead of a table")
        _add_workspace_options(tools)
    if only in (None, "schema"):
        schema = sub.add_parser(
            "schema",
            help="print the tool declarations as JSON",
            description=(
                "Print every tool's declaration (name, description, parameters' JSON schema) "
                "in a provider's tool format, ready to send to a model."
            ),
        )
        schema.add_argument(
            "--format",
            choices=EXPORT_FORMATS,
            default="openai",
            help="target format (default: openai)",
        )
        _add_workspace_options(schema)
    if only in (None, "call"):
        _add_call_parser(sub)
    if only in (None, "serve"):
        _add_serve_parser(sub)
    if only in (None, "run"):
        from qwen_tools.cli.run_args import add_run_parser

        add_run_parser(sub, _add_workspace_options, APPROVAL_MODES)
    if only in (None, "mcp"):
        from qwen_tools.cli.mcp_cmd import add_mcp_parser

        add_mcp_parser(sub)
    if only in (None, "chat"):
        from qwen_tools.cli.chat import add_chat_parser

        add_chat_parser(sub, _add_workspace_options, APPROVAL_MODES)
    if only in (None, "rollout"):
        from qwen_tools.cli.rollout_cmd import add_rollout_parser

        add_rollout_parser(sub, APPROVAL_MODES)
    return parser


def _add_call_parser(sub: Any) -> None:
    call = sub.add_parser(
        "call",
        help="run one tool call (or a batch) through the whole lifecycle",
        description=(
            "Run a tool call: look-up, validation, confirmation, execution, display. "
            "ARGS is a JSON object, or '-' to read it from stdin."
        ),
    )
    call.add_argument("name", nargs="?", help="tool name")
    call.add_argument(
        "args", nargs="?", help="JSON object of params, or '-' for stdin (default: {})"
    )
    call.add_argument(
        "--batch",
        metavar="FILE",
        help="JSON lines {'name', 'args'} from FILE or '-', run in one session",
    )
    call.add_argument("--json", action="store_true", help="print one JSON object per call")
    call.add_argument(
        "--session",
        metavar="NAME",
        type=_session_name,
        help=(
            "keep the session's state (files read, 'always allow' answers, todos, plan mode) "
            "under NAME between commands; commands on one NAME run one at a time"
        ),
    )
    call.add_argument(
        "--approval-mode",
        choices=APPROVAL_MODES,
        help="approval mode (default: from settings, else 'default')",
    )
    call.add_argument(
        "-y", "--yolo", action="store_true", help="approve every tool call (--approval-mode yolo)"
    )
    _add_workspace_options(call)


def _add_serve_parser(sub: Any) -> None:
    serve = sub.add_parser(
        "serve",
        help="serve every registered tool over MCP (stdio or streamable HTTP)",
        description=(
            "Serve the tools to MCP clients: tools/list and tools/call through the whole "
            "lifecycle. Calls needing approval are refused unless the approval mode allows them. "
            "Needs the 'mcp' extra."
        ),
    )
    serve.add_argument(
        "--transport", choices=("stdio", "http"), default="stdio", help="default: stdio"
    )
    serve.add_argument(
        "--host", default="127.0.0.1", help="HTTP address to bind (default: 127.0.0.1)"
    )
    serve.add_argument(
        "--port", type=_port, default=8000, help="HTTP port (default: 8000; 0 picks a free one)"
    )
    serve.add_argument(
        "--session-idle-timeout",
        type=_positive(float),
        default=1800.0,
        metavar="SECONDS",
        help="HTTP: close a client session idle this long, stopping its processes (default: 1800)",
    )
    serve.add_argument(
        "--max-sessions",
        type=_positive(int),
        default=100,
        metavar="N",
        help="HTTP: refuse new client sessions while N are open (default: 100)",
    )
    serve.add_argument(
        "--stateless",
        action="store_true",
        help=(
            "HTTP: no Mcp-Session-Id; every request stands alone and gets a fresh session "
            "(for a load balancer without session affinity)"
        ),
    )
    serve.add_argument(
        "--json-response",
        action="store_true",
        help="HTTP: answer with one JSON body instead of an SSE stream (no progress)",
    )
    serve.add_argument(
        "--approval-mode",
        choices=APPROVAL_MODES,
        help="approval mode (default: from settings, else 'default')",
    )
    _add_workspace_options(serve)


def _default_to_run(parser: argparse.ArgumentParser, argv: Sequence[str]) -> list[str]:
    """``qwen-tools [flags] PROMPT`` without a command means ``run`` (as ``qwen`` does); bare
    ``qwen-tools`` is ``chat`` in a terminal and ``run`` (the prompt from stdin) when piped."""
    argv = list(argv)
    if not argv:
        if sys.stdin.isatty() and sys.stdout.isatty():
            return ["chat"]
        return [] if sys.stdin.isatty() else ["run"]
    commands: set[str] = set()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            commands.update(action.choices)
    if argv and argv[0] not in commands and argv[0] not in ("-h", "--help", "--version"):
        argv.insert(0, "run")
    return argv


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the process exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv[0] if argv and argv[0] in COMMANDS else None)
    args = parser.parse_args(_default_to_run(parser, argv))
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    from qwen_tools.cli.interrupts import Terminated, exit_code, process_lifetime
    from qwen_tools.cli.render import printable_streams

    printable_streams()  # a lone surrogate in anything printed is escaped, never an error

    try:
        with process_lifetime():
            code = _dispatch(args, parser)
            sys.stdout.flush()  # a closed pipe shows now, not as "Exception ignored" at exit
            return code
    except KeyboardInterrupt:
        print("Interrupted.", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Terminated as exc:
        return exit_code(exc.signum)
    except BrokenPipeError:
        return _reader_gone()


def _reader_gone() -> int:
    """The reader of our output went away (``qwen-tools ... | head``): end quietly, as a tool
    killed by ``SIGPIPE`` does. Further writes, and the flush at exit, go to ``/dev/null``."""
    import contextlib
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            os.dup2(devnull, stream.fileno())
    return EXIT_BROKEN_PIPE


def _dispatch(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Run the chosen command."""
    if args.command == "tools":
        from qwen_tools.cli.tools_cmd import run_tools

        return run_tools(args)
    if args.command == "schema":
        from qwen_tools.cli.tools_cmd import run_schema

        return run_schema(args)
    if args.command == "call":
        from qwen_tools.cli.call_cmd import run_call

        return run_call(args, parser)
    if args.command == "serve":
        from qwen_tools.cli.serve_cmd import run_serve

        return run_serve(args)
    if args.command == "run":
        from qwen_tools.cli.run_cmd import run_run

        return run_run(args, parser)
    if args.command == "mcp":
        from qwen_tools.cli.mcp_cmd import run_mcp

        return run_mcp(args)
    if args.command == "chat":
        from qwen_tools.cli.chat import run_chat

        return run_chat(args)
    if args.command == "rollout":
        from qwen_tools.cli.rollout_cmd import run_rollout

        return run_rollout(args)
    parser.error(f"unknown command {args.command!r}")
    return EXIT_USAGE  # pragma: no cover - parser.error exits


def entry() -> None:
    """Console-script wrapper: exit with :func:`main`'s code."""
    sys.exit(main())


if __name__ == "__main__":  # pragma: no cover
    entry()
