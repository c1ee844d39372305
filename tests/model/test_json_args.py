"""Tool-call arguments are parsed and repaired as Qwen Code 0.24.4 does.

``data/tool_arguments_reference.json`` holds what the reference produced, run under node
against the 0.24.4 bundle: for ``arguments``, the streaming parser's steps on every prefix of
several realistic argument objects (output cut off anywhere), on single-quoted, unquoted,
Python-repr and randomly damaged variants; for ``repair``, ``jsonrepair``'s output (or its
failure) on randomly mutated JSON and JSON-like character soup.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qwen_tools.jscompat.jsonrepair import JSONRepairError, jsonrepair
from qwen_tools.model.json_args import dumps_arguments, parse_tool_arguments

DATA = json.loads((Path(__file__).parent / "data" / "tool_arguments_reference.json").read_text())


def test_arguments_match_the_reference() -> None:
    mismatches = []
    for case in DATA["arguments"]:
        parsed = parse_tool_arguments(case["text"])
        if parsed.value != case["args"] or parsed.truncated != case["truncated"]:
            mismatches.append((case["text"], case["args"], parsed.value))
    assert mismatches == []
    assert len(DATA["arguments"]) > 800


def test_jsonrepair_output_matches_the_reference() -> None:
    mismatches = []
    for case in DATA["repair"]:
        try:
            output: str | None = jsonrepair(case["text"])
        except JSONRepairError:
            output = None
        if output != case["output"]:
            mismatches.append((case["text"], case["output"], output))
    assert mismatches == []
    outcomes = {case["output"] is None for case in DATA["repair"]}
    assert outcomes == {True, False}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"pattern": "*.md"', {"pattern": "*.md"}),  # the qwen-diff sample's broken call
        ('{"a": 1,}', {"a": 1}),
        ("{'a': 'b'}", {"a": "b"}),
        ('{a: 1, b: "x"}', {"a": 1, "b": "x"}),
        ('{"a": "trunc', {"a": "trunc"}),
        ('{"a": [1, 2', {"a": [1, 2]}),
        ('{"a":', {"a": None}),
        ('{"a', {"a": None}),
        ('{"a": True, "b": None}', {"a": True, "b": None}),
        ("[1, 2]", {}),
        ('"just a string"', {}),
        ("", {}),
        ("   ", {}),
    ],
)
def test_common_repairs(text: str, expected: dict[str, object]) -> None:
    assert parse_tool_arguments(text).value == expected


def test_truncation_is_reported() -> None:
    assert parse_tool_arguments('{"a": "b').truncated
    assert parse_tool_arguments('{"a": [1').truncated
    assert not parse_tool_arguments('{"a": 1}').truncated
    assert not parse_tool_arguments('{"a": 1}').repaired
    assert parse_tool_arguments("{'a': 1}").repaired


def test_history_serialisation_is_json_stringify() -> None:
    assert dumps_arguments({"path": "/tmp/é", "n": 2.0, "f": 1.5, "l": [1.0]}) == (
        '{"path":"/tmp/é","n":2,"f":1.5,"l":[1]}'
    )
