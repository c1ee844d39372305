"""Tests for exporting tool declarations to the OpenAI, Anthropic, Gemini and MCP tool formats."""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from typing import Any, Literal

import pytest
from jsonschema import Draft7Validator, Draft202012Validator
from jsonschema.exceptions import ValidationError
from pydantic import BaseModel, Field

from qwen_tools._contract.declarative import FunctionDeclaration
from qwen_tools._contract.kinds import Kind
from qwen_tools._registry.exporters import (
    ExportFormat,
    drop_strict_nulls,
    export_declarations,
    mcp_tool_annotations,
    to_anthropic_tools,
    to_gemini_openapi_declarations,
    to_gemini_tools,
    to_mcp_tools,
    to_openai_tools,
)

# -- fixtures: shapes copied from qwen-diff/tool-shapes.json (0.24.4) -------------------------

READ_FILE: dict[str, Any] = {
    "properties": {
        "file_path": {"type": "string"},
        "offset": {"type": ["integer", "null"]},
        "limit": {"type": ["integer", "null"]},
        "pages": {"type": ["string", "null"]},
    },
    "required": ["file_path"],
    "type": "object",
}
LIST_DIRECTORY: dict[str, Any] = {
    "properties": {
        "path": {"type": "string"},
        "ignore": {"items": {"type": "string"}, "type": "array"},
        "file_filtering_options": {
            "type": "object",
            "properties": {
                "respect_git_ignore": {"type": "boolean"},
                "respect_qwen_ignore": {"type": "boolean"},
            },
        },
    },
    "required": ["path"],
    "type": "object",
}
RUN_SHELL_COMMAND: dict[str, Any] = {
    "type": "object",
    "properties": {
        "command": {"type": "string"},
        "is_background": {"type": "boolean"},
        "timeout": {"type": "integer", "minimum": 1, "maximum": 600000},
        "directory": {"type": "string"},
    },
    "required": ["command"],
}
TOOL_CALL: dict[str, Any] = {
    "type": "object",
    "properties": {"name": {"type": "string", "minLength": 1}, "arguments": {"type": "object"}},
    "required": ["name", "arguments"],
    "additionalProperties": False,
}
TOOL_SEARCH: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "minLength": 1},
        "max_results": {"type": "integer", "minimum": 1, "maximum": 20, "default": 5},
    },
    "required": ["query"],
}
AGENT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "prompt": {"type": "string"},
        "fork_turns": {
            "oneOf": [
                {"type": "string", "enum": ["all"]},
                {"type": "string", "pattern": "^[1-9][0-9]*$"},
            ]
        },
        "fork_profile": {"type": "string", "minLength": 2, "maxLength": 50},
        "run_in_background": {"type": "boolean", "default": True},
        "isolation": {"type": "string", "enum": ["worktree"]},
    },
    "required": ["description", "prompt"],
}
# An array of inline objects (shape of a multi-edit tool).
MULTI_EDIT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "file_path": {"type": "string"},
        "edits": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "properties": {
                    "old_string": {"type": "string"},
                    "new_string": {"type": "string"},
                    "replace_all": {"type": "boolean", "default": False},
                },
                "required": ["old_string", "new_string"],
            },
        },
    },
    "required": ["file_path", "edits"],
}
# The same with a satisfiable ``required`` (0.24.4 requires an undeclared "description").
AGENT_FIXED: dict[str, Any] = {**AGENT, "required": ["prompt"]}
# An MCP-style schema (zod-to-json-schema output) with keys the OpenAI relaxation removes.
MCP_STYLE: dict[str, Any] = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "$id": "urn:example:tag",
    "type": "object",
    "properties": {
        "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
        "uniqueItems": {"type": "boolean", "description": "a property that happens to be named so"},
        "when": {"type": "string", "format": "date-time"},
        "color": {"type": "string", "format": "color"},
        "mode": {"const": "fast"},
        "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
        "options": {
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
            "required": ["a"],
            "additionalProperties": False,
        },
    },
    "required": ["tags"],
    "additionalProperties": False,
}


class Filtering(BaseModel):
    respect_git_ignore: bool = True
    globs: list[str] = Field(default_factory=list, description="extra globs")


class Entry(BaseModel):
    name: str
    size: int | None = None


class PydArgs(BaseModel):
    path: str = Field(description="Absolute path")
    filtering: Filtering | None = None
    entries: list[Entry] = Field(description="entries to write")
    primary: Entry = Field(description="the primary entry")
    mode: Literal["fast", "slow"] = "fast"
    depth: int = Field(default=1, gt=0, le=10)


class TreeNode(BaseModel):
    label: str
    children: list[TreeNode] = Field(default_factory=list)


PYD = PydArgs.model_json_schema()
TREE = TreeNode.model_json_schema()

DECLS: list[FunctionDeclaration] = [
    FunctionDeclaration("read_file", "Read a file.", READ_FILE),
    FunctionDeclaration("list_directory", "List a directory.", LIST_DIRECTORY),
    FunctionDeclaration("run_shell_command", "Run a command.", RUN_SHELL_COMMAND),
    FunctionDeclaration("tool_call", "Call a deferred tool.", TOOL_CALL),
    FunctionDeclaration("tool_search", "Search deferred tools.", TOOL_SEARCH),
    FunctionDeclaration("agent", "Start a subagent.", AGENT),
    FunctionDeclaration("multi_edit", "Edit a file several times.", MULTI_EDIT),
    FunctionDeclaration("agent_fixed", "Start a subagent.", AGENT_FIXED),
    FunctionDeclaration("get_goal", "Get the goal.", {}),
    FunctionDeclaration("mcp_style", "An MCP tool.", MCP_STYLE),
    FunctionDeclaration("pyd_tool", "A pydantic tool.", PYD),
]
BY_NAME = {d.name: d for d in DECLS}
KINDS = {
    "read_file": Kind.READ,
    "list_directory": Kind.READ,
    "run_shell_command": Kind.EXECUTE,
    "tool_call": Kind.OTHER,
    "tool_search": Kind.SEARCH,
    "agent": Kind.AGENT,
    "multi_edit": Kind.EDIT,
    "agent_fixed": Kind.AGENT,
    "get_goal": Kind.THINK,
    "mcp_style": Kind.FETCH,
}


def _walk(schema: Any, path: str = "#") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every subschema (JSON-schema aware: property names are never treated as keywords)."""
    if not isinstance(schema, dict):
        return
    yield path, schema
    for key in ("items", "additionalProperties", "not"):
        if isinstance(schema.get(key), dict):
            yield from _walk(schema[key], f"{path}/{key}")
    for key in ("anyOf", "oneOf", "allOf"):
        for i, sub in enumerate(schema.get(key, [])):
            yield from _walk(sub, f"{path}/{key}/{i}")
    for key in ("properties", "$defs", "definitions"):
        for name, sub in (schema.get(key) or {}).items():
            yield from _walk(sub, f"{path}/{key}/{name}")


def _is_object(schema: dict[str, Any]) -> bool:
    t = schema.get("type")
    return t == "object" or (isinstance(t, list) and "object" in t) or "properties" in schema


# -- OpenAI (non-strict) --------------------------------------------------------------------


def test_openai_shape_and_valid_schemas() -> None:
    tools = to_openai_tools(DECLS)
    assert [t["function"]["name"] for t in tools] == [d.name for d in DECLS]
    for tool, decl in zip(tools, DECLS, strict=True):
        assert tool["type"] == "function"
        assert set(tool["function"]) == {"name", "description", "parameters"}
        assert tool["function"]["description"] == decl.description
        params = tool["function"]["parameters"]
        assert params["type"] == "object"
        assert isinstance(params["properties"], dict)
        Draft202012Validator.check_schema(params)


def test_openai_relaxation_drops_meta_keys_but_not_property_names() -> None:
    params = to_openai_tools([BY_NAME["mcp_style"]])[0]["function"]["parameters"]
    assert "$schema" not in params
    assert "$id" not in params
    assert "uniqueItems" not in params["properties"]["tags"]
    assert params["properties"]["uniqueItems"] == MCP_STYLE["properties"]["uniqueItems"]
    # root and nested objects have optional properties: additionalProperties:false is dropped
    assert "additionalProperties" not in params
    assert "additionalProperties" not in params["properties"]["options"]
    # tool_call has only required properties: additionalProperties:false stays
    tc = to_openai_tools([BY_NAME["tool_call"]])[0]["function"]["parameters"]
    assert tc["additionalProperties"] is False
    # everything else is passed through untouched
    assert to_openai_tools([BY_NAME["read_file"]])[0]["function"]["parameters"] == READ_FILE
    relaxed_instance = {"tags": ["a", "a"], "extra": 1}
    Draft202012Validator(params).validate(relaxed_instance)


def test_openai_empty_schema_becomes_object_with_no_properties() -> None:
    params = to_openai_tools([BY_NAME["get_goal"]])[0]["function"]["parameters"]
    assert params == {"type": "object", "properties": {}}
    typeless = FunctionDeclaration("t", "d", {"properties": {"a": {"type": "string"}}})
    assert to_openai_tools([typeless])[0]["function"]["parameters"]["type"] == "object"


ALL_FORMATS: list[ExportFormat] = ["openai", "openai-strict", "anthropic", "gemini", "mcp"]


@pytest.mark.parametrize("fmt", ALL_FORMATS)
def test_non_object_root_is_rejected(fmt: ExportFormat) -> None:
    bad = FunctionDeclaration("bad", "d", {"type": "string"})
    with pytest.raises(ValueError, match="must describe an object"):
        export_declarations([bad], fmt)
    with pytest.raises(ValueError, match="must describe an object"):
        to_gemini_openapi_declarations([bad])


def test_root_ref_is_inlined() -> None:
    schema = {"$ref": "#/$defs/Args", "$defs": {"Args": READ_FILE}}
    params = to_openai_tools([FunctionDeclaration("r", "d", schema)])[0]["function"]["parameters"]
    assert params["type"] == "object"
    assert params["properties"] == READ_FILE["properties"]


@pytest.mark.parametrize("fmt", ALL_FORMATS)
def test_duplicate_names_are_rejected(fmt: ExportFormat) -> None:
    twice = [BY_NAME["read_file"], BY_NAME["read_file"]]
    with pytest.raises(ValueError, match="Duplicate"):
        export_declarations(twice, fmt)


# -- OpenAI strict --------------------------------------------------------------------------

STRICT_KEYWORDS = {
    "type", "title", "description", "enum", "const", "properties", "required",
    "additionalProperties", "items", "anyOf", "$ref", "$defs", "definitions", "pattern",
    "format", "minLength", "maxLength", "multipleOf", "minimum", "maximum", "exclusiveMinimum",
    "exclusiveMaximum", "minItems", "maxItems",
}  # fmt: skip
STRICT_FORMATS = {
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
}


def assert_strict(schema: dict[str, Any]) -> None:
    """OpenAI Structured Outputs rules (guide, "Supported schemas")."""
    assert schema["type"] == "object", "root must be an object"
    assert "anyOf" not in schema, "root must not be anyOf"
    assert "oneOf" not in schema, "root must not be oneOf"
    for path, node in _walk(schema):
        assert set(node) <= STRICT_KEYWORDS, f"{path}: unsupported {set(node) - STRICT_KEYWORDS}"
        if "$ref" in node:
            assert set(node) == {"$ref"}, f"{path}: $ref with siblings"
        if "format" in node:
            assert node["format"] in STRICT_FORMATS, path
        if _is_object(node):
            assert node.get("additionalProperties") is False, f"{path}: additionalProperties"
            assert node.get("required") == list(node.get("properties", {})), f"{path}: required"
        if node.get("type") == "array" or (
            isinstance(node.get("type"), list) and "array" in node["type"]
        ):
            assert isinstance(node.get("items"), dict), f"{path}: array without items"


def _strict_params(name: str) -> dict[str, Any]:
    function = to_openai_tools([BY_NAME[name]], strict=True)[0]["function"]
    assert function["strict"] is True, name
    params: dict[str, Any] = function["parameters"]
    return params


STRICT_ABLE = [
    "read_file", "list_directory", "run_shell_command", "tool_search", "agent_fixed", "get_goal",
    "mcp_style", "pyd_tool", "multi_edit",
]  # fmt: skip


@pytest.mark.parametrize("name", STRICT_ABLE)
def test_openai_strict_schema_follows_structured_outputs_rules(name: str) -> None:
    params = _strict_params(name)
    assert_strict(params)
    Draft202012Validator.check_schema(params)


def _null_instance(params: dict[str, Any], original: dict[str, Any]) -> dict[str, Any]:
    """Required-by-original props get a value, all other props are null."""
    samples = {
        "file_path": "/a",
        "path": "/a",
        "command": "ls",
        "query": "q",
        "prompt": "p",
        "tags": [],
        "entries": [{"name": "e", "size": None}],
        "primary": {"name": "p", "size": None},
        "edits": [{"old_string": "a", "new_string": "b", "replace_all": None}],
    }
    required = set(original.get("required", ()))
    return {k: (samples[k] if k in required else None) for k in params["properties"]}


@pytest.mark.parametrize("name", STRICT_ABLE)
def test_openai_strict_accepts_nulls_for_optional_and_round_trips(name: str) -> None:
    decl = BY_NAME[name]
    params = _strict_params(name)
    original = decl.parameters_json_schema
    instance = _null_instance(params, original)
    Draft202012Validator(params).validate(instance)
    # every key is required now, and nothing else is allowed
    if instance:
        missing = dict(list(instance.items())[1:])
        assert not Draft202012Validator(params).is_valid(missing)
    assert not Draft202012Validator(params).is_valid({**instance, "zzz_extra": 1})
    # after dropping the strict nulls the arguments satisfy the original schema
    args = drop_strict_nulls(instance, original)
    Draft202012Validator(original).validate(args)


def test_openai_strict_nullable_forms_and_keyword_filtering() -> None:
    params = _strict_params("mcp_style")
    props = params["properties"]
    assert props["tags"] == {
        "type": "array",
        "items": {"type": "string"},
    }  # required, no uniqueItems
    assert props["uniqueItems"]["type"] == ["boolean", "null"]
    assert props["when"] == {"type": ["string", "null"], "format": "date-time"}
    assert "format" not in props["color"]
    assert props["mode"] == {"anyOf": [{"const": "fast"}, {"type": "null"}]}
    assert props["ratio"]["exclusiveMinimum"] == 0
    opts = props["options"]
    assert opts["type"] == ["object", "null"]
    assert opts["properties"]["a"] == {"type": "string"}
    assert opts["properties"]["b"] == {"type": ["string", "null"]}
    rs = _strict_params("run_shell_command")["properties"]
    assert rs["timeout"] == {"type": ["integer", "null"], "minimum": 1, "maximum": 600000}
    ts = _strict_params("tool_search")["properties"]
    assert "default" not in ts["max_results"]
    ag = _strict_params("agent_fixed")
    assert ag["properties"]["fork_turns"]["anyOf"] == [
        {"type": "string", "enum": ["all"]},
        {"type": "string", "pattern": "^[1-9][0-9]*$"},
        {"type": "null"},
    ]
    assert ag["properties"]["isolation"]["enum"] == ["worktree", None]


def test_openai_strict_pydantic_refs() -> None:
    params = _strict_params("pyd_tool")
    props = params["properties"]
    # $ref with a description sibling is inlined so the description survives
    assert props["primary"]["description"] == "the primary entry"
    assert "$ref" not in props["primary"]
    assert props["primary"]["properties"]["size"]["anyOf"][-1] == {"type": "null"}
    # Optional[Model] keeps a bare $ref inside anyOf; the $defs are made strict as well
    assert props["filtering"]["anyOf"] == [{"$ref": "#/$defs/Filtering"}, {"type": "null"}]
    assert params["$defs"]["Filtering"]["required"] == ["respect_git_ignore", "globs"]
    instance = {
        "path": "/x",
        "filtering": {"respect_git_ignore": None, "globs": ["*.py"]},
        "entries": [{"name": "a", "size": None}],
        "primary": {"name": "p", "size": 3},
        "mode": None,
        "depth": None,
    }
    Draft202012Validator(params).validate(instance)
    args = drop_strict_nulls(instance, PYD)
    assert args == {
        "path": "/x",
        "filtering": {"globs": ["*.py"]},
        "entries": [{"name": "a", "size": None}],
        "primary": {"name": "p", "size": 3},
    }
    model = PydArgs.model_validate(args)
    assert model.filtering is not None
    assert model.filtering.respect_git_ignore is True
    assert model.mode == "fast"


def test_openai_strict_recursive_model_keeps_refs() -> None:
    tree = FunctionDeclaration("tree", "d", TREE)
    function = to_openai_tools([tree], strict=True)[0]["function"]
    assert function["strict"] is True
    assert_strict(function["parameters"])
    validator = Draft202012Validator(function["parameters"])
    validator.validate({"label": "a", "children": [{"label": "b", "children": None}]})
    assert not validator.is_valid({"label": "a", "children": [{"label": "b"}]})


def test_openai_strict_falls_back_for_free_form_objects() -> None:
    strict_tools = {
        t["function"]["name"]: t["function"] for t in to_openai_tools(DECLS, strict=True)
    }
    loose = {t["function"]["name"]: t["function"] for t in to_openai_tools(DECLS)}
    assert strict_tools["tool_call"]["strict"] is False
    assert strict_tools["tool_call"]["parameters"] == loose["tool_call"]["parameters"]
    # "description" is required but not declared: strict mode could never satisfy it
    assert strict_tools["agent"]["strict"] is False
    assert strict_tools["agent"]["parameters"]["required"] == ["description", "prompt"]
    as_map = FunctionDeclaration(
        "env",
        "d",
        {
            "type": "object",
            "properties": {"env": {"type": "object", "additionalProperties": {"type": "string"}}},
        },
    )
    assert to_openai_tools([as_map], strict=True)[0]["function"]["strict"] is False
    assert all(strict_tools[n]["strict"] is True for n in STRICT_ABLE)


def test_drop_strict_nulls_keeps_nulls_the_schema_allows() -> None:
    args = {"file_path": "/a", "offset": None, "limit": 5, "pages": None}
    before = copy.deepcopy(args)
    assert drop_strict_nulls(args, READ_FILE) == args  # offset/pages are nullable originally
    assert args == before
    nested = {
        "path": "/a",
        "ignore": None,
        "file_filtering_options": {"respect_git_ignore": None, "respect_qwen_ignore": False},
    }
    out = drop_strict_nulls(nested, LIST_DIRECTORY)
    assert out == {"path": "/a", "file_filtering_options": {"respect_qwen_ignore": False}}
    assert nested["ignore"] is None  # input untouched
    edits = {
        "file_path": "/a",
        "edits": [
            {"old_string": "a", "new_string": "b", "replace_all": None},
            {"old_string": "c", "new_string": "d", "replace_all": True},
        ],
    }
    assert drop_strict_nulls(edits, MULTI_EDIT)["edits"] == [
        {"old_string": "a", "new_string": "b"},
        {"old_string": "c", "new_string": "d", "replace_all": True},
    ]
    with pytest.raises(ValidationError):
        Draft202012Validator(LIST_DIRECTORY).validate(nested)
    Draft202012Validator(LIST_DIRECTORY).validate(out)


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
        for path, node in _walk(params):
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
