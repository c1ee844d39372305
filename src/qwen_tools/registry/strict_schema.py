"""JSON-schema helpers for the exporters, and the OpenAI Structured Outputs ("strict") transform.

:func:`to_strict_schema` rewrites a tool's parameter schema into the subset OpenAI accepts with
``"strict": true`` (guide "Structured Outputs → Supported schemas"):

- every object gets ``additionalProperties: false`` and ``required`` = all of its property names;
  properties that were optional become nullable (``type: [T, "null"]``, with ``None`` added to an
  ``enum``; otherwise ``anyOf: [..., {"type": "null"}]``) so the model can still "leave them out";
- only supported keywords survive: structure (``type``, ``properties``, ``items``, ``anyOf``,
  ``enum``, ``const``, ``$ref``/``$defs``), annotations (``title``, ``description``), string
  ``pattern``/``minLength``/``maxLength``, the nine documented ``format`` values, number
  ``minimum``/``maximum``/``exclusiveMinimum``/``exclusiveMaximum``/``multipleOf`` and array
  ``minItems``/``maxItems``. ``default``, ``uniqueItems``, ``not``, ``if``/``then``/``else``,
  ``dependent*`` and other formats are dropped (they only narrow; the tool re-validates);
- ``oneOf`` becomes ``anyOf``; a one-element ``allOf`` is merged into its parent;
- a ``$ref`` with sibling keywords is inlined (siblings win), as the OpenAI SDK does; a
  recursive reference keeps the bare ``$ref`` and loses its siblings.

What cannot be expressed raises :class:`StrictSchemaError`: a root that is not an object, maps
(``additionalProperties`` that is a schema or ``true``), free-form objects or values, tuples,
multi-element ``allOf``, and a ``required`` entry that names no declared property. :func:`drop_strict_nulls` undoes the nullable trick on the arguments.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

_SUB_ONE = (
    "items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames",
    "unevaluatedProperties", "unevaluatedItems", "additionalItems", "contentSchema",
)  # fmt: skip
_SUB_LIST = ("anyOf", "oneOf", "allOf", "prefixItems", "items")
_SUB_MAP = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")

_STRICT_KEYWORDS = frozenset({
    "type", "title", "description", "enum", "const", "properties", "required",
    "additionalProperties", "items", "anyOf", "$ref", "$defs", "definitions",
    "pattern", "format", "minLength", "maxLength",
    "multipleOf", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "minItems", "maxItems",
})  # fmt: skip
_STRICT_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
_ANNOTATIONS = ("title", "description")


class StrictSchemaError(ValueError):
    """The schema has no equivalent in OpenAI's Structured Outputs subset."""


def map_subschemas(
    schema: Mapping[str, Any], fn: Callable[[dict[str, Any]], dict[str, Any]]
) -> dict[str, Any]:
    """Copy ``schema`` with ``fn`` applied to every direct subschema (property names are safe)."""
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _SUB_ONE and isinstance(value, dict):
            out[key] = fn(value)
        elif key in _SUB_LIST and isinstance(value, list):
            out[key] = [fn(v) if isinstance(v, dict) else copy.deepcopy(v) for v in value]
        elif key in _SUB_MAP and isinstance(value, dict):
            out[key] = {
                k: fn(v) if isinstance(v, dict) else copy.deepcopy(v) for k, v in value.items()
            }
        else:
            out[key] = copy.deepcopy(value)
    return out


def resolve_local_ref(root: Mapping[str, Any], ref: str) -> dict[str, Any]:
    """Resolve a local JSON-pointer ``$ref`` (``#``, ``#/$defs/X``, ...) against ``root``."""
    if not ref.startswith("#"):
        raise ValueError(f"Only local $ref values are supported, got {ref!r}")
    node: Any = root
    for raw in ref[1:].split("/")[1:]:
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, Mapping) and part in node:
            node = node[part]
        else:
            raise ValueError(f"Unresolvable $ref {ref!r}")
    if not isinstance(node, Mapping):
        raise ValueError(f"$ref {ref!r} does not point to a schema object")
    return dict(node)


def schema_types(schema: Mapping[str, Any]) -> list[str]:
    """The ``type`` keyword as a list (empty when absent)."""
    t = schema.get("type")
    if isinstance(t, str):
        return [t]
    return [x for x in t if isinstance(x, str)] if isinstance(t, list) else []


def allows_null(schema: Any, root: Mapping[str, Any], _seen: frozenset[str] = frozenset()) -> bool:
    """Whether ``None`` can satisfy ``schema`` (type, enum, const, $ref and the combinators)."""
    if not isinstance(schema, Mapping):
        return schema is not False
    ref = schema.get("$ref")
    if isinstance(ref, str) and (
        ref in _seen or not allows_null(resolve_local_ref(root, ref), root, _seen | {ref})
    ):
        return False
    types = schema_types(schema)
    if "type" in schema and "null" not in types:
        return False
    if "enum" in schema and None not in schema["enum"]:
        return False
    if "const" in schema and schema["const"] is not None:
        return False
    for key in ("anyOf", "oneOf"):
        if key in schema and not any(allows_null(s, root, _seen) for s in schema[key]):
            return False
    return all(allows_null(s, root, _seen) for s in schema.get("allOf", ()))


def _nullable(schema: dict[str, Any], root: Mapping[str, Any]) -> dict[str, Any]:
    if allows_null(schema, root):
        return schema
    types = schema_types(schema)
    if types and not {"const", "$ref", "anyOf"} & set(schema):
        out = {**schema, "type": [*types, "null"]}
        if "enum" in out:
            out["enum"] = [*out["enum"], None]
        return out
    if set(schema) - set(_ANNOTATIONS) == {"anyOf"}:
        return {**schema, "anyOf": [*schema["anyOf"], {"type": "null"}]}
    outer = {k: schema[k] for k in _ANNOTATIONS if k in schema}
    inner = {k: v for k, v in schema.items() if k not in _ANNOTATIONS}
    return {**outer, "anyOf": [inner, {"type": "null"}]}


def to_strict_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """Return a Structured Outputs version of an object ``schema``; raise StrictSchemaError."""
    if schema_types(schema) != ["object"] or "anyOf" in schema or "oneOf" in schema:
        raise StrictSchemaError("the root of a strict schema must be a plain object")
    return _strict(dict(schema), schema, (), is_root=True)


def _strict(
    node: dict[str, Any], root: Mapping[str, Any], inlining: tuple[str, ...], *, is_root: bool
) -> dict[str, Any]:
    if "prefixItems" in node or isinstance(node.get("items"), list):
        raise StrictSchemaError("tuple schemas are not supported")
    if "oneOf" in node:
        if "anyOf" in node:
            raise StrictSchemaError("a schema cannot use both anyOf and oneOf")
        node = {("anyOf" if k == "oneOf" else k): v for k, v in node.items()}
    if "allOf" in node:
        parts = node.pop("allOf")
        if len(parts) != 1 or not isinstance(parts[0], dict):
            raise StrictSchemaError("allOf is not supported")
        node = {**parts[0], **node}
    node = {k: v for k, v in node.items() if k in _STRICT_KEYWORDS}
    if "format" in node and node["format"] not in _STRICT_FORMATS:
        del node["format"]
    ref = node.get("$ref")
    if isinstance(ref, str) and len(node) > 1:
        if ref in inlining:
            return {"$ref": ref}
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        target = resolve_local_ref(root, ref)
        merged = {k: v for k, v in target.items() if k not in ("$defs", "definitions")}
        return _strict({**merged, **siblings}, root, (*inlining, ref), is_root=False)
    if not {"type", "anyOf", "$ref", "enum", "const", "properties"} & set(node):
        raise StrictSchemaError("free-form values cannot be expressed in strict mode")

    types = schema_types(node)
    is_object = "object" in types or ("properties" in node and not types)
    if is_object:
        if node.get("additionalProperties", False) is not False:
            raise StrictSchemaError("maps (additionalProperties schemas) are not supported")
        if "properties" not in node and not is_root and "additionalProperties" not in node:
            raise StrictSchemaError("free-form objects cannot be expressed in strict mode")
        if not types:
            node = {"type": "object", **node}
    if "array" in types and "items" not in node:
        raise StrictSchemaError("arrays need an items schema in strict mode")

    def sub(s: dict[str, Any]) -> dict[str, Any]:
        return _strict(s, root, inlining, is_root=False)

    node = map_subschemas(node, sub)
    if is_object:
        props: dict[str, Any] = node.get("properties", {})
        required = set(node.get("required", ()))
        if required - set(props):
            raise StrictSchemaError(
                f"required names undeclared properties: {required - set(props)}"
            )
        node["properties"] = {
            name: s if name in required else _nullable(s, root) for name, s in props.items()
        }
        node["required"] = list(props)
        node["additionalProperties"] = False
    return node


def drop_strict_nulls(
    args: Mapping[str, Any], original_schema: Mapping[str, Any]
) -> dict[str, Any]:
    """Remove ``None`` values the original schema does not allow (undo strict-mode nullables).

    A strict-mode call sends every property, with ``null`` standing for "not given". This walks
    ``args`` along ``original_schema`` (properties, items, local ``$ref`` and a single matching
    ``anyOf``/``oneOf``/``allOf`` branch) and drops each key whose value is ``None`` where the
    original property schema rejects ``null``; a property that really is nullable keeps its
    ``None``. Returns a new dict; ``args`` is not modified.
    """
    out = _drop(args, original_schema, original_schema, 0)
    return out if isinstance(out, dict) else dict(args)


def _deref(schema: Any, root: Mapping[str, Any]) -> Any:
    seen: set[str] = set()
    while isinstance(schema, Mapping) and isinstance(schema.get("$ref"), str):
        ref = schema["$ref"]
        if ref in seen:
            break
        seen.add(ref)
        schema = {
            **resolve_local_ref(root, ref),
            **{k: v for k, v in schema.items() if k != "$ref"},
        }
    return schema


def _branch(schema: Any, root: Mapping[str, Any], key: str) -> Any:
    """The schema (or the single combinator branch) that carries ``key``."""
    schema = _deref(schema, root)
    if not isinstance(schema, Mapping) or key in schema:
        return schema
    candidates = [
        _deref(b, root)
        for comb in ("anyOf", "oneOf", "allOf")
        for b in schema.get(comb, ())
        if isinstance(_deref(b, root), Mapping) and key in _deref(b, root)
    ]
    return candidates[0] if len(candidates) == 1 else None


def _drop(value: Any, schema: Any, root: Mapping[str, Any], depth: int) -> Any:
    if depth > 64 or not isinstance(schema, Mapping):
        return copy.deepcopy(value)
    if isinstance(value, Mapping):
        obj = _branch(schema, root, "properties")
        props = obj.get("properties") if isinstance(obj, Mapping) else None
        if not isinstance(props, Mapping):
            return copy.deepcopy(dict(value))
        result: dict[str, Any] = {}
        for key, item in value.items():
            sub = props.get(key)
            if item is None and sub is not None and not allows_null(sub, root):
                continue
            result[key] = _drop(item, sub, root, depth + 1)
        return result
    if isinstance(value, list):
        arr = _branch(schema, root, "items")
        items = arr.get("items") if isinstance(arr, Mapping) else None
        return [_drop(v, items, root, depth + 1) for v in value]
    return copy.deepcopy(value)
