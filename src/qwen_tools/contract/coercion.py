"""Lenient coercion of model-produced params toward their JSON schema.

Models often send ``"5"`` for an integer, ``"true"`` for a boolean, a number where a string is
expected, or a JSON array serialised as a string. Like the reference, we repair those shapes
in place (and only where the schema does not accept the value as it is) before validating again.
JSON inside a string is held to the same limits as the params (:mod:`.arg_limits`): read as
``JSON.parse`` reads it, lone surrogates made U+FFFD, and left a string when it nests too deeply.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from qwen_tools.contract.arg_limits import ArgumentsTextError, admitted_copy, loads_arguments

_NUMERIC = re.compile(r"^-?\d+(\.\d+)?$")
_MAX_DEPTH = 64
_MISSING = object()

Fixer = Callable[[Any, frozenset[str]], Any]
"""Returns the replacement for a value given the types its schema accepts, or ``_MISSING``."""


def _resolve(schema: Any, root: dict[str, Any]) -> dict[str, Any] | None:
    """Follow local ``$ref`` pointers (``#/...``) until a concrete schema object is reached."""
    depth = 0
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and depth < _MAX_DEPTH:
        ref: str = schema["$ref"]
        if not ref.startswith("#/"):
            return schema
        target: Any = root
        for raw in ref[2:].split("/"):
            key = raw.replace("~1", "/").replace("~0", "~")
            if not isinstance(target, dict) or key not in target:
                return schema
            target = target[key]
        schema = target
        depth += 1
    return schema if isinstance(schema, dict) else None


def _variants(schema: dict[str, Any], root: dict[str, Any]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for keyword in ("allOf", "anyOf", "oneOf"):
        for item in schema.get(keyword) or ():
            resolved = _resolve(item, root)
            if resolved is not None:
                found.append(resolved)
    return found


def accepted_types(schema: dict[str, Any], root: dict[str, Any], depth: int = 0) -> frozenset[str]:
    """The JSON types a schema admits, looking through ``$ref`` and ``anyOf``/``oneOf``/``allOf``."""
    if depth > _MAX_DEPTH:
        return frozenset()
    resolved = _resolve(schema, root)
    if resolved is None:
        return frozenset()
    types: set[str] = set()
    declared = resolved.get("type")
    if isinstance(declared, str):
        types.add(declared)
    elif isinstance(declared, list):
        types.update(t for t in declared if isinstance(t, str))
    for variant in _variants(resolved, root):
        types |= accepted_types(variant, root, depth + 1)
    return frozenset(types)


def _property_schema(
    schema: dict[str, Any], key: str, root: dict[str, Any]
) -> dict[str, Any] | None:
    props = schema.get("properties")
    if isinstance(props, dict) and key in props:
        return _resolve(props[key], root)
    for variant in _variants(schema, root):
        vprops = variant.get("properties")
        if isinstance(vprops, dict) and key in vprops:
            return _resolve(vprops[key], root)
    extra = schema.get("additionalProperties")
    return _resolve(extra, root) if isinstance(extra, dict) else None


def _item_schema(schema: dict[str, Any], index: int, root: dict[str, Any]) -> dict[str, Any] | None:
    prefix = schema.get("prefixItems")
    if isinstance(prefix, list):
        return _resolve(prefix[index], root) if index < len(prefix) else None
    items = schema.get("items")
    if isinstance(items, list):  # draft-07 tuple form
        return _resolve(items[index], root) if index < len(items) else None
    return _resolve(items, root) if isinstance(items, dict) else None


def _type_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _is_accepted(kind: str, accepted: frozenset[str]) -> bool:
    return kind in accepted or (kind == "integer" and "number" in accepted)


def _walk(
    data: Any, schema: dict[str, Any], root: dict[str, Any], fix: Fixer, depth: int = 0
) -> None:
    if depth > _MAX_DEPTH:
        return
    if isinstance(data, dict):
        slots: list[tuple[Any, dict[str, Any] | None]] = [
            (key, _property_schema(schema, key, root)) for key in list(data)
        ]
    elif isinstance(data, list):
        slots = [(i, _item_schema(schema, i, root)) for i in range(len(data))]
    else:
        return
    for key, child_schema in slots:
        if child_schema is None:
            continue
        value = data[key]
        if isinstance(value, dict | list):
            _walk(value, child_schema, root, fix, depth + 1)
            continue
        replacement = fix(value, accepted_types(child_schema, root))
        if replacement is not _MISSING:
            data[key] = replacement
            if isinstance(replacement, dict | list):
                _walk(replacement, child_schema, root, fix, depth + 1)


def _fix_boolean(value: Any, accepted: frozenset[str]) -> Any:
    wants_boolean = "boolean" in accepted and "string" not in accepted
    if wants_boolean and isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    return _MISSING


def _fix_string(value: Any, accepted: frozenset[str]) -> Any:
    scalar = isinstance(value, bool | int | float)
    if scalar and "string" in accepted and not _is_accepted(_type_of(value), accepted):
        if isinstance(value, bool):
            return "true" if value else "false"
        return _js_number(value)
    return _MISSING


def _fix_json(value: Any, accepted: frozenset[str]) -> Any:
    if not isinstance(value, str) or not accepted or "string" in accepted:
        return _MISSING
    text = value.strip()
    if (text.startswith("[") and text.endswith("]")) or (
        text.startswith("{") and text.endswith("}")
    ):
        try:
            parsed = loads_arguments(text)
        except ArgumentsTextError:
            return _MISSING
        parsed, too_deep, _ = admitted_copy(parsed)  # the same limits as the params themselves
        if too_deep is None and _type_of(parsed) in accepted:
            return parsed
    return _MISSING


def _fix_numeric(value: Any, accepted: frozenset[str]) -> Any:
    if not isinstance(value, str) or "string" in accepted:
        return _MISSING
    wants_int, wants_num = "integer" in accepted, "number" in accepted
    text = value.strip()
    if not (wants_int or wants_num) or not _NUMERIC.match(text):
        return _MISSING
    number = float(text)
    if wants_num:
        return int(number) if number.is_integer() and "." not in text else number
    if not number.is_integer():
        return _MISSING
    return int(text.split(".")[0])


def _normalise_integers(value: Any, accepted: frozenset[str]) -> Any:
    """Integral floats (``2.0``) where only integers are accepted become ``int``."""
    if (
        isinstance(value, float)
        and value.is_integer()
        and "integer" in accepted
        and "number" not in accepted
    ):
        return int(value)
    return _MISSING


def _js_number(value: float | int) -> str:
    """Format a number the way JavaScript's ``String(n)`` does for common values."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    return str(value)


def coerce_params(data: dict[str, Any], schema: dict[str, Any]) -> None:
    """Apply the reference's four repair passes to ``data`` in place, in its order."""
    for fixer in (_fix_boolean, _fix_string, _fix_json, _fix_numeric):
        _walk(data, schema, schema, fixer)


def _has_float(value: Any) -> bool:
    if isinstance(value, float):
        return True
    if isinstance(value, dict):
        return any(_has_float(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_float(v) for v in value)
    return False


def normalise_integers(data: dict[str, Any], schema: dict[str, Any]) -> None:
    """Turn integral floats into ints where the schema asks for integers (in place)."""
    if _has_float(data):
        _walk(data, schema, schema, _normalise_integers)
