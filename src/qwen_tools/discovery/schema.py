"""The parameter schema of a discovered declaration.

A declaration's ``parametersJsonSchema`` is used as given when it is a JSON object (Qwen Code
0.24.4 reads only this key). Otherwise its classic ``parameters`` (the Gemini API's OpenAPI
subset, as gemini-cli and older Qwen Code read it) is turned into JSON Schema by
:func:`gemini_to_json_schema`. A declaration with neither takes no arguments:
``{"type": "object", "properties": {}}``. (0.24.4 uses ``{}`` in both of the last cases, so
nothing it is given is ever validated.)
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any

__all__ = ["EMPTY_OBJECT_SCHEMA", "declaration_schema", "gemini_to_json_schema"]

EMPTY_OBJECT_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}

_TYPES = {
    "STRING": "string",
    "NUMBER": "number",
    "INTEGER": "integer",
    "BOOLEAN": "boolean",
    "ARRAY": "array",
    "OBJECT": "object",
    "NULL": "null",
}
_UNSPECIFIED = "TYPE_UNSPECIFIED"
_COUNTS = frozenset(
    {"minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties"}
)
_SCHEMA_LISTS = frozenset({"anyOf", "oneOf", "allOf"})
_SCHEMA_VALUES = frozenset({"items", "additionalProperties", "not"})
_DIGITS = re.compile(r"^\d+$")


def declaration_schema(declaration: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON Schema of a declaration's parameters (see the module docstring)."""
    json_schema = declaration.get("parametersJsonSchema")
    if isinstance(json_schema, dict):
        return copy.deepcopy(json_schema)
    classic = declaration.get("parameters")
    if isinstance(classic, dict):
        return gemini_to_json_schema(classic)
    return copy.deepcopy(EMPTY_OBJECT_SCHEMA)


def _type_name(value: Any) -> Any:
    if isinstance(value, str) and value.upper() in _TYPES:
        return _TYPES[value.upper()]
    return value


def gemini_to_json_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A Gemini ``Schema`` object as JSON Schema (a copy; the input is left alone).

    * ``STRING``, ``OBJECT`` … become ``string``, ``object`` …; ``TYPE_UNSPECIFIED`` is dropped;
    * ``nullable: true`` becomes a type union with ``"null"`` (and ``null`` joins an ``enum``);
    * counts sent as strings (``"minItems": "1"``, the proto-JSON form of int64) become integers;
    * ``example`` becomes ``examples``; ``propertyOrdering`` and ``format: "enum"`` are dropped;
    * nested ``properties``, ``items``, ``anyOf``/``oneOf``/``allOf``, ``additionalProperties``
      and ``not`` are converted too. Everything else is kept as it is.
    """
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "type":
            if isinstance(value, list):
                out[key] = [_type_name(v) for v in value if v != _UNSPECIFIED]
            elif value != _UNSPECIFIED:
                out[key] = _type_name(value)
        elif key in ("nullable", "propertyOrdering") or (key == "format" and value == "enum"):
            continue
        elif key == "example":
            out["examples"] = [copy.deepcopy(value)]
        elif key == "properties" and isinstance(value, dict):
            out[key] = {
                name: gemini_to_json_schema(sub) if isinstance(sub, dict) else copy.deepcopy(sub)
                for name, sub in value.items()
            }
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            out[key] = [
                gemini_to_json_schema(sub) if isinstance(sub, dict) else copy.deepcopy(sub)
                for sub in value
            ]
        elif key in _SCHEMA_VALUES and isinstance(value, dict):
            out[key] = gemini_to_json_schema(value)
        elif key in _COUNTS and isinstance(value, str) and _DIGITS.match(value):
            out[key] = int(value)
        else:
            out[key] = copy.deepcopy(value)
    if schema.get("nullable") is True:
        _allow_null(out)
    return out


def _allow_null(schema: dict[str, Any]) -> None:
    declared = schema.get("type")
    if isinstance(declared, str) and declared != "null":
        schema["type"] = [declared, "null"]
    elif isinstance(declared, list) and "null" not in declared:
        schema["type"] = [*declared, "null"]
    enum = schema.get("enum")
    if isinstance(enum, list) and None not in enum:
        schema["enum"] = [*enum, None]
