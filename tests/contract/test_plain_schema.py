"""The library-free check only ever accepts what the validators accept.

:func:`proves_valid` may say "not proved" as often as it likes (the libraries then decide), but
every ``True`` must be a value ``jsonschema`` (with AJV's strict numbers) accepts too. Checked on
tricky cases by hand and on thousands of generated values against every built-in tool's schema.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from qwen_tools import Config, build_registry, validate_params
from qwen_tools.contract.plain_schema import proves_valid
from qwen_tools.contract.validation import schema_error


def _accepted(schema: dict[str, Any], value: Any) -> bool:
    return schema_error(schema, value) is None


INT = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1, "maximum": 5}}}
ENUM = {"type": "object", "properties": {"e": {"enum": [1, "a", None]}}}
CLOSED = {
    "type": "object",
    "properties": {"a": {"type": "string"}},
    "required": ["a"],
    "additionalProperties": False,
}
ARRAY = {
    "type": "object",
    "properties": {
        "xs": {
            "type": "array",
            "items": {"type": "string", "minLength": 1, "maxLength": 3},
            "minItems": 1,
            "maxItems": 2,
            "uniqueItems": True,
        }
    },
}


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        (INT, {"n": True}),  # a boolean is not an integer
        (INT, {"n": 0}),
        (INT, {"n": 6}),
        (INT, {"n": 2.5}),
        (INT, {"n": "2"}),  # coercion is for the slow path to do
        (INT, {"n": float("nan")}),
        (ENUM, {"e": True}),  # 1 == True in Python, not in JSON
        (ENUM, {"e": "b"}),
        (ENUM, {"e": [1]}),
        (CLOSED, {}),
        (CLOSED, {"a": "x", "b": 1}),
        (CLOSED, {"a": 1}),
        (ARRAY, {"xs": []}),
        (ARRAY, {"xs": ["a", "a"]}),
        (ARRAY, {"xs": ["a", "b", "c"]}),
        (ARRAY, {"xs": ["abcd"]}),
        (ARRAY, {"xs": [""]}),
        (ARRAY, {"xs": [1]}),
        (ARRAY, {"xs": ("a",)}),  # not a JSON array
        (
            {"type": "object", "properties": {"u": {"type": "array", "uniqueItems": True}}},
            {"u": [1, 1.0]},
        ),
        ({"type": "object", "properties": {"s": {"type": "string", "minLength": 2}}}, {"s": "😀"}),
    ],
)
def test_what_the_schema_refuses_is_never_proved(schema: dict[str, Any], value: Any) -> None:
    assert not proves_valid(schema, value)


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"s": {"type": "string", "pattern": "^a"}}},
        {"type": "object", "properties": {"s": {"type": "string", "format": "email"}}},
        {"type": "object", "patternProperties": {"^x": {"type": "string"}}},
        {"type": "object", "properties": {"s": {"type": "strin"}}},
        {"type": "object", "properties": {"s": {"type": "string", "minLength": "1"}}},
        {"type": "object", "properties": {"s": {"type": "string", "maxLength": True}}},
        {"type": "object", "required": "s"},
        {"$schema": "http://json-schema.org/draft-04/schema#", "type": "object"},
        {"type": "object", "properties": {"s": {"anyOf": [{"type": "string"}]}}},
        {"type": "object", "properties": {"s": {"$ref": "#/definitions/x"}}},
        {"type": "object", "properties": {"s": {"const": "a"}}},
        {"type": "object", "properties": {"s": True}},
        {"type": "object", "properties": {"s": {"type": "array", "items": [{"type": "string"}]}}},
    ],
)
def test_a_keyword_it_does_not_know_is_never_proved(schema: dict[str, Any]) -> None:
    assert not proves_valid(schema, {"s": "a"})


def test_an_integral_float_is_left_to_the_validators() -> None:
    assert not proves_valid(INT, {"n": 3.0})
    assert validate_params(INT, {"n": 3.0}) == ({"n": 3}, None)


def test_plain_valid_params_are_proved() -> None:
    assert proves_valid(INT, {"n": 3})
    assert proves_valid(ENUM, {"e": None}) and proves_valid(ENUM, {"e": 1.0})
    assert proves_valid(CLOSED, {"a": ""})
    assert proves_valid(ARRAY, {"xs": ["a", "bc"]})
    assert proves_valid({"type": "object", "properties": {"s": {"type": "string"}}}, {"t": 1})


def _builtin_schemas(tmp_path: Path) -> list[dict[str, Any]]:
    registry = build_registry(Config.load(tmp_path))
    return [tool.schema.parameters_json_schema for tool in registry.get_all_tools()]


_SCALARS: list[Any] = [None, True, False, 0, 1, -1, 2, 3.0, 2.5, 10**6, "", "a", "abc", "x" * 300]


def _value(rng: random.Random, schema: Any, depth: int = 0) -> Any:
    """Something near what ``schema`` asks for: often right, often subtly wrong."""
    if depth > 4 or not isinstance(schema, dict) or rng.random() < 0.15:
        return rng.choice([*_SCALARS, [], {}, ["a", "a"], [1, 1.0]])
    if "enum" in schema and rng.random() < 0.6:
        return rng.choice(schema["enum"])
    types = schema.get("type", "object")
    name = rng.choice(types) if isinstance(types, list) else types
    if name == "object":
        props = schema.get("properties", {})
        out = {k: _value(rng, sub, depth + 1) for k, sub in props.items() if rng.random() < 0.6}
        for key in schema.get("required", []):
            if rng.random() < 0.9:
                out.setdefault(key, _value(rng, props.get(key), depth + 1))
        if rng.random() < 0.1:
            out["unexpected"] = "x"
        return out
    if name == "array":
        return [_value(rng, schema.get("items"), depth + 1) for _ in range(rng.randrange(4))]
    if name == "string":
        return rng.choice(["", "a", "abc", "/abs/path", "x" * 300, "1"])
    if name in ("integer", "number"):
        return rng.choice([-1, 0, 1, 5, 100, 2.5, 3.0, True])
    return rng.choice(_SCALARS)


def test_every_value_proved_is_accepted_by_jsonschema(tmp_path: Path) -> None:
    rng = random.Random(20261125)
    proved = 0
    for schema in _builtin_schemas(tmp_path):
        for _ in range(400):
            value = _value(rng, schema)
            if proves_valid(schema, value):
                proved += 1
                assert _accepted(schema, value), (schema, value)
    assert proved > 1000  # it does prove the common case


def test_a_builtin_call_with_plain_params_is_proved(tmp_path: Path) -> None:
    schemas = {s.get("title", i): s for i, s in enumerate(_builtin_schemas(tmp_path))}
    assert schemas
    read = build_registry(Config.load(tmp_path)).get_tool("read_file")
    assert read is not None
    schema = read.schema.parameters_json_schema
    assert proves_valid(schema, {"file_path": "/a/b.txt"})
    assert proves_valid(schema, {"file_path": "/a/b.txt", "offset": 10, "limit": None})
