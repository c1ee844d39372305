"""Reading the YAML front matter of a subagent file the way Qwen Code 0.24.4 reads it.

The reference parses with the YAML 1.2 *core* schema: only ``true``/``false`` are booleans (not
``yes``/``no``/``on``), ``017`` is decimal, ``0o17`` octal, and plain dates stay strings. PyYAML
speaks YAML 1.1, so :func:`parse_front_matter` uses a loader with the core schema's resolvers.
Null values are dropped (at any depth), explicit ``!!timestamp``/``!!binary`` values become
strings, and when the text is not valid YAML or is not a mapping, the reference's lenient
line-based reader takes over (``key: value`` lines, indented ``- item`` lists and one level of
indented ``key: value`` maps), so a description such as ``Use it: for reviews`` still loads.

PyYAML is imported on first use.
"""

from __future__ import annotations

import base64
import datetime
import functools
import importlib
import math
import re
from typing import Any

__all__ = ["js_number", "js_string", "parse_front_matter"]

_CORE_RESOLVERS: tuple[tuple[str, str, str], ...] = (
    ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", "~nN"),
    ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    ("tag:yaml.org,2002:int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
    (
        "tag:yaml.org,2002:float",
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$",
        "-+0123456789.",
    ),
)
_REPLACED_TAGS = frozenset({tag for tag, _, _ in _CORE_RESOLVERS} | {"tag:yaml.org,2002:timestamp"})


@functools.cache
def _core_loader() -> Any:
    """A PyYAML safe loader class whose implicit scalars follow the YAML 1.2 core schema."""
    yaml = importlib.import_module("yaml")
    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    def construct_int(loader: Any, node: Any) -> int:
        text = str(loader.construct_scalar(node))
        if text.startswith("0o"):
            return int(text[2:], 8)
        if text.startswith("0x"):
            return int(text[2:], 16)
        return int(text, 10)

    loader: Any = type("CoreSchemaLoader", (base,), {})
    loader.yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in resolvers if tag not in _REPLACED_TAGS]
        for first, resolvers in base.yaml_implicit_resolvers.items()
    }
    for tag, pattern, first_chars in _CORE_RESOLVERS:
        loader.add_implicit_resolver(tag, re.compile(pattern), list(first_chars))
    loader.add_constructor("tag:yaml.org,2002:int", construct_int)
    return loader


def _sanitise(value: Any) -> Any:
    """Nulls removed, dates as ISO strings, binary as text (the reference's ``sanitizeValue``)."""
    if isinstance(value, datetime.datetime):
        aware = value if value.tzinfo else value.replace(tzinfo=datetime.UTC)
        return aware.astimezone(datetime.UTC).isoformat(timespec="milliseconds")[:-6] + "Z"
    if isinstance(value, datetime.date):
        return f"{value.isoformat()}T00:00:00.000Z"
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    if isinstance(value, dict):
        return _strip_nulls(value)
    if isinstance(value, list):
        return [item for item in map(_sanitise, value) if item is not None]
    return value


def _strip_nulls(mapping: dict[Any, Any]) -> dict[str, Any]:
    cleaned: dict[str, Any] = {}
    for key, value in mapping.items():
        sanitised = _sanitise(value)
        if sanitised is not None:
            cleaned[js_string(key)] = sanitised
    return cleaned


def parse_front_matter(text: str) -> dict[str, Any]:
    """The front matter as a mapping (never raises; see the module docstring)."""
    yaml = importlib.import_module("yaml")
    try:
        result = yaml.load(text, Loader=_core_loader())
    except (yaml.YAMLError, ValueError, TypeError):
        result = None
    if isinstance(result, dict):
        return _strip_nulls(result)
    return _strip_nulls(_parse_simple(text))


# -- the reference's fallback reader ------------------------------------------------------------

_JS_DECIMAL = re.compile(r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$")
_JS_PREFIXED = re.compile(r"^0([xXoObB])([0-9a-fA-F]+)$")


def js_number(text: str) -> int | float | None:
    """JavaScript's ``Number(text)`` for a trimmed string, or ``None`` when it is ``NaN``.

    Integral values come back as ``int`` (JavaScript has one number type).
    """
    if text == "":
        return 0
    prefixed = _JS_PREFIXED.match(text)
    if prefixed:
        base = {"x": 16, "o": 8, "b": 2}[prefixed.group(1).lower()]
        try:
            return int(prefixed.group(2), base)
        except ValueError:
            return None
    if text in ("Infinity", "+Infinity", "-Infinity"):
        return -math.inf if text.startswith("-") else math.inf
    if not _JS_DECIMAL.match(text):
        return None
    number = float(text)
    return int(number) if number.is_integer() else number


def js_string(value: Any) -> str:
    """JavaScript's ``String(value)`` for the scalar and list values front matter holds."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return str(int(value)) if value.is_integer() and abs(value) < 1e21 else repr(value)
    if isinstance(value, list):
        return ",".join("" if item is None else js_string(item) for item in value)
    if isinstance(value, dict):
        return "[object Object]"
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    return str(value)


def _simple_value(raw: str) -> Any:
    if raw == "true":
        return True
    if raw == "false":
        return False
    if raw == "null":
        return None
    if raw == "":
        return ""
    if len(raw) >= 2 and raw.startswith('"') and raw.endswith('"'):
        return raw[1:-1].replace('\\"', '"').replace("\\\\", "\\")
    number = js_number(raw)
    if number is not None and math.isfinite(number):
        return number
    return raw


def _parse_simple(text: str) -> dict[str, Any]:
    """Line by line, as the reference's ``parseSimple`` does."""
    lines = [ln for ln in text.split("\n") if ln.strip() and not ln.strip().startswith("#")]
    result: dict[str, Any] = {}
    items: list[Any] = []
    key, in_list = "", False
    obj: dict[str, Any] = {}
    obj_key, in_obj = "", False
    for index, line in enumerate(lines):
        if line.startswith("  - "):
            if not in_list:
                in_list, items = True, []
            items.append(_simple_value(line[4:].strip()))
            continue
        if in_list:
            result[key] = items
            in_list, items, key = False, [], ""
        if line.startswith("  ") and in_obj:
            sub_key, _, rest = line.strip().partition(":")
            obj[sub_key.strip()] = _simple_value(rest.strip())
            continue
        if in_obj:
            result[obj_key] = obj
            in_obj, obj, obj_key = False, {}, ""
        if ":" not in line:
            continue
        head, _, rest = line.partition(":")
        value = rest.strip()
        if value:
            result[head.strip()] = _simple_value(value)
            continue
        key = head.strip()
        following = lines[index + 1] if index + 1 < len(lines) else None
        if following is not None and following.startswith("  - "):
            continue
        if following is not None and following.startswith("  "):
            in_obj, obj_key, obj, key = True, key, {}, ""
    if in_list:
        result[key] = items
    if in_obj:
        result[obj_key] = obj
    return result
