"""Opening a session imports no tool, validator or engine: each is imported when first used.

Every check runs in a fresh interpreter and reads ``sys.modules``: deterministic, no timing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from qwen_tools import Config, ToolRegistrationError, ToolRegistry, build_registry
from qwen_tools.tools import create_builtin_tools

HEAVY = [
    # validators
    "jsonschema",
    "fastjsonschema",
    # engines of single tools
    "httpx",
    "pypdf",
    "markdownify",
    "bashlex",
    "pyuca",
    "wcmatch",
    "rapidfuzz",
    "yaml",
    "qwen_tools.sandbox.landlock",
    "qwen_tools.tools.grep.ripgrep",
    "qwen_tools.tools.web_fetch.http",
    "qwen_tools.tools.file_reading.notebook",
    "qwen_tools.shell.command_words",
    "qwen_tools.execution.permission_rules",
    # the tools themselves
    "qwen_tools.tools.read_file",
    "qwen_tools.tools.grep.tool",
    "qwen_tools.tools.shell.tool",
    "qwen_tools.tools.web_fetch.tool",
    "qwen_tools.tools.edit.tool",
    "qwen_tools.tools.task.tool",
]

_SCRIPT = """
import asyncio, json, sys
heavy = json.loads(sys.argv[2])
def loaded():
    return sorted(m for m in heavy if m in sys.modules)
import qwen_tools
report = {"import": loaded()}
config = qwen_tools.Config.load(sys.argv[1])
registry = qwen_tools.build_registry(config)
report["names"] = registry.get_all_tool_names()
report["open"] = loaded()
tool = registry.get_tool("read_file")
signal = qwen_tools.AbortController().signal
result = asyncio.run(tool.build({"file_path": sys.argv[3]}).execute(signal))
report["read"] = str(result.llm_content)
report["after_read"] = loaded()
try:
    tool.build({"file_path": sys.argv[3], "limit": "many"})
except Exception as exc:
    report["invalid"] = str(exc)
report["after_invalid"] = loaded()
registry.get_all_tools()
report["all"] = loaded()
print(json.dumps(report))
"""


def _run(tmp_path: Path) -> dict[str, object]:
    (tmp_path / "a.txt").write_text("hello\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("QWEN")}
    env["HOME"] = str(tmp_path / "home")
    out = subprocess.run(
        [sys.executable, "-c", _SCRIPT, str(tmp_path), json.dumps(HEAVY), str(tmp_path / "a.txt")],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    report: dict[str, object] = json.loads(out.stdout.splitlines()[-1])
    return report


def test_opening_a_session_imports_no_tool_validator_or_engine(tmp_path: Path) -> None:
    report = _run(tmp_path)
    assert report["import"] == []
    assert report["open"] == []
    assert "read_file" in report["names"] and "grep_search" in report["names"]  # type: ignore[operator]


def test_a_call_with_plain_params_imports_its_tool_and_no_validator(tmp_path: Path) -> None:
    report = _run(tmp_path)
    assert report["read"] == "hello\n"
    assert report["after_read"] == ["qwen_tools.tools.read_file"]


def test_invalid_params_bring_the_message_producing_validator(tmp_path: Path) -> None:
    report = _run(tmp_path)
    assert report["invalid"] == "params/limit must be integer,null"
    assert "jsonschema" in report["after_invalid"]  # type: ignore[operator]
    assert "qwen_tools.tools.grep.tool" not in report["after_invalid"]  # type: ignore[operator]


def test_listing_every_tool_builds_them_all(tmp_path: Path) -> None:
    report = _run(tmp_path)
    assert "qwen_tools.tools.grep.tool" in report["all"]  # type: ignore[operator]
    assert "qwen_tools.tools.shell.tool" in report["all"]  # type: ignore[operator]


def test_declarations_are_those_of_the_built_tools(tmp_path: Path) -> None:
    config = Config.load(tmp_path)
    lazy = build_registry(config)
    names = lazy.get_all_tool_names()
    eager = create_builtin_tools(config)
    assert names == [t.name for t in eager]
    assert lazy.get_function_declarations() == sorted(
        (t.schema for t in eager), key=lambda s: s.name
    )
    assert [type(t).__name__ for t in lazy.get_all_tools()] == [
        type(t).__name__ for t in sorted(eager, key=lambda t: t.display_name)
    ]


def test_a_factory_obeys_the_registration_rules(tmp_path: Path) -> None:
    from qwen_tools.registry.registry import ToolFactory

    config = Config.load(tmp_path)
    registry = build_registry(config)
    read_file = create_builtin_tools(config)[0]
    with pytest.raises(ToolRegistrationError, match=r"already registered \(by ReadFileTool\)"):
        registry.register_factory(ToolFactory("read_file", lambda: read_file))
    registry.deny_rule = lambda name, aliases, server: "Read" if name == "x" else None
    with pytest.raises(ToolRegistrationError, match='denied by the rule "Read"'):
        registry.register_factory(ToolFactory("x", lambda: read_file))
    registry = ToolRegistry()
    registry.register_factory(ToolFactory("not_read_file", lambda: read_file))
    with pytest.raises(ToolRegistrationError, match="built a tool named"):
        registry.get_tool("not_read_file")


# What a plain built-in ``qwen-tools call`` does not need: imported when first used.
CLI_LAZY = [
    "secrets",  # hmac and hashlib come with it
    "hmac",
    "qwen_tools.shell.command_words",  # the shell parser, for rules on shell commands
    "qwen_tools.shell.virtual_ops",
    "qwen_tools.shell.syntax",
    "tempfile",  # background shells write their status with it
    "datetime",
    "uuid",  # and platform: the session id is made from os.urandom
    # the register of command trees: a call that started no process ends without it
    "qwen_tools.process.supervisor",
    "qwen_tools.process.tree",
    "qwen_tools.process.cgroup",
    "fastjsonschema",  # plain params of a plain schema are proved valid without it
    "qwen_tools.contract.display",  # the display classes: for the tools that build them
    "qwen_tools.contract.confirmation",  # the prompts: for the calls that ask
    "decimal",  # Number.toFixed of a size in a message
    "qwen_tools.fs.atomic",  # atomic writes (and their temp files): for what writes
    "qwen_tools.fs.temp_files",
    "anyio",  # worker threads: a small file is read inline
    "qwen_tools.registry.suggestions",  # "did you mean": for a name that is not registered
    # the other commands' parsers
    "qwen_tools.cli.run_args",
    "qwen_tools.cli.mcp_cmd",
    "qwen_tools.cli.chat",
]

_CLI_SCRIPT = """
import json, sys
from qwen_tools.cli.main import main
watched = json.loads(sys.argv[1])
code = main(sys.argv[2:])
print(json.dumps({"code": code, "loaded": sorted(m for m in watched if m in sys.modules)}))
"""


def _cli_loaded(tmp_path: Path, *argv: str) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("QWEN")}
    env["HOME"] = str(tmp_path / "home")
    out = subprocess.run(
        [sys.executable, "-c", _CLI_SCRIPT, json.dumps(CLI_LAZY), *argv],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    report: dict[str, object] = json.loads(out.stdout.splitlines()[-1])
    return report


def test_a_builtin_cli_call_leaves_the_unneeded_modules_unloaded(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("hello\n")
    args = json.dumps({"file_path": str(tmp_path / "a.txt")})
    report = _cli_loaded(tmp_path, "call", "read_file", args)
    assert report == {"code": 0, "loaded": []}


def test_a_shell_deny_rule_still_brings_the_shell_parser(tmp_path: Path) -> None:
    settings = tmp_path / ".qwen" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"permissions": {"deny": ["Bash(rm:*)"]}}))
    args = json.dumps({"command": "rm -rf x"})
    report = _cli_loaded(tmp_path, "call", "run_shell_command", args, "--approval-mode", "yolo")
    assert report["code"] != 0  # refused by the rule
    assert "qwen_tools.shell.command_words" in report["loaded"]  # type: ignore[operator]


def test_the_session_id_is_a_uuid4(tmp_path: Path) -> None:
    import uuid

    ids = {Config.load(tmp_path).session_id for _ in range(50)}
    assert len(ids) == 50
    for value in ids:
        parsed = uuid.UUID(hex=value)
        assert parsed.hex == value
        assert parsed.version == 4 and parsed.variant == uuid.RFC_4122


def test_a_text_display_is_printed_without_the_display_classes(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("hello\n")
    report = _cli_loaded(tmp_path, "call", "list_directory", json.dumps({"path": str(tmp_path)}))
    assert report["code"] == 0
    assert "qwen_tools.contract.display" not in report["loaded"]  # type: ignore[operator]
