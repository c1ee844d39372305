"""``qwen-tools serve`` (stdio) driven by an independent client: the MCP Inspector's CLI mode.

``@modelcontextprotocol/inspector`` (pinned, run on Node 22 as it requires) starts the server
itself, lists the tools with its ``--strict`` schema-portability lint (which exits 6 on any
error-severity finding), and calls ``read_file``, ``glob`` and ``grep_search`` with
``--tool-arg key=value`` arguments. Each call must return exactly the text the in-process
pipeline gives for the same call.
"""

from __future__ import annotations

import base64
import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from qwen_tools import Config, ToolCallRequest, build_registry, run_tool_call
from qwen_tools.cli.serve_cmd import SESSION_ONLY_TOOLS
from support.npm_peers import node22, npm_bin
from support.processes import MARK_VAR

from .conftest import EXE, PNG

INSPECTOR_SPEC = "@modelcontextprotocol/inspector@2.12.0"
TOOL_IS_ERROR = 5
"""The Inspector's exit code for a call whose result has ``isError: true``."""
# The Inspector starts stdio servers with a minimal environment: these are passed with -e.
SERVER_ENV = (
    "QWEN_HOME",
    "QWEN_CODE_SYSTEM_SETTINGS_PATH",
    "QWEN_CODE_SYSTEM_DEFAULTS_PATH",
    "LANG",
    MARK_VAR,
)


@pytest.fixture(scope="module")
def inspector() -> list[str]:
    """The Inspector's command line (installed once, cached across runs)."""
    return [str(node22()), str(npm_bin(INSPECTOR_SPEC, "mcp-inspector"))]


def inspect(
    inspector: list[str], ws: Path, env: dict[str, str], *args: str
) -> subprocess.CompletedProcess[str]:
    """``mcp-inspector --cli --format json ARGS -- qwen-tools serve --cwd WS``."""
    passed = [item for key in SERVER_ENV for item in ("-e", f"{key}={env[key]}")]
    argv = [*inspector, "--cli", "--format", "json", *passed, *args]
    return subprocess.run(
        [*argv, "--", str(EXE), "serve", "--cwd", str(ws)],
        env=env,
        cwd=ws,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def output_of(proc: subprocess.CompletedProcess[str], returncode: int = 0) -> dict[str, Any]:
    """The JSON object the Inspector printed, once its exit code is checked."""
    report = f"exit code {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    assert proc.returncode == returncode, report
    output: dict[str, Any] = json.loads(proc.stdout)
    assert "result" in output, report
    return output


def result_of(proc: subprocess.CompletedProcess[str], returncode: int = 0) -> dict[str, Any]:
    """The MCP result the Inspector received."""
    result: dict[str, Any] = output_of(proc, returncode)["result"]
    return result


async def pipeline_text(ws: Path, env: dict[str, str], name: str, args: dict[str, Any]) -> str:
    config = Config(ws, home_dir=env["QWEN_HOME"])
    done = await run_tool_call(build_registry(config), config, ToolCallRequest(name, args))
    assert done.status == "success", done.response_text
    return done.response_text


def test_tools_list_passes_the_strict_lint(
    inspector: list[str], ws: Path, env: dict[str, str]
) -> None:
    proc = inspect(inspector, ws, env, "--method", "tools/list", "--strict")
    output = output_of(proc)  # exit code 6 if any finding were an error
    findings = [f for tool in output.get("schemaFindings", []) for f in tool["findings"]]
    assert [f for f in findings if f["severity"] == "error"] == [], proc.stderr
    summary = re.search(r"^(\d+) errors?, (\d+) warnings?\b", proc.stderr, re.M)
    assert summary is not None, proc.stderr
    assert summary.groups() == ("0", str(len(findings))), proc.stderr
    tools = {tool["name"]: tool for tool in output["result"]["tools"]}
    registry = build_registry(Config(ws, home_dir=env["QWEN_HOME"]))
    assert set(tools) == set(registry.get_all_tool_names()) - set(SESSION_ONLY_TOOLS)
    read_file = tools["read_file"]
    assert read_file["title"] == "ReadFile"
    assert read_file["annotations"]["readOnlyHint"] is True
    assert "file_path" in read_file["inputSchema"]["properties"]


CALLS: list[tuple[str, list[str], dict[str, Any], str]] = [
    ("read_file", ["file_path={ws}/notes.txt"], {"file_path": "{ws}/notes.txt"}, "line 2"),
    (
        "read_file",
        ["file_path={ws}/notes.txt", "offset=1", "limit=1"],
        {"file_path": "{ws}/notes.txt", "offset": 1, "limit": 1},
        "Showing lines 2-2",
    ),
    ("glob", ["pattern=*.txt"], {"pattern": "*.txt"}, "{ws}/notes.txt"),
    ("grep_search", ["pattern=line 2"], {"pattern": "line 2"}, "notes.txt:2:line 2"),
]


@pytest.mark.parametrize(("tool", "tool_args", "args", "needle"), CALLS)
async def test_tools_call_returns_the_pipeline_text(
    inspector: list[str],
    ws: Path,
    env: dict[str, str],
    tool: str,
    tool_args: list[str],
    args: dict[str, Any],
    needle: str,
) -> None:
    pairs = [arg.format(ws=ws) for arg in tool_args]
    proc = inspect(
        inspector, ws, env, "--method", "tools/call", "--tool-name", tool, "--tool-arg", *pairs
    )
    result = result_of(proc)
    assert result["isError"] is False, result
    (block,) = result["content"]
    assert block["type"] == "text"
    expected_args = {k: v.format(ws=ws) if isinstance(v, str) else v for k, v in args.items()}
    assert block["text"] == await pipeline_text(ws, env, tool, expected_args)
    assert needle.format(ws=ws) in block["text"]


def test_read_file_of_an_image_returns_image_content(
    inspector: list[str], ws: Path, env: dict[str, str]
) -> None:
    proc = inspect(
        inspector,
        ws,
        env,
        *("--method", "tools/call", "--tool-name", "read_file"),
        *("--tool-arg", f"file_path={ws}/pixel.png"),
    )
    (block,) = result_of(proc)["content"]
    assert block["type"] == "image"
    assert block["mimeType"] == "image/png"
    assert base64.b64decode(block["data"]) == PNG


def test_a_missing_argument_is_an_error_result(
    inspector: list[str], ws: Path, env: dict[str, str]
) -> None:
    proc = inspect(inspector, ws, env, "--method", "tools/call", "--tool-name", "read_file")
    result = result_of(proc, returncode=TOOL_IS_ERROR)
    (envelope,) = [line for line in proc.stderr.splitlines() if line.startswith('{"error"')]
    assert json.loads(envelope)["error"]["code"] == "tool_is_error"
    assert result["isError"] is True
    assert result["content"] == [
        {"type": "text", "text": "params must have required property 'file_path'"}
    ]
