"""Exporting tool declarations to OpenAI tools, relaxed and strict (Structured Outputs)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from qwen_tools.contract.declarative import FunctionDeclaration
from qwen_tools.registry.exporters import (
    ExportFormat,
    drop_strict_nulls,
    export_declarations,
    to_gemini_openapi_declarations,
    to_openai_tools,
)
from support.export_fixtures import (
    BY_NAME,
    DECLS,
    LIST_DIRECTORY,
    MCP_STYLE,
    MULTI_EDIT,
    PYD,
    READ_FILE,
    TREE,
    PydArgs,
    is_object_schema,
    walk_schema,
)

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
    for path, node in walk_schema(schema):
        assert set(node) <= STRICT_KEYWORDS, f"{path}: unsupported {set(node) - STRICT_KEYWORDS}"
        if "$ref" in node:
            assert set(node) == {"$ref"}, f"{path}: $ref with siblings"
        if "format" in node:
            assert node["format"] in STRICT_FORMATS, path
        if is_object_schema(node):
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
