"""JSON-schema validation of tool params with the reference's coercions and error texts.

The engine is ``jsonschema``; the *messages* follow AJV's ``errorsText`` format with
``dataVar: "params"`` (``params/limit must be >= 1``, ``params must have required property
'file_path'``), and when several errors exist we report the one AJV would report first, since
the reference runs AJV with ``allErrors: false``. As AJV does by default (``strictNumbers``),
NaN and the infinities are not numbers. Before any schema runs, the params pass the limits of
:mod:`.arg_limits` (nesting depth, lone surrogates, integers beyond a double).

Params that plainly satisfy a plain schema are accepted without a library (:mod:`.plain_schema`),
other valid params of a draft-7 schema by ``fastjsonschema``; ``jsonschema`` is imported, and a
schema's message-producing validator built, only when a call's params fail both checks (or the
schema is draft 2020-12, which ``fastjsonschema`` does not support).
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from qwen_tools.contract.arg_limits import NOT_AN_OBJECT, admitted_copy
from qwen_tools.contract.coercion import coerce_params, normalise_integers
from qwen_tools.contract.plain_schema import proves_valid

if TYPE_CHECKING:
    from jsonschema import ValidationError
    from jsonschema.protocols import Validator

logger = logging.getLogger("qwen_tools.validation")

_DRAFT_2020 = "https://json-schema.org/draft/2020-12/schema"

# AJV evaluates keywords group by group: untyped first, then number, string, array, object.
_UNTYPED = ["$ref", "const", "enum", "not", "anyOf", "oneOf", "allOf", "if", "then", "else"]
_NUMBER = ["maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum", "multipleOf"]
_STRING = ["maxLength", "minLength", "pattern", "format"]
_ARRAY = [
    "maxItems",
    "minItems",
    "uniqueItems",
    "additionalItems",
    "prefixItems",
    "items",
    "contains",
]
_OBJECT = [
    "maxProperties",
    "minProperties",
    "required",
    "propertyNames",
    "additionalProperties",
    "dependencies",
    "dependentRequired",
    "properties",
    "patternProperties",
]
_GROUP_OF_TYPE = {
    "number": _NUMBER,
    "integer": _NUMBER,
    "string": _STRING,
    "array": _ARRAY,
    "object": _OBJECT,
}
_KEYWORD_ORDER = {
    kw: i for i, kw in enumerate(_UNTYPED + _NUMBER + _STRING + _ARRAY + _OBJECT, start=1)
}


@dataclass(slots=True)
class _Compiled:
    """The validators of one schema: a fast yes/no check and the message-producing one.

    ``validator`` is built on first need (:func:`_slow`); ``built`` says whether it was, since
    ``None`` means the schema does not compile.
    """

    schema: Mapping[str, Any]
    fast: Callable[[Any], Any] | None
    validator: Validator | None = None
    built: bool = False


_cache: dict[int, tuple[Mapping[str, Any], _Compiled]] = {}
_by_text: dict[str, _Compiled] = {}
_strict_numbers: dict[Any, Any] = {}
"""Each draft's validator class with AJV's ``strictNumbers`` (NaN and infinities not numbers)."""


def _finite_number(checker: Any, instance: Any) -> bool:
    """AJV's ``number`` under its default ``strictNumbers``: NaN and the infinities are not."""
    return (
        isinstance(instance, int | float)
        and not isinstance(instance, bool)
        and math.isfinite(instance)
    )


def _draft_2020(schema: Mapping[str, Any]) -> bool:
    return str(schema.get("$schema", "")).rstrip("#") == _DRAFT_2020


def _build(schema: Mapping[str, Any]) -> _Compiled:
    """The fast check of ``schema`` (none for draft 2020-12 or what fastjsonschema refuses)."""
    fast: Callable[[Any], Any] | None = None
    if not _draft_2020(schema):
        try:
            import fastjsonschema

            fast = fastjsonschema.compile(dict(schema), use_default=False)
        except Exception:  # unsupported construct (or no schema at all): the slow path decides
            fast = None
    compiled = _Compiled(schema, fast)
    if fast is None:
        _slow(compiled)
    return compiled


def _slow(compiled: _Compiled) -> Validator | None:
    """The message-producing validator of ``compiled``, built (and jsonschema imported) once."""
    if not compiled.built:
        compiled.validator = _build_validator(compiled.schema)
        compiled.built = True
    return compiled.validator


def _build_validator(schema: Mapping[str, Any]) -> Validator | None:
    from jsonschema import Draft7Validator, Draft202012Validator, FormatChecker, validators
    from jsonschema.exceptions import SchemaError

    cls: Any = Draft202012Validator if _draft_2020(schema) else Draft7Validator
    try:
        cls.check_schema(schema)
    except SchemaError as exc:
        logger.warning(
            "Skipping parameter validation: the schema does not compile: %s", exc.message
        )
        return None
    strict = _strict_numbers.get(cls)
    if strict is None:
        checker = cls.TYPE_CHECKER.redefine("number", _finite_number)
        extend: Any = validators.extend  # untyped in the stubs
        strict = _strict_numbers[cls] = extend(cls, type_checker=checker)
    validator: Validator = strict(schema, format_checker=FormatChecker())
    return validator


def _compiled(schema: Mapping[str, Any]) -> _Compiled:
    """Validators for ``schema``, cached by identity (tools keep their schema for life)."""
    hit = _cache.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1]
    key = json.dumps(schema, sort_keys=True, default=str)
    compiled = _by_text.get(key)
    if compiled is None:
        if len(_by_text) > 512:
            _by_text.clear()
            _cache.clear()
        compiled = _by_text[key] = _build(schema)
    _cache[id(schema)] = (schema, compiled)
    return compiled


def _compile(schema: Mapping[str, Any]) -> Validator | None:
    """The message-producing validator of ``schema``, or ``None`` if the schema is invalid."""
    return _slow(_compiled(schema))


def _js(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _types_checked_first(schema: Mapping[str, Any]) -> bool:
    """AJV checks ``type`` up front unless it is one type whose keyword group the schema uses."""
    declared = schema.get("type")
    if isinstance(declared, list):
        return len(declared) != 1 or not _uses_group(schema, declared[0])
    return isinstance(declared, str) and not _uses_group(schema, declared)


def _uses_group(schema: Mapping[str, Any], type_name: str) -> bool:
    return any(kw in schema for kw in _GROUP_OF_TYPE.get(type_name, ()))


def _keyword_rank(schema: Mapping[str, Any], keyword: str) -> float:
    if keyword == "type":
        return 0 if _types_checked_first(schema) else len(_UNTYPED) + 0.5
    return _KEYWORD_ORDER.get(keyword, len(_KEYWORD_ORDER) + 1)


def _resolve_local(ref: str, root: Mapping[str, Any]) -> Any:
    if not ref.startswith("#"):
        return None
    target: Any = root
    for raw in ref.lstrip("#").strip("/").split("/"):
        if not raw:
            continue
        key = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(target, list) and key.isdigit():
            target = target[int(key)] if int(key) < len(target) else None
        elif isinstance(target, Mapping):
            target = target.get(key)
        else:
            return None
    return target


def _order_key(
    error: ValidationError, root: Mapping[str, Any], base: Any, skip: int = 0
) -> tuple[float, ...]:
    """Where ``error`` sits in AJV's evaluation order, as a sortable tuple."""
    key: list[float] = []
    schema: Any = base
    steps: list[Any] = list(error.relative_schema_path)[skip:]
    i = 0
    while i < len(steps):
        step = steps[i]
        if not isinstance(schema, Mapping):
            key.append(0)
            i += 1
            continue
        keyword = str(step)
        key.append(_keyword_rank(schema, keyword))
        if keyword == "$ref":
            schema = _resolve_local(str(schema["$ref"]), root)
            i += 1
            continue
        container = schema.get(keyword)
        if keyword in ("properties", "patternProperties", "dependencies") and i + 1 < len(steps):
            names = list(container) if isinstance(container, Mapping) else []
            name = steps[i + 1]
            key.append(names.index(name) if name in names else len(names))
            schema = container.get(name) if isinstance(container, Mapping) else None
            i += 2
            continue
        if isinstance(container, list) and i + 1 < len(steps) and isinstance(steps[i + 1], int):
            key.append(steps[i + 1])
            schema = container[steps[i + 1]]
            i += 2
            continue
        schema = container
        i += 1
    return tuple(key)


def _first(
    errors: Iterable[ValidationError], root: Mapping[str, Any], base: Any, skip: int = 0
) -> ValidationError | None:
    ranked = sorted(errors, key=lambda e: (_order_key(e, root, base, skip), len(e.path)))
    return ranked[0] if ranked else None


def _path(error: ValidationError, data_var: str) -> str:
    parts = [str(p).replace("~", "~0").replace("/", "~1") for p in error.absolute_path]
    return data_var + "".join("/" + p for p in parts)


def _message(error: ValidationError) -> str:
    kw: Any = error.validator
    value: Any = error.validator_value
    if not isinstance(kw, str):
        return "boolean schema is false"
    if kw == "type":
        return "must be " + (",".join(value) if isinstance(value, list) else str(value))
    if kw == "required":
        instance: Any = error.instance
        missing = next((name for name in value if name not in instance), value[0] if value else "")
        return f"must have required property '{missing}'"
    if kw in ("additionalProperties", "unevaluatedProperties"):
        return "must NOT have additional properties"
    simple_limits = {
        "minimum": ">=",
        "maximum": "<=",
        "exclusiveMinimum": ">",
        "exclusiveMaximum": "<",
    }
    if kw in simple_limits:
        return f"must be {simple_limits[kw]} {_js(value)}"
    counted = {
        "minLength": ("fewer", "characters"),
        "maxLength": ("more", "characters"),
        "minItems": ("fewer", "items"),
        "maxItems": ("more", "items"),
        "minProperties": ("fewer", "properties"),
        "maxProperties": ("more", "properties"),
    }
    if kw in counted:
        comparison, unit = counted[kw]
        return f"must NOT have {comparison} than {_js(value)} {unit}"
    fixed = {
        "enum": "must be equal to one of the allowed values",
        "const": "must be equal to constant",
        "anyOf": "must match a schema in anyOf",
        "oneOf": "must match exactly one schema in oneOf",
        "not": "must NOT be valid",
        "propertyNames": "property name must be valid",
        "uniqueItems": "must NOT have duplicate items",
    }
    if kw in fixed:
        return fixed[kw]
    if kw == "pattern":
        return f'must match pattern "{value}"'
    if kw == "format":
        return f'must match format "{value}"'
    if kw == "multipleOf":
        return f"must be multiple of {_js(value)}"
    if kw == "contains":
        return "must contain at least 1 valid item(s)"
    if kw in ("dependencies", "dependentRequired"):
        return "must have required property"
    return str(error.message)


def _render(error: ValidationError, root: Mapping[str, Any], data_var: str) -> str:
    """One error as AJV would print it, including branch errors for anyOf/oneOf."""
    own = f"{_path(error, data_var)} {_message(error)}"
    if error.validator in ("anyOf", "oneOf") and error.context:
        branches: dict[int, list[ValidationError]] = {}
        for sub in error.context:
            branches.setdefault(int(sub.relative_schema_path[0]), []).append(sub)
        rendered: list[str] = []
        alternatives: Any = error.validator_value
        for index in sorted(branches):
            first = _first(branches[index], root, alternatives[index], skip=1)
            if first is not None:
                rendered.append(f"{_path(first, data_var)} {_message(first)}")
        return ", ".join([*rendered, own])
    return own


def schema_error(schema: Mapping[str, Any], data: Any, data_var: str = "params") -> str | None:
    """Validate ``data`` against ``schema`` without coercion; the AJV-style text or ``None``."""
    validator = _compile(schema)
    if validator is None:
        return None
    errors = list(validator.iter_errors(data))
    if not errors:
        return None
    first = _first(errors, schema, schema)
    assert first is not None
    return _render(first, schema, data_var)


def validate_params(
    schema: Mapping[str, Any] | None, params: Any
) -> tuple[dict[str, Any], str | None]:
    """Validate tool params the way the reference does.

    Returns ``(params, error)``: a deep copy of the params with coercions applied (``"5"`` →
    ``5`` and friends, only when the first validation failed), and the error text or ``None``.
    A missing schema or one that does not compile skips validation, as in the reference.
    The copy is made by :func:`~.arg_limits.admitted_copy` (lone surrogates to U+FFFD, integers
    beyond a double to Infinity) and nesting past its limit is an error before any schema runs.
    """
    if not isinstance(params, Mapping):
        return {}, NOT_AN_OBJECT
    data, too_deep, non_finite = admitted_copy(params)
    if too_deep is not None:
        return {}, too_deep
    if not schema:
        return data, None
    if not non_finite and proves_valid(schema, data):  # most calls: no validator library
        normalise_integers(data, dict(schema))
        return data, None
    compiled = _compiled(schema)
    if compiled.built and compiled.validator is None:
        return data, None
    if compiled.fast is not None and not non_finite:
        try:
            compiled.fast(data)
        except Exception:
            pass  # invalid (or a checker quirk): the slow path decides and words the error
        else:
            normalise_integers(data, dict(schema))
            return data, None
    if _slow(compiled) is None:
        return data, None  # the schema does not compile: validation is skipped
    error = schema_error(schema, data)
    if error is not None:
        coerce_params(data, dict(schema))
        error = schema_error(schema, data)
    if error is None:
        normalise_integers(data, dict(schema))
    return data, error
