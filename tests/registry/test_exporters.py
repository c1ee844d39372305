"""Exporting tool declarations to the Anthropic, Gemini and MCP formats, and the dispatcher."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest
from jsonschema import Draft7Validator, Draft202012Validator

from qwen_tools.contract.declarative import FunctionDeclaration
from qwen_tools.contract.kinds import Kind
from qwen_tools.registry.exporters import (
    export_declarations,
    mcp_tool_annotations,
    to_anthropic_tools,
    to_gemini_openapi_declarations,
    to_gemini_tools,
    to_mcp_tools,
    to_openai_tools,
)
from support.export_fixtures import (
    BY_NAME,
    DECLS,
    KINDS,
    PYD,
    READ_FILE,
    TREE,
    PydArgs,
    walk_schema,
)

# -- Anthropic ------------------------------------------------------------------------------

ANTHROPIC_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def test_anthropic_tools() -> None:
    tools = to_anthropic_tools(DECLS)
    for tool, decl in zip(tools, DECLS, strict=True):
        assert set(tool) == {"name", "description", "input_schema"}
        assert ANTHROPIC_NAME.match(tool["name"])
        assert tool["input_schema"]["type"] == "object"
        Draft202012Validator.check_schema(tool["input_schema"])
        if decl.parameters_json_schema:
            assert tool["input_schema"] == decl.parameters_json_schema
    assert tools[DECLS.index(BY_NAME["get_goal"])]["input_schema"] == {"type": "object"}


@pytest.mark.parametrize("name", ["mcp__my.srv__echo", "", "a" * 65, "has space", "ok\n", "ünï"])
def test_anthropic_rejects_bad_names(name: str) -> None:
    with pytest.raises(ValueError, match="not valid for Anthropic"):
        to_anthropic_tools([FunctionDeclaration(name, "d", READ_FILE)])


def test_anthropic_accepts_64_char_name() -> None:
    assert to_anthropic_tools([FunctionDeclaration("a-" * 32, "d", {})])[0]["name"] == "a-" * 32


# -- Gemini ---------------------------------------------------------------------------------


def test_gemini_json_schema_tools() -> None:
    tools = to_gemini_tools(DECLS)
    assert len(tools) == 1
    decls = tools[0]["functionDeclarations"]
    assert [d["name"] for d in decls] == [d.name for d in DECLS]
    for entry, decl in zip(decls, DECLS, strict=True):
        if decl.name == "get_goal":
            assert "parametersJsonSchema" not in entry
            continue
        assert entry["parametersJsonSchema"] == decl.parameters_json_schema
        Draft202012Validator.check_schema(entry["parametersJsonSchema"])
    assert to_gemini_tools([]) == []


# JSON Schema for Gemini's OpenAPI-subset ``Schema`` message (lower-case types are accepted).
GEMINI_SCHEMA: dict[str, Any] = {
    "$defs": {
        "schema": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "type": {"enum": ["string", "number", "integer", "boolean", "array", "object"]},
                "format": {"type": "string"},
                "title": {"type": "string"},
                "description": {"type": "string"},
                "nullable": {"type": "boolean"},
                "enum": {"type": "array", "items": {"type": "string"}},
                "items": {"$ref": "#/$defs/schema"},
                "minItems": {"type": "integer"},
                "maxItems": {"type": "integer"},
                "properties": {
                    "type": "object",
                    "minProperties": 1,
                    "additionalProperties": {"$ref": "#/$defs/schema"},
                },
                "required": {"type": "array", "items": {"type": "string"}},
                "minLength": {"type": "integer"},
                "maxLength": {"type": "integer"},
                "pattern": {"type": "string"},
                "anyOf": {"type": "array", "items": {"$ref": "#/$defs/schema"}},
                "default": {},
                "minimum": {"type": "number"},
                "maximum": {"type": "number"},
            },
        }
    },
    "$ref": "#/$defs/schema",
}


def test_gemini_openapi_declarations_fit_the_schema_message() -> None:
    decls = to_gemini_openapi_declarations(DECLS)
    validator = Draft202012Validator(GEMINI_SCHEMA)
    for entry in decls:
        if entry["name"] == "get_goal":
            assert set(entry) == {"name", "description"}
            continue
        params = entry["parameters"]
        validator.validate(params)
        assert params["type"] == "object"
        for path, node in walk_schema(params):
            assert "$ref" not in node, path
            assert "$defs" not in node, path
            assert not isinstance(node.get("type"), list), path
            if "required" in node:
                assert set(node["required"]) <= set(node.get("properties", {})), path
            if "default" in node:
                assert "anyOf" not in node, path
            if "format" in node:
                assert (node["type"], node["format"]) in {
                    ("string", "date-time"), ("string", "enum"), ("integer", "int32"),
                    ("integer", "int64"), ("number", "float"), ("number", "double"),
                }  # fmt: skip


def test_gemini_openapi_conversions() -> None:
    by_name = {d["name"]: d for d in to_gemini_openapi_declarations(DECLS)}
    rf = by_name["read_file"]["parameters"]["properties"]
    assert rf["offset"] == {"type": "integer", "nullable": True}
    assert rf["pages"] == {"type": "string", "nullable": True}
    ms = by_name["mcp_style"]["parameters"]
    assert ms["properties"]["mode"] == {"enum": ["fast"]}
    assert ms["properties"]["ratio"] == {"type": "number", "minimum": 0, "maximum": 1}
    assert ms["properties"]["when"]["format"] == "date-time"
    assert "format" not in ms["properties"]["color"]
    assert "additionalProperties" not in ms["properties"]["options"]
    ag = by_name["agent"]["parameters"]
    assert ag["required"] == ["prompt"]
    assert len(ag["properties"]["fork_turns"]["anyOf"]) == 2
    pyd = by_name["pyd_tool"]["parameters"]["properties"]
    assert pyd["filtering"]["nullable"] is True
    assert pyd["filtering"]["type"] == "object"
    assert set(pyd["filtering"]["properties"]) == {"respect_git_ignore", "globs"}
    assert "default" not in pyd["filtering"]
    assert pyd["primary"]["description"] == "the primary entry"
    assert pyd["primary"]["properties"]["size"] == {
        "type": "integer",
        "title": "Size",
        "nullable": True,
    }
    assert pyd["entries"]["items"]["required"] == ["name"]
    assert pyd["depth"]["minimum"] == 1  # exclusiveMinimum 0 on an integer
    assert pyd["depth"]["maximum"] == 10


def test_gemini_openapi_enum_values_become_strings() -> None:
    schema = {"type": "object", "properties": {"level": {"type": "integer", "enum": [1, 2, None]}}}
    params = to_gemini_openapi_declarations([FunctionDeclaration("e", "d", schema)])[0][
        "parameters"
    ]
    assert params["properties"]["level"] == {
        "type": "integer",
        "enum": ["1", "2"],
        "nullable": True,
    }


def test_gemini_openapi_rejects_recursive_refs() -> None:
    with pytest.raises(ValueError, match=r"'tree'.*recursive \$ref"):
        to_gemini_openapi_declarations([FunctionDeclaration("tree", "d", TREE)])


# -- MCP ------------------------------------------------------------------------------------

MCP_TOOL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["name", "inputSchema"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "minLength": 1},
        "title": {"type": "string"},
        "description": {"type": "string"},
        "inputSchema": {
            "type": "object",
            "required": ["type"],
            "properties": {
                "type": {"const": "object"},
                "properties": {"type": "object", "additionalProperties": {"type": "object"}},
                "required": {"type": "array", "items": {"type": "string"}},
            },
        },
        "annotations": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "title": {"type": "string"},
                "readOnlyHint": {"type": "boolean"},
                "destructiveHint": {"type": "boolean"},
                "idempotentHint": {"type": "boolean"},
                "openWorldHint": {"type": "boolean"},
            },
        },
    },
}


def test_mcp_tools_validate_against_tool_shape() -> None:
    tools = to_mcp_tools(DECLS, KINDS, titles={"read_file": "Read File"})
    validator = Draft7Validator(MCP_TOOL_SCHEMA)
    for tool in tools:
        validator.validate(tool)
        Draft202012Validator.check_schema(tool["inputSchema"])
    by_name = {t["name"]: t for t in tools}
    assert by_name["read_file"]["title"] == "Read File"
    assert "title" not in by_name["list_directory"]
    assert by_name["get_goal"]["inputSchema"] == {"type": "object", "additionalProperties": False}
    assert by_name["read_file"]["inputSchema"] == READ_FILE
    assert "annotations" not in by_name["pyd_tool"]  # no kind given
    assert by_name["run_shell_command"]["annotations"] == {
        "readOnlyHint": False,
        "destructiveHint": True,
        "idempotentHint": False,
        "openWorldHint": True,
    }


EXPECTED_ANNOTATIONS = {
    # kind: (readOnly, destructive, idempotent, openWorld)
    Kind.READ: (True, False, True, False),
    Kind.SEARCH: (True, False, True, False),
    Kind.FETCH: (True, False, True, True),
    Kind.THINK: (True, False, True, False),
    Kind.EDIT: (False, True, False, False),
    Kind.DELETE: (False, True, False, False),
    Kind.MOVE: (False, True, False, False),
    Kind.EXECUTE: (False, True, False, True),
    Kind.AGENT: (False, False, False, False),
    Kind.OTHER: (False, False, False, True),
}


@pytest.mark.parametrize("kind", list(Kind))
def test_mcp_annotations_per_kind(kind: Kind) -> None:
    expected = dict(
        zip(
            ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"),
            EXPECTED_ANNOTATIONS[kind],
            strict=True,
        )
    )
    assert mcp_tool_annotations(kind) == expected
    tool = to_mcp_tools([BY_NAME["read_file"]], {"read_file": kind})[0]
    assert tool["annotations"] == expected


# -- dispatcher and purity ------------------------------------------------------------------


def test_export_declarations_dispatches() -> None:
    assert export_declarations(DECLS, "openai") == to_openai_tools(DECLS)
    assert export_declarations(DECLS, "openai-strict") == to_openai_tools(DECLS, strict=True)
    assert export_declarations(DECLS, "anthropic") == to_anthropic_tools(DECLS)
    assert export_declarations(DECLS, "gemini") == to_gemini_tools(DECLS)
    assert export_declarations(DECLS, "mcp", KINDS) == to_mcp_tools(DECLS, KINDS)
    with pytest.raises(ValueError, match="Unknown export format"):
        export_declarations(DECLS, "bedrock")  # type: ignore[arg-type]


def _all_exports(decls: list[FunctionDeclaration]) -> list[Any]:
    ok = [d for d in decls if d.name != "tree"]
    return [
        to_openai_tools(decls),
        to_openai_tools(decls, strict=True),
        to_anthropic_tools(decls),
        to_gemini_tools(decls),
        to_gemini_openapi_declarations(ok),
        to_mcp_tools(decls, KINDS),
    ]


def test_inputs_are_never_mutated_nor_aliased() -> None:
    decls = [*DECLS, FunctionDeclaration("tree", "d", TREE)]
    before = copy.deepcopy([d.parameters_json_schema for d in decls])
    exports = _all_exports(decls)
    assert [d.parameters_json_schema for d in decls] == before

    # mutating every nested dict/list of every output leaves the inputs alone
    def scribble(value: Any) -> None:
        if isinstance(value, dict):
            for v in list(value.values()):
                scribble(v)
            value["__scribbled__"] = True
        elif isinstance(value, list):
            for v in value:
                scribble(v)
            value.append("__scribbled__")

    scribble(exports)
    assert [d.parameters_json_schema for d in decls] == before
    assert PydArgs.model_json_schema() == PYD
