"""A command parses its arguments with its own parser only, exactly as the full parser would.

``qwen-tools call ...`` builds the ``call`` sub-parser alone (the ``run``, ``mcp`` and ``chat``
modules are not imported); what it accepts, refuses and prints must not change.
"""

from __future__ import annotations

import argparse
import contextlib
import io

import pytest

from qwen_tools.cli.main import COMMANDS, build_parser


def _sub(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            found: argparse.ArgumentParser = action.choices[name]
            return found
    raise AssertionError("no sub-parsers")


@pytest.mark.parametrize("name", COMMANDS)
def test_each_command_alone_has_the_same_help(name: str) -> None:
    full, alone = build_parser(), build_parser(only=name)
    assert _sub(alone, name).format_help() == _sub(full, name).format_help()


@pytest.mark.parametrize(
    "argv",
    [
        ["call", "read_file", '{"file_path": "/x"}', "--json", "--session", "s1"],
        ["call", "--batch", "-", "--approval-mode", "yolo", "--cwd", "/tmp"],
        ["serve", "--transport", "http", "--port", "0", "--max-sessions", "3"],
        ["tools", "--json", "--include-directories", "a,b"],
        ["schema", "--format", "anthropic"],
    ],
)
def test_each_command_alone_parses_the_same(argv: list[str]) -> None:
    assert build_parser(only=argv[0]).parse_args(argv) == build_parser().parse_args(argv)


@pytest.mark.parametrize(
    "argv",
    [
        ["call", "read_file", "{}", "--approval-mode", "sometimes"],
        ["serve", "--port", "70000"],
        ["call", "--session", "../x"],
        ["schema", "--format", "yaml"],
    ],
)
def test_each_command_alone_refuses_the_same(argv: list[str]) -> None:
    said = []
    for parser in (build_parser(), build_parser(only=argv[0])):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), pytest.raises(SystemExit) as exit_info:
            parser.parse_args(argv)
        said.append((exit_info.value.code, err.getvalue()))
    assert said[0] == said[1]
    assert said[0][0] == 2
