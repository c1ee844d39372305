"""Each built-in's typed params (a ``TypedDict``) say what its model-facing schema says.

The schema is what the model sees and what validation enforces; the ``TypedDict`` is what mypy
checks the tool's code against. These tests keep the two from drifting apart: the same keys,
the same required keys and compatible value types, nested objects included, and the tool and
its invocation declared over that type.
"""

from __future__ import annotations

import importlib
import types
import typing
from pathlib import Path
from typing import Any, Literal, NotRequired, Required

import pytest

import qwen_tools.tools as builtins
from qwen_tools.config.config import Config
from qwen_tools.contract.declarative import BaseDeclarativeTool

_JSON_TYPES: dict[str, set[type]] = {
    "string": {str},
    "integer": {int},
    "number": {int, float},
    "boolean": {bool},
    "null": {type(None)},
    "array": {list},
    "object": {dict},
}


def _tool_class(name: str) -> type[BaseDeclarativeTool[Any]]:
    module, cls = builtins._TOOLS[name]
    tool_class: type[BaseDeclarativeTool[Any]] = getattr(
        importlib.import_module(f"qwen_tools.tools.{module}"), cls
    )
    return tool_class


def _params_type(tool_class: type) -> Any:
    """``X`` of the class's ``BaseDeclarativeTool[X]`` base."""
    for base in getattr(tool_class, "__orig_bases__", ()):
        if typing.get_origin(base) is BaseDeclarativeTool:
            return typing.get_args(base)[0]
    raise AssertionError(f"{tool_class.__name__} does not subclass BaseDeclarativeTool[...]")


def _fields(typed_dict: Any) -> dict[str, tuple[bool, Any]]:
    """Key -> (required, value type), read from the annotations (``Required``/``NotRequired``).

    ``__required_keys__`` cannot be trusted here: under ``from __future__ import annotations``
    Python 3.11 does not see ``Required[...]`` in the string annotations.
    """
    hints = typing.get_type_hints(typed_dict, include_extras=True)
    fields: dict[str, tuple[bool, Any]] = {}
    for key, hint in hints.items():
        origin = typing.get_origin(hint)
        if origin is Required or origin is NotRequired:
            fields[key] = (origin is Required, typing.get_args(hint)[0])
        else:
            fields[key] = (typed_dict.__total__, hint)
    return fields


def _alternatives(hint: Any) -> list[Any]:
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return list(typing.get_args(hint))
    return [hint]


def _python_types(hint: Any) -> set[type]:
    found: set[type] = set()
    for alternative in _alternatives(hint):
        if typing.is_typeddict(alternative):
            found.add(dict)
        elif typing.get_origin(alternative) is Literal:
            found.update(type(value) for value in typing.get_args(alternative))
        else:
            found.add(typing.get_origin(alternative) or alternative)
    return found


def _mismatches(where: str, schema: dict[str, Any], typed_dict: Any) -> list[str]:
    """What differs between an object schema and a ``TypedDict`` (empty when they agree)."""
    fields = _fields(typed_dict)
    properties: dict[str, Any] = schema.get("properties", {})
    problems: list[str] = []
    if set(fields) != set(properties):
        problems.append(f"{where}: keys {sorted(fields)} != schema properties {sorted(properties)}")
    required = {key for key, (is_required, _) in fields.items() if is_required}
    if required != set(schema.get("required", [])):
        problems.append(
            f"{where}: required {sorted(required)} != schema {sorted(schema.get('required', []))}"
        )
    for key in sorted(set(fields) & set(properties)):
        problems += _value_mismatches(f"{where}.{key}", properties[key], fields[key][1])
    return problems


def _value_mismatches(where: str, schema: dict[str, Any], hint: Any) -> list[str]:
    declared = schema.get("type")
    if declared is None:
        return []
    names = declared if isinstance(declared, list) else [declared]
    expected = set().union(*(_JSON_TYPES[name] for name in names))
    if _python_types(hint) != expected:
        return [f"{where}: {hint!r} is not the schema's {declared!r}"]
    problems: list[str] = []
    if "enum" in schema:
        literals = [a for a in _alternatives(hint) if typing.get_origin(a) is Literal]
        values = {value for literal in literals for value in typing.get_args(literal)}
        if values != set(schema["enum"]):
            problems.append(f"{where}: {hint!r} does not list the schema's enum")
    for alternative in _alternatives(hint):
        if typing.is_typeddict(alternative):
            problems += _mismatches(where, schema, alternative)
        elif typing.get_origin(alternative) is list and "items" in schema:
            (item,) = typing.get_args(alternative)
            problems += _value_mismatches(f"{where}[]", schema["items"], item)
    return problems


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> Config:
    return Config(Path(tmp_path_factory.mktemp("params")))


@pytest.mark.parametrize("name", list(builtins._TOOLS))
def test_params_type_matches_the_schema(config: Config, name: str) -> None:
    tool_class = _tool_class(name)
    params_type = _params_type(tool_class)
    assert typing.is_typeddict(params_type), f"{name}: params are {params_type!r}"
    tool = tool_class(config)  # type: ignore[call-arg]
    assert _mismatches(name, tool.parameter_schema, params_type) == []


@pytest.mark.parametrize("name", list(builtins._TOOLS))
def test_params_type_is_exported(name: str) -> None:
    tool_class = _tool_class(name)
    params_type = _params_type(tool_class)
    assert params_type.__name__ == tool_class.__name__.removesuffix("Tool") + "Params"
    module = importlib.import_module(tool_class.__module__)
    assert getattr(module, params_type.__name__, None) is params_type
    assert params_type.__name__ in builtins.__all__
    assert getattr(builtins, params_type.__name__) is params_type


def test_a_drifted_params_type_is_caught() -> None:
    """The comparison itself finds a missing key, a wrong required set and a wrong type."""

    class Params(typing.TypedDict, total=False):
        path: Required[str]
        limit: int

    schema: dict[str, Any] = {
        "properties": {"path": {"type": "string"}, "limit": {"type": ["integer", "null"]}},
        "required": ["path"],
    }
    assert _mismatches("t", schema, Params) == [
        "t.limit: <class 'int'> is not the schema's ['integer', 'null']"
    ]
    schema["required"] = ["path", "limit"]
    schema["properties"]["extra"] = {"type": "string"}
    assert len(_mismatches("t", schema, Params)) == 3
