"""Tool declarations shared by the exporter tests: 0.24.4 shapes, pydantic models, a schema walker."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal

from pydantic import BaseModel, Field

from qwen_tools.contract.declarative import FunctionDeclaration
from qwen_tools.contract.kinds import Kind

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


def walk_schema(schema: Any, path: str = "#") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every subschema (JSON-schema aware: property names are never treated as keywords)."""
    if not isinstance(schema, dict):
        return
    yield path, schema
    for key in ("items", "additionalProperties", "not"):
        if isinstance(schema.get(key), dict):
            yield from walk_schema(schema[key], f"{path}/{key}")
    for key in ("anyOf", "oneOf", "allOf"):
        for i, sub in enumerate(schema.get(key, [])):
            yield from walk_schema(sub, f"{path}/{key}/{i}")
    for key in ("properties", "$defs", "definitions"):
        for name, sub in (schema.get(key) or {}).items():
            yield from walk_schema(sub, f"{path}/{key}/{name}")


def is_object_schema(schema: dict[str, Any]) -> bool:
    t = schema.get("type")
    return t == "object" or (isinstance(t, list) and "object" in t) or "properties" in schema
