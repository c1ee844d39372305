"""Params proved valid without a validator library, for the plain schemas tools declare.

The built-in tools' schemas use a handful of draft-7 keywords: ``type``, ``properties``,
``required``, ``additionalProperties``, ``items``, ``enum``, lengths, bounds and annotations.
:func:`proves_valid` answers ``True`` only when the schema uses nothing else and the params
plainly satisfy it; anything else (another keyword, a malformed schema, an integral float where
an integer is asked for, a value it would reject) is ``False``: *not proved*, and
:mod:`.validation` asks ``fastjsonschema``, then ``jsonschema`` for the message, as before. It
never rejects and never words an error, so it cannot change what a call is told. Why by hand:
importing ``fastjsonschema`` and generating and compiling a validator for each schema cost a
one-call process about a tenth of its time (``bench/startup.py``).

A schema's well-formedness is worked out once per schema object and remembered (a tool's
schema is checked on every call otherwise): schemas are taken as never changed once declared.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

__all__ = ["proves_valid"]

_DRAFT_7 = frozenset(
    {"http://json-schema.org/draft-07/schema", "http://json-schema.org/draft-07/schema#"}
)
_ANNOTATIONS = frozenset({"description", "title", "default", "examples", "$comment", "$schema"})
_COUNTS = ("minLength", "maxLength", "minItems", "maxItems")
_BOUNDS = ("minimum", "maximum")
_KNOWN = _ANNOTATIONS | frozenset(
    {"type", "enum", "required", "properties", "additionalProperties", "items", "uniqueItems"}
    | set(_COUNTS)
    | set(_BOUNDS)
)
_TYPES = frozenset({"string", "number", "integer", "boolean", "null", "array", "object"})


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_type(value: Any, name: str) -> bool:
    """Whether ``value`` is plainly of JSON type ``name`` (an integral float is not proved)."""
    if name == "string":
        return isinstance(value, str)
    if name == "boolean":
        return isinstance(value, bool)
    if name == "null":
        return value is None
    if name == "object":
        return isinstance(value, dict)
    if name == "array":
        return isinstance(value, list)
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    return _number(value) and math.isfinite(value)  # "number"


def _same(a: Any, b: Any) -> bool:
    """JSON equality of two scalars (``1`` and ``1.0`` equal, ``1`` and ``true`` not)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if _number(a) and _number(b):
        return bool(a == b)
    if (isinstance(a, str) and isinstance(b, str)) or (a is None and b is None):
        return bool(a == b)
    return False


def _distinct(items: list[Any]) -> bool:
    """Whether the scalars of ``items`` are pairwise unequal in JSON (lists, objects: no proof)."""
    keys: set[tuple[str, Any]] = set()
    for item in items:
        if isinstance(item, bool):
            keys.add(("b", item))
        elif _number(item):
            keys.add(("n", item))  # 1 and 1.0 hash and compare equal, as JSON has them
        elif isinstance(item, str) or item is None:
            keys.add(("s", item))
        else:
            return False
    return len(keys) == len(items)


_FORMED: dict[int, tuple[Mapping[str, Any], bool]] = {}
"""``id(schema)`` → (the schema, held so that its id is not reused; its verdict)."""
_FORMED_MAX = 4096


def _well_formed(schema: Mapping[str, Any]) -> bool:
    """:func:`_check_well_formed`, remembered per schema object."""
    known = _FORMED.get(id(schema))
    if known is not None and known[0] is schema:
        return known[1]
    verdict = _check_well_formed(schema)
    if len(_FORMED) >= _FORMED_MAX:
        _FORMED.clear()
    _FORMED[id(schema)] = (schema, verdict)
    return verdict


def _check_well_formed(schema: Mapping[str, Any]) -> bool:
    """Whether every keyword of ``schema`` is one handled here, in the shape draft 7 requires."""
    if any(key not in _KNOWN for key in schema):
        return False
    if "$schema" in schema and schema["$schema"] not in _DRAFT_7:
        return False
    types = schema.get("type", "string")
    names = [types] if isinstance(types, str) else types
    if not isinstance(names, list) or not names or any(name not in _TYPES for name in names):
        return False
    counts_ok = all(
        isinstance(schema.get(key, 0), int)
        and not isinstance(schema.get(key, 0), bool)
        and schema.get(key, 0) >= 0
        for key in _COUNTS
    )
    return (
        counts_ok
        and all(_number(schema.get(key, 0)) for key in _BOUNDS)
        and isinstance(schema.get("enum", []), list)
        and isinstance(schema.get("uniqueItems", False), bool)
        and isinstance(schema.get("required", []), list)
        and all(isinstance(name, str) for name in schema.get("required", []))
        and isinstance(schema.get("properties", {}), Mapping)
        and all(isinstance(sub, Mapping) for sub in schema.get("properties", {}).values())
        and isinstance(schema.get("additionalProperties", True), bool | Mapping)
        and isinstance(schema.get("items", {}), Mapping)
    )


def _string_ok(schema: Mapping[str, Any], value: str) -> bool:
    return bool(schema.get("minLength", 0) <= len(value) <= schema.get("maxLength", math.inf))


def _number_ok(schema: Mapping[str, Any], value: float) -> bool:
    return bool(schema.get("minimum", -math.inf) <= value <= schema.get("maximum", math.inf))


def _array_ok(schema: Mapping[str, Any], value: list[Any]) -> bool:
    if not schema.get("minItems", 0) <= len(value) <= schema.get("maxItems", math.inf):
        return False
    if schema.get("uniqueItems") and not _distinct(value):
        return False
    items = schema.get("items")
    return items is None or all(proves_valid(items, item) for item in value)


def _object_ok(schema: Mapping[str, Any], value: dict[str, Any]) -> bool:
    if any(name not in value for name in schema.get("required", [])):
        return False
    properties: Mapping[str, Any] = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    for key, item in value.items():
        sub = properties.get(key)
        if sub is None:
            sub = extra if isinstance(extra, Mapping) else None
            if extra is False:
                return False
        if sub is not None and not proves_valid(sub, item):
            return False
    return True


def proves_valid(schema: Any, value: Any) -> bool:
    """Whether ``value`` plainly satisfies the plain draft-7 ``schema`` (``False``: not proved)."""
    if not isinstance(schema, Mapping) or not _well_formed(schema):
        return False
    types = schema.get("type")
    if types is not None:
        names = [types] if isinstance(types, str) else types
        if not any(_is_type(value, name) for name in names):
            return False
    if "enum" in schema and not any(_same(option, value) for option in schema["enum"]):
        return False
    if isinstance(value, str):
        return _string_ok(schema, value)
    if _number(value):
        return math.isfinite(value) and _number_ok(schema, value)
    if isinstance(value, list):
        return _array_ok(schema, value)
    if isinstance(value, dict):
        return _object_ok(schema, value)
    return True
