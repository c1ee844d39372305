"""``discover_command_tools`` and the registry builders, with real discovery scripts."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from qwen_tools import Config
from qwen_tools.config.tool_settings import ToolSettings
from qwen_tools.discovery.command_discovery import (
    NO_NAME,
    NOT_AN_ARRAY,
    discover_command_tools,
)
from qwen_tools.discovery.discovered_tool import DiscoveredTool
from qwen_tools.discovery.schema import gemini_to_json_schema
from qwen_tools.session.default_registry import build_registry, build_registry_async
from support.discovery import make_config, py, script
from support.processes import group_members, wait_group_gone


def printing(ws: Path, output: Any, *, name: str = "discover.py") -> str:
    """A discovery command that prints ``output`` as JSON."""
    path = script(ws, name, f"print({json.dumps(json.dumps(output))})\n")
    return py(path)


async def test_every_accepted_shape_in_order(ws: Path) -> None:
    output = [
        {"function_declarations": [{"name": "a", "description": "A."}, {"name": "b"}]},
        {"functionDeclarations": [{"name": "c"}]},
        {"name": "d", "description": "D."},
        {"function_declarations": [], "name": "ignored_because_the_array_wins"},
    ]
    report = await discover_command_tools(
        make_config(ws, discovery=printing(ws, output), call="true")
    )
    assert [t.name for t in report.tools] == ["a", "b", "c", "d"]
    assert report.problems == []
    tool = report.tools[0]
    assert isinstance(tool, DiscoveredTool)
    assert tool.declared_description == "A."
    assert tool.description.startswith("A.\n\nThis tool was found by running `")
    assert report.tools[1].declared_description == ""


async def test_items_that_are_not_declarations_are_reported(ws: Path) -> None:
    output = [None, 3, {"description": "no name"}, {"name": "ok"}]
    report = await discover_command_tools(
        make_config(ws, discovery=printing(ws, output), call="true")
    )
    assert [t.name for t in report.tools] == ["ok"]
    assert report.problems == [
        "Discovery output item [0] is not an object; ignored.",
        "Discovery output item [1] is not an object; ignored.",
        "Discovery output item [2] has no name, function_declarations or functionDeclarations; "
        "ignored.",
    ]


async def test_parameters_json_schema_wins_then_classic_parameters(ws: Path) -> None:
    classic = {
        "type": "OBJECT",
        "properties": {
            "n": {"type": "INTEGER", "description": "How many."},
            "tag": {"type": "STRING", "nullable": True, "enum": ["x", "y"], "format": "enum"},
            "items": {"type": "ARRAY", "items": {"type": "NUMBER"}, "minItems": "1"},
        },
        "required": ["n"],
        "propertyOrdering": ["n", "tag", "items"],
    }
    json_schema = {"type": "object", "properties": {"s": {"type": "string"}}}
    output = [
        {"name": "both", "parametersJsonSchema": json_schema, "parameters": classic},
        {"name": "classic", "parameters": classic},
        {"name": "bad_json_schema", "parametersJsonSchema": ["not", "an", "object"]},
        {"name": "none"},
    ]
    report = await discover_command_tools(
        make_config(ws, discovery=printing(ws, output), call="true")
    )
    schemas = {t.name: t.parameter_schema for t in report.tools}
    assert schemas["both"] == json_schema
    assert schemas["classic"] == {
        "type": "object",
        "properties": {
            "n": {"type": "integer", "description": "How many."},
            "tag": {"type": ["string", "null"], "enum": ["x", "y", None]},
            "items": {"type": "array", "items": {"type": "number"}, "minItems": 1},
        },
        "required": ["n"],
    }
    assert schemas["bad_json_schema"] == {"type": "object", "properties": {}}
    assert schemas["none"] == {"type": "object", "properties": {}}
    assert report.tools[0].schema.to_dict()["parametersJsonSchema"] == json_schema


def test_gemini_conversion_details() -> None:
    converted = gemini_to_json_schema(
        {
            "type": "OBJECT",
            "nullable": True,
            "properties": {
                "any": {"anyOf": [{"type": "STRING"}, {"type": "BOOLEAN"}]},
                "free": {"type": "TYPE_UNSPECIFIED", "example": 3},
                "map": {"type": "OBJECT", "additionalProperties": {"type": "INTEGER"}},
            },
        }
    )
    assert converted == {
        "type": ["object", "null"],
        "properties": {
            "any": {"anyOf": [{"type": "string"}, {"type": "boolean"}]},
            "free": {"examples": [3]},
            "map": {"type": "object", "additionalProperties": {"type": "integer"}},
        },
    }


async def test_nameless_and_duplicate_declarations_are_skipped(ws: Path) -> None:
    output = [
        {"function_declarations": [{"description": "nameless"}, {"name": ""}, "text"]},
        {"name": "twice", "description": "first"},
        {"functionDeclarations": [{"name": "twice", "description": "second"}]},
        {"function_declarations": [{"name": 7}]},
    ]
    report = await discover_command_tools(
        make_config(ws, discovery=printing(ws, output), call="true")
    )
    assert [(t.name, t.declared_description) for t in report.tools] == [("twice", "first")]
    assert report.problems == [
        NO_NAME,
        NO_NAME,
        NO_NAME,
        'Discovered tool "twice" is declared more than once; the first declaration is kept.',
        "Discovered a tool whose name is not a string (7). Skipping.",
    ]


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("print('[{oops')", "Tool discovery command did not print valid JSON: "),
        ('print(\'{"name": "x"}\')', NOT_AN_ARRAY),
        ("print('null')", NOT_AN_ARRAY),
        (
            "import sys; sys.stderr.write('no tools here\\n'); sys.exit(2)",
            "Tool discovery command failed with exit code 2 (stderr: no tools here)",
        ),
        (
            "import os; os.kill(os.getpid(), 9)",
            "Tool discovery command was killed by signal SIGKILL",
        ),
        (
            "import sys; sys.stdout.write('x' * (11 * 1024 * 1024))",
            "Tool discovery command output exceeded size limit of 10485760 bytes.",
        ),
    ],
)
async def test_failures_are_problems_not_exceptions(
    ws: Path, caplog: pytest.LogCaptureFixture, body: str, reason: str
) -> None:
    command = py(script(ws, "discover.py", body))
    with caplog.at_level(logging.WARNING, logger="qwen_tools.discovery"):
        report = await discover_command_tools(make_config(ws, discovery=command))
    assert report.tools == []
    assert len(report.problems) == 1
    assert report.problems[0].startswith(f'Tool discovery command "{command}" failed: {reason}')
    assert caplog.messages == report.problems


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ("/nonexistent/discover --json", "spawn /nonexistent/discover ENOENT"),
        ("   ", "Tool discovery command is empty or contains only whitespace."),
        ("python3 'unclosed", "Tool discovery command could not be split into arguments: "),
    ],
)
async def test_commands_that_cannot_run(ws: Path, command: str, reason: str) -> None:
    report = await discover_command_tools(make_config(ws, discovery=command))
    assert report.tools == []
    assert report.problems[0].startswith(f'Tool discovery command "{command}" failed: {reason}')


async def test_no_command_no_discovery(ws: Path) -> None:
    report = await discover_command_tools(make_config(ws))
    assert report.tools == [] and report.problems == []


async def test_a_hanging_command_is_killed_with_its_group(ws: Path) -> None:
    pids = ws / "pids"
    body = f"""
        import os, subprocess, sys, time
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        open({str(pids)!r}, "w").write(f"{{os.getpid()}} {{child.pid}}")
        time.sleep(60)
    """
    config = make_config(ws, discovery=py(script(ws, "hang.py", body)))
    report = await discover_command_tools(config, timeout_s=1.0)
    assert report.tools == []
    assert report.problems[0].endswith(
        "failed: Tool discovery command timed out after 1 s; its process group was killed."
    )
    leader, child = (int(p) for p in pids.read_text().split())
    assert wait_group_gone(leader)
    assert group_members(leader) == []
    for pid in (leader, child):
        try:
            with open(f"/proc/{pid}/stat", "rb") as handle:
                state = handle.read().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue  # gone (and reaped)
        assert state == b"Z", f"{pid} is still running"


async def test_stderr_noise_and_project_root_cwd(ws: Path) -> None:
    (ws / "decl.json").write_text(json.dumps([{"name": "from_cwd"}]))
    body = """
        import sys
        sys.stderr.write("DeprecationWarning: something\\n")
        print(open("decl.json").read())
    """
    report = await discover_command_tools(
        make_config(ws, discovery=py(script(ws, "discover.py", body)), call="true")
    )
    assert [t.name for t in report.tools] == ["from_cwd"]
    assert report.problems == []


async def test_missing_call_command_is_reported(ws: Path) -> None:
    config = make_config(ws, discovery=printing(ws, [{"name": "x"}]), call=None)
    report = await discover_command_tools(config)
    assert [t.name for t in report.tools] == ["x"]
    assert report.problems == [
        "1 tool(s) were discovered, but tools.callCommand is not set, so calling them will fail."
    ]


# -- the registry ------------------------------------------------------------------------------


def _clashing(ws: Path) -> str:
    return printing(ws, [{"name": "hello"}, {"name": "read_file"}, {"name": "hidden"}])


async def test_build_registry_async_adds_discovered_after_builtins(
    ws: Path, caplog: pytest.LogCaptureFixture
) -> None:
    config = make_config(ws, discovery=_clashing(ws), call="true", exclude=["hidden"])
    with caplog.at_level(logging.WARNING, logger="qwen_tools.discovery"):
        registry = await build_registry_async(config)
    names = registry.get_all_tool_names()
    assert names[-1] == "hello"
    assert "hidden" not in names
    read_file = registry.get_tool("read_file")
    assert read_file is not None and not isinstance(read_file, DiscoveredTool)
    assert caplog.messages == [
        'Discovered tool "read_file" was skipped: a tool with that name is already registered.'
    ]
    core = ("read_file", "hello")
    core_only = Config(ws, settings=ToolSettings(discovery_command=_clashing(ws), core=core))
    assert sorted((await build_registry_async(core_only)).get_all_tool_names()) == [
        "hello",
        "read_file",
    ]


def test_sync_build_registry_discovers_outside_an_event_loop(ws: Path) -> None:
    registry = build_registry(make_config(ws, discovery=_clashing(ws), call="true"))
    assert "hello" in registry.get_all_tool_names()


async def test_sync_build_registry_inside_a_loop_warns(
    ws: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="qwen_tools.discovery"):
        registry = build_registry(make_config(ws, discovery=_clashing(ws), call="true"))
    assert "hello" not in registry.get_all_tool_names()
    assert "build_registry_async" in caplog.text
