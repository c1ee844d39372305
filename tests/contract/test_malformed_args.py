"""Malformed arguments get a result or a clear error from every built-in tool, never an exception.

The corpus (``support.malformed_args``) spoils each slot of each tool's arguments in turn: lone
surrogates, numbers no tool can use, nesting far past the limit, wrong shapes, and arguments
that are not an object. ``run_tool_call`` must answer every one, with text every transport can
encode, and the rules behind the answers are pinned here: a lone surrogate becomes U+FFFD (as
Node does when it writes a string anywhere), an integer beyond the double range is Infinity (as
``JSON.parse`` reads it) and fails an integer schema, and nesting deeper than 100 levels is an
invalid-params error that names the parameter.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import pytest

from qwen_tools import (
    ApprovalMode,
    CompletedToolCall,
    Config,
    ToolCallRequest,
    build_registry,
    run_tool_call,
    validate_params,
)
from qwen_tools.config.tool_settings import ToolSettings
from qwen_tools.config.web_settings import SearchProviderConfig, WebSearchSettings, WebSettings
from qwen_tools.contract.errors import ToolErrorType
from support.malformed_args import BIG_INT, Deep, base_args, cases

TOOLS = sorted(base_args(Path("/ws")))
PYTHON_INTERNALS = re.compile(
    r"codec can't|surrogates not allowed|recursion|Traceback|object has no attribute|"
    r"unhashable|not subscriptable|Exceeds the limit|cannot convert float|OverflowError|"
    r"NoneType|takes \d+ positional|unsupported operand|not supported between"
)


def depth_error(key: str) -> str:
    return f"params/{key} must NOT be nested more than 100 levels deep"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "notes.txt").write_text("line 1\nline 2\nline 3\n")
    return root


def config_for(ws: Path, tmp_path: Path) -> Config:
    """YOLO (every call runs), web search on a provider nobody listens for (fails at once)."""
    provider = SearchProviderConfig("tavily", api_key="k", base_url="http://127.0.0.1:9")
    web = WebSettings(search=WebSearchSettings(providers=(provider,)))
    return Config(
        ws,
        approval_mode=ApprovalMode.YOLO,
        home_dir=str(tmp_path / "home" / ".qwen"),
        settings=ToolSettings(web=web),
    )


async def call(config: Config, name: str, args: Any) -> CompletedToolCall:
    registry = build_registry(config)
    return await run_tool_call(registry, config, ToolCallRequest(name, args, "call_1"))


def assert_clear(done: CompletedToolCall, label: str) -> None:
    text = done.response_text
    assert isinstance(text, str), label
    text.encode("utf-8")  # every transport can carry it
    if done.status == "error":
        assert done.error_type is not ToolErrorType.UNHANDLED_EXCEPTION, (label, text)
        assert not PYTHON_INTERNALS.search(text), (label, text)


@pytest.mark.parametrize("tool", TOOLS)
async def test_every_malformed_call_gets_an_answer(ws: Path, tmp_path: Path, tool: str) -> None:
    config = config_for(ws, tmp_path)
    registry = build_registry(config)
    assert registry.get_tool(tool) is not None, f"{tool} is not registered"
    for case in cases(ws, [tool]):
        done = await run_tool_call(
            registry, config, ToolCallRequest(case.tool, case.value(), "call_1")
        )
        assert_clear(done, case.label)
        if case.deep_key is not None:
            assert done.response_text == depth_error(case.deep_key), case.label


@pytest.mark.parametrize("levels", [101, 150, 600, 1200, 5000, 50_000])
async def test_nesting_past_the_limit_names_the_parameter(
    ws: Path, tmp_path: Path, levels: int
) -> None:
    config = config_for(ws, tmp_path)
    args = {"file_path": str(ws / "notes.txt"), "offset": Deep(levels - 1).value()}
    done = await call(config, "read_file", args)
    assert done.status == "error"
    assert done.error_type is ToolErrorType.INVALID_TOOL_PARAMS
    assert done.response_text == depth_error("offset")


async def test_nesting_up_to_the_limit_is_validated_as_usual(ws: Path, tmp_path: Path) -> None:
    config = config_for(ws, tmp_path)
    args = {"file_path": str(ws / "notes.txt"), "offset": Deep(99).value()}
    done = await call(config, "read_file", args)
    assert done.response_text == "params/offset must be integer,null"


def test_validate_params_checks_depth_without_recursing() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "array"}}}
    assert validate_params(schema, {"a": Deep(99).value()})[1] is None
    for levels in (100, 1000, 100_000):
        assert validate_params(schema, {"a": Deep(levels).value()})[1] == depth_error("a")
    key = "x/y~z"
    assert validate_params(schema, {key: Deep(500).value()})[1] == depth_error("x~1y~0z")


def test_recursive_schema_on_deep_data_is_an_error_not_a_crash() -> None:
    tree = {
        "type": "object",
        "properties": {"t": {"$ref": "#/definitions/node"}},
        "definitions": {
            "node": {"type": "array", "items": {"$ref": "#/definitions/node"}},
        },
    }
    assert validate_params(tree, {"t": Deep(98, []).value()})[1] is None
    assert validate_params(tree, {"t": Deep(98, 5).value()})[1] is not None
    assert validate_params(tree, {"t": Deep(3000, []).value()})[1] == depth_error("t")


@pytest.mark.parametrize(
    ("value", "label"),
    [(math.inf, "1e400"), (-math.inf, "-1e400"), (BIG_INT, "5000 digits"), (math.nan, "NaN")],
    ids=["1e400", "-1e400", "5000 digits", "NaN"],
)
async def test_numbers_no_tool_can_use_fail_the_schema(
    ws: Path, tmp_path: Path, value: Any, label: str
) -> None:
    config = config_for(ws, tmp_path)
    done = await call(config, "read_file", {"file_path": str(ws / "notes.txt"), "offset": value})
    assert done.response_text == "params/offset must be integer,null", label
    done = await call(config, "run_shell_command", {"command": "echo hi", "timeout": value})
    assert done.response_text == "params/timeout must be integer", label


def test_non_finite_numbers_are_not_numbers() -> None:
    schema = {"type": "object", "properties": {"x": {"type": "number"}}}
    for value in (math.inf, -math.inf, math.nan, BIG_INT):
        assert validate_params(schema, {"x": value})[1] == "params/x must be number"
    assert validate_params(schema, {"x": 2**64})[1] is None


async def test_lone_surrogates_become_replacement_characters(ws: Path, tmp_path: Path) -> None:
    config = config_for(ws, tmp_path)
    done = await call(config, "read_file", {"file_path": str(ws / "notes.txt") + "\ud800"})
    assert done.response_text == f"File not found: {ws}/notes.txt\ufffd"
    done = await call(
        config, "write_file", {"file_path": str(ws / "made\udce9.txt"), "content": "a\ud800b"}
    )
    assert done.status == "success", done.response_text
    assert (ws / "made\ufffd.txt").read_bytes() == b"a\xef\xbf\xbdb"
    done = await call(
        config, "write_file", {"file_path": str(ws / "pair.txt"), "content": "\ud83d\ude00"}
    )
    assert done.status == "success", done.response_text
    assert (ws / "pair.txt").read_text(encoding="utf-8") == "\U0001f600"


async def test_surrogate_in_the_tool_name_is_an_unknown_tool(ws: Path, tmp_path: Path) -> None:
    config = config_for(ws, tmp_path)
    done = await call(config, "read\ud800file", {})
    assert done.status == "error"
    assert done.error_type is ToolErrorType.TOOL_NOT_REGISTERED
    done.response_text.encode("utf-8")


async def test_shell_gets_the_replacement_character(ws: Path, tmp_path: Path) -> None:
    config = config_for(ws, tmp_path)
    done = await call(config, "run_shell_command", {"command": "printf '%s' 'x\ud800y'"})
    assert done.status == "success", done.response_text
    assert "x\ufffdy" in done.response_text


def test_json_in_a_string_is_held_to_the_same_limits() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "array"}}}
    for levels in (500, 5000):
        text = "[" * levels + "]" * levels
        assert validate_params(schema, {"a": text}) == ({"a": text}, "params/a must be array")
    assert validate_params(schema, {"a": '["\\ud800", 1]'}) == ({"a": ["\ufffd", 1]}, None)
    assert validate_params(schema, {"a": "[1" + "0" * 5000 + "]"}) == ({"a": [math.inf]}, None)
    assert validate_params(schema, {"a": "[NaN]"})[1] == "params/a must be array"
