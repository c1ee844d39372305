"""Schema validation: the reference's coercions and AJV-style messages."""

from __future__ import annotations

from typing import Any

import pytest

from qwen_tools import validate_params

READ_FILE = {
    "type": "object",
    "properties": {
        "file_path": {"type": "string"},
        "offset": {"type": ["integer", "null"]},
        "limit": {"type": ["integer", "null"]},
    },
    "required": ["file_path"],
}
GREP = {
    "type": "object",
    "properties": {"pattern": {"type": "string"}, "limit": {"type": "integer", "minimum": 1}},
    "required": ["pattern"],
}
LS = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "ignore": {"type": "array", "items": {"type": "string"}},
        "options": {"type": "object", "properties": {"flag": {"type": "boolean"}}},
    },
    "required": ["path"],
}


@pytest.mark.parametrize(
    ("schema", "params", "message"),
    [
        (READ_FILE, {}, "params must have required property 'file_path'"),
        (READ_FILE, {"file_path": "x", "offset": 1.5}, "params/offset must be integer,null"),
        (GREP, {"pattern": "x", "limit": 0}, "params/limit must be >= 1"),
        (GREP, {"pattern": "x", "limit": "abc"}, "params/limit must be integer"),
        (GREP, {"limit": 0}, "params must have required property 'pattern'"),
        (LS, {"path": "/x", "ignore": "notjson"}, "params/ignore must be array"),
        (LS, {"path": "/x", "ignore": [[1]]}, "params/ignore/0 must be string"),
        (LS, {"path": "/x", "options": {"flag": "maybe"}}, "params/options/flag must be boolean"),
        (
            {
                "type": "object",
                "properties": {"x": {"type": "string"}},
                "additionalProperties": False,
            },
            {"y": 1},
            "params must NOT have additional properties",
        ),
        (
            {"type": "object", "properties": {"x": {"type": "string", "enum": ["a"]}}},
            {"x": "b"},
            "params/x must be equal to one of the allowed values",
        ),
        (
            {"type": "object", "properties": {"x": {"type": "array", "minItems": 1}}},
            {"x": []},
            "params/x must NOT have fewer than 1 items",
        ),
        (
            {"type": "object", "properties": {"x": {"type": "string", "maxLength": 2}}},
            {"x": "abc"},
            "params/x must NOT have more than 2 characters",
        ),
        (
            {"type": "object", "properties": {"x": {"type": "string", "pattern": "^a+$"}}},
            {"x": "b"},
            'params/x must match pattern "^a+$"',
        ),
        (
            {
                "type": "object",
                "properties": {"x": {"anyOf": [{"type": "string"}, {"type": "integer"}]}},
            },
            {"x": [1]},
            "params/x must be string, params/x must be integer, params/x must match a schema in anyOf",
        ),
        ({"type": "object"}, "not an object", "Value of params must be an object"),
        ({"type": "object"}, [1, 2], "Value of params must be an object"),
    ],
)
def test_error_texts_match_ajv(schema: dict[str, Any], params: Any, message: str) -> None:
    assert validate_params(schema, params)[1] == message


def test_required_is_reported_before_property_errors() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "integer", "minimum": 5}, "b": {"type": "string"}},
        "required": ["b"],
    }
    assert validate_params(schema, {"a": 1})[1] == "params must have required property 'b'"


def test_first_property_in_schema_order_wins() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}}
    # numbers become strings where a string is wanted (reference coercion), so this is valid:
    assert validate_params(schema, {"b": 1.5, "a": 2.5}) == ({"b": "1.5", "a": "2.5"}, None)
    schema_objs = {
        "type": "object",
        "properties": {"a": {"type": "object"}, "b": {"type": "object"}},
    }
    assert validate_params(schema_objs, {"b": 1, "a": 2})[1] == "params/a must be object"


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        (
            {"file_path": "x", "offset": "0", "limit": "1"},
            {"file_path": "x", "offset": 0, "limit": 1},
        ),
        ({"file_path": "x", "offset": 2.0}, {"file_path": "x", "offset": 2}),
        ({"file_path": "x", "limit": " 7 "}, {"file_path": "x", "limit": 7}),
    ],
)
def test_numeric_coercion(params: dict[str, Any], expected: dict[str, Any]) -> None:
    data, error = validate_params(READ_FILE, params)
    assert error is None
    assert data == expected
    assert all(type(data[k]) is type(expected[k]) for k in expected)


def test_fractional_string_is_not_coerced_to_integer() -> None:
    assert validate_params(READ_FILE, {"file_path": "x", "offset": "1.5"})[1] == (
        "params/offset must be integer,null"
    )


def test_boolean_json_and_string_coercions() -> None:
    data, error = validate_params(
        LS, {"path": 5, "ignore": '["a", "b"]', "options": {"flag": "TRUE"}}
    )
    assert error is None
    assert data == {"path": "5", "ignore": ["a", "b"], "options": {"flag": True}}


def test_coercion_only_applies_when_first_validation_fails() -> None:
    schema = {"type": "object", "properties": {"x": {"type": ["string", "boolean"]}}}
    assert validate_params(schema, {"x": "true"}) == ({"x": "true"}, None)


def test_input_is_never_mutated() -> None:
    params = {"file_path": "x", "offset": "3"}
    validate_params(READ_FILE, params)
    assert params == {"file_path": "x", "offset": "3"}


def test_broken_schema_skips_validation() -> None:
    broken = {"type": "object", "properties": {"x": {"type": "no-such-type"}}}
    assert validate_params(broken, {"x": 1}) == ({"x": 1}, None)


def test_no_schema_accepts_any_object() -> None:
    assert validate_params({}, {"anything": [1]}) == ({"anything": [1]}, None)


def test_local_refs_are_followed_for_coercion() -> None:
    schema = {
        "type": "object",
        "$defs": {"n": {"type": "integer"}},
        "properties": {"count": {"$ref": "#/$defs/n"}},
    }
    assert validate_params(schema, {"count": "4"}) == ({"count": 4}, None)
    assert validate_params(schema, {"count": "four"})[1] == "params/count must be integer"
