"""Export tool declarations (:class:`FunctionDeclaration`) in each provider's tool format.

All functions are pure: the input schemas are deep-copied, never modified. Every format needs an
object schema at the root, so the root is normalised first: a missing ``type`` becomes
``"object"``, ``["object", "null"]`` becomes ``"object"``, a root ``$ref`` is inlined, and any
other root type raises :class:`ValueError`. Duplicate tool names raise :class:`ValueError`.

OpenAI Chat Completions (:func:`to_openai_tools`)
    ``{"type": "function", "function": {"name", "description", "parameters"}}``.
    Non-strict follows the reference's ``relaxSchemaForFunctionCalling``: ``$schema``, ``$id``
    and ``uniqueItems`` are dropped everywhere, and ``additionalProperties: false`` is dropped on
    objects that have optional properties. Unlike the reference, which sends no ``parameters``
    for a tool without arguments, we always send an object schema (``{"type": "object",
    "properties": {}}``), which every OpenAI-compatible server accepts.
    ``strict=True`` adds ``"strict": true`` and the Structured Outputs transform of
    :mod:`.strict_schema`; a tool whose schema has no strict equivalent (free-form objects, maps,
    tuples) falls back to the non-strict schema with ``"strict": false`` (OpenAI decides per
    function). Run :func:`drop_strict_nulls` on the arguments of a strict call.
Anthropic (:func:`to_anthropic_tools`)
    ``{"name", "description", "input_schema"}``; names must match ``^[a-zA-Z0-9_-]{1,64}$``.
Gemini (:func:`to_gemini_tools`, :func:`to_gemini_openapi_declarations`)
    ``[{"functionDeclarations": [...]}]`` with the JSON Schema in ``parametersJsonSchema``, or
    the classic OpenAPI 3.0 ``parameters`` (local ``$ref``/``allOf`` inlined, recursion is a
    ``ValueError``; ``type: [X, "null"]`` and null ``anyOf`` branches become ``nullable``;
    ``const`` becomes ``enum``; enum values become strings; ``exclusiveMinimum``/``Maximum`` fold
    into ``minimum``/``maximum`` (± 1 for integers); ``required`` keeps declared properties only;
    ``default`` is dropped next to ``anyOf``; formats other than string ``enum``/``date-time``,
    integer ``int32``/``int64`` and number ``float``/``double`` and every keyword outside the
    Gemini ``Schema`` message are dropped). Tools without arguments get no parameters key, since
    Gemini rejects an OBJECT with empty ``properties``.
MCP (:func:`to_mcp_tools`)
    ``{"name", "title"?, "description", "inputSchema", "annotations"?}``; a tool without a schema
    gets ``{"type": "object", "additionalProperties": false}``. Annotations come from the kind:

    ==================  ===============================================
    ``readOnlyHint``    read, search, fetch, think
    ``destructiveHint`` edit, delete, move, execute (false if read-only)
    ``idempotentHint``  read, search, fetch, think
    ``openWorldHint``   fetch, execute, other
    ==================  ===============================================

    A tool whose kind is unknown gets no ``annotations`` (clients then assume the MCP defaults).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from qwen_tools.contract.kinds import READ_ONLY_KINDS, Kind
from qwen_tools.registry.strict_schema import (
    StrictSchemaError,
    drop_strict_nulls,
    map_subschemas,
    resolve_local_ref,
    schema_types,
    to_strict_schema,
)

if TYPE_CHECKING:
    from qwen_tools.contract.declarative import FunctionDeclaration

__all__ = [
    "ExportFormat",
    "StrictSchemaError",
    "drop_strict_nulls",
    "export_declarations",
    "mcp_tool_annotations",
    "to_anthropic_tools",
    "to_gemini_openapi_declarations",
    "to_gemini_tools",
    "to_mcp_tools",
    "to_openai_tools",
]

ExportFormat = Literal["openai", "openai-strict", "anthropic", "gemini", "mcp"]

_ANTHROPIC_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")
_DESTRUCTIVE_KINDS = frozenset({Kind.EDIT, Kind.DELETE, Kind.MOVE, Kind.EXECUTE})
_OPEN_WORLD_KINDS = frozenset({Kind.FETCH, Kind.EXECUTE, Kind.OTHER})
_GEMINI_KEYWORDS = frozenset({
    "type", "format", "title", "description", "nullable", "enum", "items", "minItems",
    "maxItems", "properties", "required", "minProperties", "maxProperties", "minLength",
    "maxLength", "pattern", "example", "anyOf", "propertyOrdering", "default", "minimum",
    "maximum",
})  # fmt: skip
_GEMINI_FORMATS = {
    "string": {"enum", "date-time"},
    "integer": {"int32", "int64"},
    "number": {"float", "double"},
}
_EMPTY_OBJECT_KEYS = frozenset(
    {"type", "properties", "required", "additionalProperties", "$schema", "$id", "title"}
)


def _check_unique(decls: Sequence[FunctionDeclaration]) -> None:
    seen: set[str] = set()
    for decl in decls:
        if decl.name in seen:
            raise ValueError(f"Duplicate tool name {decl.name!r}")
        seen.add(decl.name)


def _object_schema(decl: FunctionDeclaration) -> dict[str, Any]:
    """A deep copy of the declaration's schema whose root is ``type: object``."""
    schema: dict[str, Any] = copy.deepcopy(decl.parameters_json_schema or {})
    ref = schema.get("$ref")
    if isinstance(ref, str) and "type" not in schema:
        target = copy.deepcopy(resolve_local_ref(schema, ref))
        schema = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
    types = schema_types(schema)
    if not types:
        return {"type": "object", **schema}
    if "object" not in types:
        raise ValueError(
            f"Tool {decl.name!r}: the parameters schema must describe an object, "
            f"not {schema['type']!r}"
        )
    schema["type"] = "object"
    return schema


def _is_empty_object(schema: Mapping[str, Any]) -> bool:
    extra = schema.get("additionalProperties", False)
    return not schema.get("properties") and extra is False and set(schema) <= _EMPTY_OBJECT_KEYS


# -- OpenAI ---------------------------------------------------------------------------------


def _relax(schema: dict[str, Any]) -> dict[str, Any]:
    out = map_subschemas(schema, _relax)
    for key in ("$schema", "$id", "uniqueItems"):
        out.pop(key, None)
    props = out.get("properties")
    if out.get("additionalProperties") is False and isinstance(props, Mapping):
        required = set(out.get("required") or ())
        if any(name not in required for name in props):
            del out["additionalProperties"]
    return out


def to_openai_tools(
    decls: Sequence[FunctionDeclaration], *, strict: bool = False
) -> list[dict[str, Any]]:
    """Chat Completions ``tools`` entries; ``strict`` turns on Structured Outputs per tool.

    With ``strict=True`` a tool whose schema has no Structured Outputs equivalent is sent
    non-strict (``"strict": false``) instead of failing the whole request.
    """
    _check_unique(decls)
    tools: list[dict[str, Any]] = []
    for decl in decls:
        schema = _object_schema(decl)
        relaxed = _relax(schema)
        relaxed.setdefault("properties", {})
        function: dict[str, Any] = {"name": decl.name, "description": decl.description}
        if strict:
            try:
                function["parameters"] = to_strict_schema(schema)
                function["strict"] = True
            except StrictSchemaError:
                function["parameters"] = relaxed
                function["strict"] = False
        else:
            function["parameters"] = relaxed
        tools.append({"type": "function", "function": function})
    return tools


# -- Anthropic ------------------------------------------------------------------------------


def to_anthropic_tools(decls: Sequence[FunctionDeclaration]) -> list[dict[str, Any]]:
    """Messages API ``tools`` entries; raises ValueError on a name Anthropic rejects."""
    _check_unique(decls)
    tools: list[dict[str, Any]] = []
    for decl in decls:
        if not _ANTHROPIC_NAME.fullmatch(decl.name):
            raise ValueError(
                f"Tool name {decl.name!r} is not valid for Anthropic "
                "(1-64 characters from a-z, A-Z, 0-9, '_' and '-')"
            )
        tools.append(
            {
                "name": decl.name,
                "description": decl.description,
                "input_schema": _object_schema(decl),
            }
        )
    return tools


# -- Gemini ---------------------------------------------------------------------------------


def to_gemini_tools(decls: Sequence[FunctionDeclaration]) -> list[dict[str, Any]]:
    """One Gemini ``Tool`` holding every declaration, with ``parametersJsonSchema``.

    Returns ``[]`` for no declarations (Gemini rejects an empty ``functionDeclarations``).
    """
    _check_unique(decls)
    declarations: list[dict[str, Any]] = []
    for decl in decls:
        entry: dict[str, Any] = {"name": decl.name, "description": decl.description}
        schema = _object_schema(decl)
        if not _is_empty_object(schema):
            entry["parametersJsonSchema"] = schema
        declarations.append(entry)
    return [{"functionDeclarations": declarations}] if declarations else []


def to_gemini_openapi_declarations(decls: Sequence[FunctionDeclaration]) -> list[dict[str, Any]]:
    """Gemini ``FunctionDeclaration`` dicts with the classic OpenAPI 3.0 ``parameters``.

    Raises ValueError for a recursive or non-local ``$ref`` (they cannot be inlined).
    """
    _check_unique(decls)
    declarations: list[dict[str, Any]] = []
    for decl in decls:
        entry: dict[str, Any] = {"name": decl.name, "description": decl.description}
        root = _object_schema(decl)
        try:
            params = _openapi(root, root, ())
        except ValueError as exc:
            raise ValueError(f"Tool {decl.name!r}: {exc}") from exc
        if params.get("properties"):
            entry["parameters"] = params
        declarations.append(entry)
    return declarations


def _merge(base: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in extra.items():
        if key == "properties" and isinstance(value, Mapping):
            out[key] = {**value, **out.get(key, {})}
        elif key == "required" and isinstance(value, list):
            out[key] = list(dict.fromkeys([*out.get(key, []), *value]))
        else:
            out.setdefault(key, value)
    return out


def _inline(
    node: Mapping[str, Any], root: Mapping[str, Any], inlining: tuple[str, ...]
) -> tuple[dict[str, Any], tuple[str, ...]]:
    """Inline ``$ref`` and ``allOf`` (node keys win); returns the refs now on the path."""
    out = dict(node)
    ref = out.pop("$ref", None)
    if isinstance(ref, str):
        if ref in inlining:
            raise ValueError(f"recursive $ref {ref!r} cannot be inlined")
        target = resolve_local_ref(root, ref)
        target = {k: v for k, v in target.items() if k not in ("$defs", "definitions")}
        resolved, inlining = _inline(target, root, (*inlining, ref))
        out = _merge(out, resolved)
    for part in out.pop("allOf", None) or []:
        if isinstance(part, Mapping):
            resolved, more = _inline(part, root, inlining)
            inlining = tuple(dict.fromkeys([*inlining, *more]))
            out = _merge(out, resolved)
    return out, inlining


def _openapi(
    node: Mapping[str, Any], root: Mapping[str, Any], inlining: tuple[str, ...]
) -> dict[str, Any]:
    out, inlining = _inline(node, root, inlining)
    nullable = out.get("nullable") is True
    branches = [*(out.pop("anyOf", None) or []), *(out.pop("oneOf", None) or [])]
    if branches:
        out.pop("default", None)
        kept = [b for b in branches if not (isinstance(b, Mapping) and b.get("type") == "null")]
        nullable = nullable or len(kept) < len(branches)
        if len(kept) == 1 and isinstance(kept[0], Mapping) and "type" not in out:
            merged = _merge({**out, "nullable": True} if nullable else out, kept[0])
            return _openapi(merged, root, inlining)
        out["anyOf"] = [_openapi(b, root, inlining) for b in kept if isinstance(b, Mapping)]
    types = schema_types(out)
    if "null" in types:
        nullable, types = True, [t for t in types if t != "null"]
    out.pop("type", None)
    if len(types) == 1:
        out["type"] = types[0]
    elif len(types) > 1 and "anyOf" not in out:
        out["anyOf"] = [{"type": t} for t in types]
    if "const" in out:
        out.setdefault("enum", [out["const"]])
    if "enum" in out:
        nullable = nullable or None in out["enum"]
        out["enum"] = [
            v if isinstance(v, str) else json.dumps(v) for v in out["enum"] if v is not None
        ]
    _fold_exclusive(out)
    if out.get("format") not in _GEMINI_FORMATS.get(out.get("type", ""), ()):
        out.pop("format", None)
    props = out.get("properties")
    if isinstance(props, Mapping) and props:
        out["properties"] = {
            k: _openapi(v, root, inlining) for k, v in props.items() if isinstance(v, Mapping)
        }
        out["required"] = [r for r in out.get("required", []) if r in out["properties"]]
        out.setdefault("type", "object")
    else:
        out.pop("properties", None)
        out.pop("required", None)
    items = out.get("items")
    if isinstance(items, list):
        items = items[0] if len(items) == 1 else {"anyOf": items}
    if isinstance(items, Mapping):
        out["items"] = _openapi(items, root, inlining)
    if nullable:
        out["nullable"] = True
    return {k: v for k, v in out.items() if k in _GEMINI_KEYWORDS and v != []}


def _fold_exclusive(out: dict[str, Any]) -> None:
    """Turn ``exclusiveMinimum``/``exclusiveMaximum`` (either draft's form) into min/max."""
    step = 1 if out.get("type") == "integer" else 0
    for exclusive, inclusive, sign, pick in (
        ("exclusiveMinimum", "minimum", 1, max),
        ("exclusiveMaximum", "maximum", -1, min),
    ):
        value = out.pop(exclusive, None)
        if isinstance(value, bool):
            if value and isinstance(out.get(inclusive), int | float):
                out[inclusive] += sign * step
        elif isinstance(value, int | float):
            bound = value + sign * step
            current = out.get(inclusive)
            out[inclusive] = pick(current, bound) if isinstance(current, int | float) else bound


# -- MCP ------------------------------------------------------------------------------------


def mcp_tool_annotations(kind: Kind) -> dict[str, bool]:
    """MCP ``ToolAnnotations`` hints for a tool of ``kind`` (mapping in the module docstring)."""
    read_only = kind in READ_ONLY_KINDS
    return {
        "readOnlyHint": read_only,
        "destructiveHint": not read_only and kind in _DESTRUCTIVE_KINDS,
        "idempotentHint": read_only,
        "openWorldHint": kind in _OPEN_WORLD_KINDS,
    }


def to_mcp_tools(
    decls: Sequence[FunctionDeclaration],
    kinds: Mapping[str, Kind] | None = None,
    *,
    titles: Mapping[str, str] | None = None,
) -> list[dict[str, Any]]:
    """MCP ``Tool`` objects (``tools/list`` entries); ``kinds``/``titles`` are keyed by name."""
    _check_unique(decls)
    tools: list[dict[str, Any]] = []
    for decl in decls:
        tool: dict[str, Any] = {"name": decl.name}
        if titles and decl.name in titles:
            tool["title"] = titles[decl.name]
        schema = _object_schema(decl)
        if schema == {"type": "object"}:
            schema["additionalProperties"] = False
        tool["description"] = decl.description
        tool["inputSchema"] = schema
        if kinds and decl.name in kinds:
            tool["annotations"] = mcp_tool_annotations(Kind(kinds[decl.name]))
        tools.append(tool)
    return tools


# -- dispatcher -----------------------------------------------------------------------------


def export_declarations(
    decls: Sequence[FunctionDeclaration],
    fmt: ExportFormat,
    kinds: Mapping[str, Kind] | None = None,
) -> list[dict[str, Any]]:
    """Export ``decls`` in ``fmt``; ``kinds`` (by tool name) is used by the ``"mcp"`` format."""
    if fmt == "openai":
        return to_openai_tools(decls)
    if fmt == "openai-strict":
        return to_openai_tools(decls, strict=True)
    if fmt == "anthropic":
        return to_anthropic_tools(decls)
    if fmt == "gemini":
        return to_gemini_tools(decls)
    if fmt == "mcp":
        return to_mcp_tools(decls, kinds)
    raise ValueError(f"Unknown export format {fmt!r}")
