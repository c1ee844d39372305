"""``qwen-tools mcp add|remove|list|...``: manage the ``mcpServers`` of a settings file, as ``qwen mcp``.

``add`` and ``remove`` edit one file: ``--scope user`` (the default, as Qwen Code 0.24.4) is
``$QWEN_HOME/settings.json`` (``~/.qwen``), ``--scope project`` is ``<cwd>/.qwen/settings.json``.
The rest of the file — comments and formatting included — is kept (see
:mod:`qwen_tools.config.settings_edit`) and it is written atomically. ``list`` is in
:mod:`.mcp_list`, ``reconnect`` in :mod:`.mcp_reconnect`, ``approve``/``reject`` in
:mod:`.mcp_approve`, ``auth`` in :mod:`.mcp_auth`.

Options of ``add`` are read wherever they stand, like yargs with ``unknown-options-as-args``:
``qwen-tools mcp add demo python server.py --trust`` trusts the server; anything that is not one of
our options (``-y``, ``--port 8080``) is an argument of the server, and so is everything after
``--``. Only the standard library is imported at module level (the parser is built on every run).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["add_mcp_parser", "run_mcp"]

SCOPES = ("user", "project")
TRANSPORTS = ("stdio", "sse", "http")
HOME_PROJECT_ERROR = "Error: Please use --scope user to edit settings in the home directory."


class _RawArgsParser(argparse.ArgumentParser):
    """Remembers the exact tokens it parsed (``raw_args``): argparse drops ``--`` from them."""

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        parsed, extras = super().parse_known_args(args, namespace)
        parsed.raw_args = list(args) if args is not None else sys.argv[1:]
        return parsed, extras


def _timeout(text: str) -> int | float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid number of milliseconds: {text!r}") from None
    if value < 0 or value != value or value == float("inf"):
        raise argparse.ArgumentTypeError(f"invalid number of milliseconds: {text!r}")
    return int(value) if value.is_integer() else value


def _env_entry(text: str) -> str:
    """``-e KEY=VALUE``: an entry without ``=`` or without a key is refused, not dropped."""
    key, sep, _ = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return text


def _add_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``mcp add`` (also used to re-read the tokens after the command)."""
    parser.add_argument(
        "-s",
        "--scope",
        choices=SCOPES,
        default="user",
        help="settings file to edit (default: user)",
    )
    parser.add_argument(
        "-t",
        "--transport",
        choices=TRANSPORTS,
        help="transport (default: http for an http(s):// URL, else stdio)",
    )
    parser.add_argument(
        "-e",
        "--env",
        action="append",
        type=_env_entry,
        metavar="KEY=VALUE",
        help="environment of a stdio server",
    )
    parser.add_argument(
        "-H",
        "--header",
        action="append",
        metavar="'NAME: VALUE'",
        help="HTTP header for the sse and http transports",
    )
    parser.add_argument(
        "--timeout", type=_timeout, metavar="MS", help="connection and call timeout (ms)"
    )
    parser.add_argument(
        "--trust",
        action=argparse.BooleanOptionalAction,
        help="run the server's tools without asking (in a trusted folder)",
    )
    parser.add_argument("--description", help="a description of the server")
    parser.add_argument(
        "--include-tools", action="append", metavar="TOOLS", help="only these tools (a,b,...)"
    )
    parser.add_argument(
        "--exclude-tools", action="append", metavar="TOOLS", help="never these tools (a,b,...)"
    )


def _add_cwd(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--cwd", metavar="DIR", help="project directory (default: the current directory)"
    )


def add_mcp_parser(sub: Any) -> argparse.ArgumentParser:
    """Add the ``mcp`` command (``add``, ``remove``, ``list``) to the CLI's subparsers."""
    mcp: argparse.ArgumentParser = sub.add_parser(
        "mcp",
        help="manage MCP servers (add, remove, list, reconnect, approve, reject, auth)",
        description="Manage the MCP servers of the settings files.",
    )
    commands = mcp.add_subparsers(
        dest="mcp_command", metavar="COMMAND", required=True, parser_class=_RawArgsParser
    )
    add = commands.add_parser(
        "add",
        help="add a server",
        description=(
            "Add (or replace) a server in the user or project settings. Options may also follow "
            "the command; other arguments, and all after '--', are the server's."
        ),
        allow_abbrev=False,
    )
    _add_options(add)
    _add_cwd(add)
    add.add_argument("name", help="name of the server")
    add.add_argument("command_or_url", metavar="commandOrUrl", help="command (stdio) or URL")
    server_args = add.add_argument(
        "args", nargs=argparse.REMAINDER, help="arguments of a stdio server"
    )
    server_args.required = False  # argparse would name it among the missing arguments

    remove = commands.add_parser("remove", help="remove a server")
    remove.add_argument(
        "-s",
        "--scope",
        choices=SCOPES,
        default="user",
        help="settings file to edit (default: user)",
    )
    _add_cwd(remove)
    remove.add_argument("name", help="name of the server")

    listing = commands.add_parser(
        "list",
        help="connect to every configured server and show its status and tools",
    )
    listing.add_argument("--json", action="store_true", help="print JSON")
    _add_cwd(listing)

    from qwen_tools.cli.mcp_approve import add_approval_parsers
    from qwen_tools.cli.mcp_auth import add_auth_parser
    from qwen_tools.cli.mcp_reconnect import add_reconnect_parser

    add_reconnect_parser(commands)
    add_approval_parsers(commands)
    add_auth_parser(commands)
    return mcp


# -- add --------------------------------------------------------------------------------


def _reread_add(raw: list[str]) -> tuple[argparse.Namespace, list[str]]:
    """The options wherever they stand, and the positionals (name, command, server args)."""
    options = argparse.ArgumentParser(prog="qwen-tools mcp add", add_help=False, allow_abbrev=False)
    _add_options(options)
    _add_cwd(options)
    cut = raw.index("--") if "--" in raw else len(raw)
    parsed, positionals = options.parse_known_args(raw[:cut])
    return parsed, positionals + raw[cut + 1 :]


def _split_list(values: list[str] | None) -> list[str] | None:
    if values is None:
        return None
    return [item.strip() for value in values for item in value.split(",") if item.strip()]


def _env(values: list[str] | None) -> dict[str, str] | None:
    if values is None:
        return None
    env: dict[str, str] = {}
    for entry in values:
        key, sep, value = entry.partition("=")
        if sep and key and value:
            env[key] = value
    return env


def _headers(values: list[str] | None) -> dict[str, str] | None:
    if values is None:
        return None
    headers: dict[str, str] = {}
    for entry in values:
        key, _, value = entry.partition(":")
        if key.strip() and value.strip():
            headers[key.strip()] = value.strip()
    return headers


def server_entry(
    transport: str, target: str, server_args: list[str], opts: argparse.Namespace
) -> dict[str, Any]:
    """The ``mcpServers`` entry ``add`` writes (unset options are left out), in 0.24.4's order."""
    if transport == "stdio":
        fields: dict[str, Any] = {"command": target, "args": server_args, "env": _env(opts.env)}
    else:
        key = "url" if transport == "sse" else "httpUrl"
        fields = {key: target, "headers": _headers(opts.header)}
    fields.update(
        timeout=opts.timeout,
        trust=opts.trust,
        description=opts.description,
        includeTools=_split_list(opts.include_tools),
        excludeTools=_split_list(opts.exclude_tools),
    )
    return {key: value for key, value in fields.items() if value is not None}


def _settings_path(scope: str, cwd: str | None) -> Path:
    from pathlib import Path

    from qwen_tools.config.config import qwen_home

    if scope == "user":
        return qwen_home() / "settings.json"
    root = Path(os.path.realpath(cwd if cwd is not None else os.getcwd()))
    return root / ".qwen" / "settings.json"


def _update_failed(path: Path, exc: Exception) -> int:
    """Say why the settings file was not updated (a bad file, or the OS refused); the exit code."""
    from qwen_tools.cli.exit_codes import EXIT_CONFIG

    if isinstance(exc, OSError):
        print(f"qwen-tools: cannot update {path}: {exc.strerror or exc}", file=sys.stderr)
    else:
        print(f"qwen-tools: {exc}", file=sys.stderr)
    return EXIT_CONFIG


def _read(path: Path) -> str:
    """The file's text ("" when it does not exist); raises ``SettingsError`` if not UTF-8."""
    from qwen_tools.config.settings import SettingsError

    try:
        return path.read_bytes().decode("utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return ""
    except UnicodeDecodeError as exc:
        raise SettingsError(f"not UTF-8 text ({exc.reason})", path=path) from None


def _js_truthy(value: Any) -> bool:
    """JavaScript truthiness (0.24.4 tests ``!!mcpServers[name]``): ``{}`` and ``[]`` are true."""
    return isinstance(value, dict | list) or bool(value)


def _run_add(args: argparse.Namespace) -> int:
    from qwen_tools.cli.exit_codes import EXIT_OK, EXIT_USAGE
    from qwen_tools.config.settings import SettingsError
    from qwen_tools.config.settings_edit import (
        SettingsEditError,
        read_section,
        set_entry,
        write_settings_text,
    )

    opts, positionals = _reread_add(args.raw_args)
    if len(positionals) < 2:
        print("qwen-tools mcp add: error: NAME and commandOrUrl are required", file=sys.stderr)
        return EXIT_USAGE
    name, target, server_args = positionals[0], positionals[1], positionals[2:]
    transport = opts.transport or ("http" if re.match(r"https?://", target, re.I) else "stdio")
    path = _settings_path(opts.scope, opts.cwd)
    if opts.scope == "project" and os.path.realpath(path) == os.path.realpath(
        _settings_path("user", None)
    ):
        print(HOME_PROJECT_ERROR, file=sys.stderr)
        return EXIT_USAGE
    entry = server_entry(transport, target, server_args, opts)
    try:
        text = _read(path)
        existing = read_section(text, "mcpServers", path=path)
        updated = set_entry(text, "mcpServers", name, entry, path=path)
        write_settings_text(path, updated)
    except (SettingsError, SettingsEditError, OSError) as exc:
        return _update_failed(path, exc)
    if isinstance(existing, dict) and _js_truthy(existing.get(name)):
        print(f'MCP server "{name}" is already configured within {opts.scope} settings.')
        print(f'MCP server "{name}" updated in {opts.scope} settings.')
    else:
        print(f'MCP server "{name}" added to {opts.scope} settings. ({transport})')
    return EXIT_OK


# -- remove -----------------------------------------------------------------------------


def _run_remove(args: argparse.Namespace) -> int:
    from qwen_tools.cli.exit_codes import EXIT_OK
    from qwen_tools.config.settings import SettingsError
    from qwen_tools.config.settings_edit import (
        SettingsEditError,
        remove_entry,
        write_settings_text,
    )

    path = _settings_path(args.scope, args.cwd)
    try:
        text = _read(path)
        updated, removed = remove_entry(text, "mcpServers", args.name, path=path)
        if removed:
            write_settings_text(path, updated)
    except (SettingsError, SettingsEditError, OSError) as exc:
        return _update_failed(path, exc)
    if removed:
        import contextlib

        from qwen_tools.config.config import qwen_home
        from qwen_tools.mcp.oauth_store import forget_server, tokens_path

        with contextlib.suppress(OSError):  # as 0.24.4: its OAuth credentials go with it
            forget_server(tokens_path(qwen_home()), args.name)
        print(f'Server "{args.name}" removed from {args.scope} settings.')
    else:
        print(f'Server "{args.name}" not found in {args.scope} settings.')
    return EXIT_OK


def run_mcp(args: argparse.Namespace) -> int:
    """Entry point of ``qwen-tools mcp``."""
    if args.mcp_command == "add":
        return _run_add(args)
    if args.mcp_command == "remove":
        return _run_remove(args)
    if args.mcp_command in ("approve", "reject"):
        from qwen_tools.cli.mcp_approve import run_approval

        return run_approval(args)
    if args.mcp_command == "auth":
        from qwen_tools.cli.mcp_auth import run_auth

        return run_auth(args)
    if args.mcp_command == "reconnect":
        from qwen_tools.cli.mcp_reconnect import run_reconnect

        return run_reconnect(args)
    from qwen_tools.cli.mcp_list import run_list

    return run_list(args)
