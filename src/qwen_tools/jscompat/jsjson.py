"""``JSON.stringify`` as JavaScript writes it (compact), for texts the model must see unchanged.

Differences from ``json.dumps(..., separators=(",", ":"), ensure_ascii=False)`` that matter:
numbers (``1.0`` is ``1``, ``1e-7`` is ``1e-7``, NaN and infinities are ``null``) and lone
surrogates (escaped as ``\\udxxx`` instead of being written raw).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _escape_surrogate(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def js_string(text: str) -> str:
    """A JSON string literal as ``JSON.stringify`` writes it."""
    quoted = json.dumps(text, ensure_ascii=False)
    return _LONE_SURROGATE.sub(_escape_surrogate, quoted)


def js_number(value: float) -> str:
    """``Number.prototype.toString()`` of a float (shortest round-trip digits)."""
    if math.isnan(value) or math.isinf(value):
        return "null"
    if value == 0:
        return "0"
    if value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    sign = "-" if value < 0 else ""
    mantissa, _, exponent = repr(abs(value)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    raw = whole + fraction
    digits = raw.lstrip("0")
    # value = 0.<digits> × 10^point
    point = len(whole) + (int(exponent) if exponent else 0) - (len(raw) - len(digits))
    digits = digits.rstrip("0") or "0"
    count = len(digits)
    if count <= point <= 21:
        text = digits + "0" * (point - count)
    elif 0 < point <= 21:
        text = f"{digits[:point]}.{digits[point:]}"
    elif -6 < point <= 0:
        text = "0." + "0" * -point + digits
    else:
        power = point - 1
        head = digits[0] + ("." + digits[1:] if count > 1 else "")
        text = f"{head}e{'+' if power >= 0 else '-'}{abs(power)}"
    return sign + text


def js_stringify(value: Any) -> str:
    """Compact ``JSON.stringify(value)``; unknown objects are written as their ``str()``."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return js_number(value)
    if isinstance(value, str):
        return js_string(value)
    if isinstance(value, Mapping):
        items = (f"{js_string(str(key))}:{js_stringify(item)}" for key, item in value.items())
        return "{" + ",".join(items) + "}"
    if isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
        return "[" + ",".join(js_stringify(item) for item in value) + "]"
    return js_string(str(value))
