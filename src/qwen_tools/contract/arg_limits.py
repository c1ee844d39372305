"""What tool-call arguments may hold, settled before validation, and their JSON text read safely.

Arguments come from a model, a command line, a batch file or an MCP client, and JSON lets them
carry what no tool can use. :func:`admit_arguments` makes one walk over them, with an explicit
stack (so no nesting can exhaust the Python stack), and gives the tool JavaScript's view of the
data, as Qwen Code 0.24.4 has it:

* a lone surrogate in a string (or a key) becomes U+FFFD: Node writes exactly that wherever the
  string goes (file contents, paths, process arguments, URLs), so read_file, write_file, the shell
  and the rest all see what they would see under Node (see :mod:`.well_formed`);
* an integer beyond the range of a double becomes ±Infinity, as ``JSON.parse`` reads it, so no
  tool meets a 5,000-digit integer (Python refuses to print one); schemas then refuse non-finite
  numbers, as AJV's default ``strictNumbers`` does (``params/offset must be integer,null``);
* nesting deeper than :data:`MAX_DEPTH` levels (the params object is level 1) is refused with
  ``params/<name> must NOT be nested more than 100 levels deep``. No tool needs more than a few
  levels; 100 leaves room for MCP tools with nested schemas while keeping validation (recursive
  in ``jsonschema``) and the MCP SDK's JSON parser (about 200 levels with its envelope) safe.

:func:`loads_arguments` reads arguments from JSON text as ``JSON.parse`` would: ``NaN`` and
``Infinity`` are not JSON, integers of any length are numbers (never Python's int-string
``ValueError``), and text nested past what the parser can follow is cut at ``MAX_DEPTH + 1``
levels by :func:`prune_depth` first, so the call still gets the depth error that names the
parameter.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

from qwen_tools.contract.well_formed import to_well_formed

__all__ = [
    "MAX_DEPTH",
    "NOT_AN_OBJECT",
    "ArgumentsTextError",
    "admit_arguments",
    "admitted_copy",
    "depth_error",
    "loads_arguments",
    "prune_depth",
]

MAX_DEPTH = 100
"""Deepest nesting of containers in a call's params, the params object being level 1."""

NOT_AN_OBJECT = "Value of params must be an object"
"""The reference's text for params that are not an object (also when they nest too deeply)."""

_FLOAT_BITS = 1024
"""Integers shorter than this many bits are within the range of a double."""


class ArgumentsTextError(ValueError):
    """JSON text of arguments that is not JSON; ``str()`` is the reason (with its position)."""


def depth_error(key: str | None) -> str:
    """The invalid-params text for nesting past the limit under ``key`` (AJV's path style)."""
    where = "params" if key is None else "params/" + key.replace("~", "~0").replace("/", "~1")
    return f"{where} must NOT be nested more than {MAX_DEPTH} levels deep"


def _number(value: int | float) -> tuple[int | float, bool]:
    """The number a tool gets, and whether something about it changed or is non-finite."""
    if isinstance(value, float):
        return value, not math.isfinite(value)
    if value.bit_length() < _FLOAT_BITS:
        return value, False
    try:
        float(value)
    except OverflowError:
        return (math.inf if value > 0 else -math.inf), True
    return value, False


class _Admission:
    """The state of one walk: the copy being built, and what was found on the way."""

    __slots__ = ("changed", "non_finite")

    def __init__(self) -> None:
        self.changed = False
        self.non_finite = False

    def scalar(self, value: Any) -> Any:
        if isinstance(value, str):
            fixed = to_well_formed(value)
            if fixed is not value:
                self.changed = True
            return fixed
        if isinstance(value, int | float) and not isinstance(value, bool):
            number, odd = _number(value)
            if odd:
                self.non_finite = True
                self.changed = self.changed or number is not value
            return number
        return value

    def key(self, key: Any) -> Any:
        return self.scalar(key) if isinstance(key, str) else key


def _empty(container: Any) -> Any:
    return {} if isinstance(container, Mapping) else []


def _is_container(value: Any) -> bool:
    return isinstance(value, Mapping | list | tuple)


def _walk(params: Any) -> tuple[Any, str | None, _Admission]:
    """Copy ``params`` for a tool; the copy, the error (if any) and what the walk found."""
    state = _Admission()
    if not _is_container(params):
        return state.scalar(params), None, state
    if type(params) is dict:  # most calls: an object of scalars, one level, no stack needed
        flat = {}
        for raw_key, item in params.items():
            if _is_container(item):
                break
            flat[state.key(raw_key)] = state.scalar(item)
        else:
            return flat, None, state
        state = _Admission()
    root = _empty(params)
    # (source, target, depth of source, name of the top-level param it sits under)
    stack: list[tuple[Any, Any, int, str | None]] = [(params, root, 1, None)]
    while stack:
        source, target, depth, top = stack.pop()
        items = source.items() if isinstance(source, Mapping) else enumerate(source)
        pending: list[tuple[Any, Any, int, str | None]] = []
        for raw_key, item in items:
            key = state.key(raw_key) if isinstance(source, Mapping) else raw_key
            name = top if top is not None or depth > 1 else str(key)
            if _is_container(item):
                if depth + 1 > MAX_DEPTH:
                    if not isinstance(params, Mapping):
                        return None, NOT_AN_OBJECT, state
                    return None, depth_error(name), state
                copy = _empty(item)
                pending.append((item, copy, depth + 1, name))
                item = copy
            else:
                item = state.scalar(item)
            if isinstance(target, dict):
                target[key] = item
            else:
                target.append(item)
        stack.extend(reversed(pending))  # depth first, in order: the first deep param is named
    return root, None, state


def admit_arguments(params: Any) -> tuple[Any, str | None, bool]:
    """``(params for the tool, error, non_finite)``; the rules are in the module docstring.

    The params come back unchanged (the same object) when nothing in them needed a change;
    ``non_finite`` says whether they hold a NaN or an infinity.
    """
    copy, error, state = _walk(params)
    if error is not None:
        return params, error, state.non_finite
    return (copy if state.changed else params), None, state.non_finite


def admitted_copy(params: Any) -> tuple[Any, str | None, bool]:
    """Like :func:`admit_arguments`, but always a fresh copy (validation mutates what it gets)."""
    copy, error, state = _walk(params)
    return copy, error, state.non_finite


# -- JSON text ----------------------------------------------------------------------------------

_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[{]+|[\]}]+|[^"\[\]{}]+', re.DOTALL)


def prune_depth(text: str, limit: int) -> str:
    """JSON ``text`` cut to ``limit`` levels: the containers at level ``limit`` are emptied.

    Linear and without recursion (runs of brackets are taken a run at a time), for text nested
    too deeply to parse. Text that is not JSON stays not JSON.
    """
    out: list[str] = []
    depth = 0  # containers open before the token
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token[0] in "[{":
            kept = max(0, min(len(token), limit - depth))
            if kept:
                out.append(token[:kept])
            depth += len(token)
        elif token[0] in "]}":
            kept = max(0, min(depth, limit) - max(depth - len(token), 0))
            if kept:
                out.append(token[len(token) - kept :])
            depth -= len(token)
        elif depth < limit:
            out.append(token)
    return "".join(out)


def _reject_constant(name: str) -> Any:
    raise ArgumentsTextError(f"{name} is not valid JSON")


def _js_int(digits: str) -> int | float:
    """An integer literal as a number; beyond any double it is Infinity (never a ValueError)."""
    if len(digits) > 320:
        return float(digits)
    return int(digits)


def _loads(text: str, constants: bool) -> Any:
    if constants:
        return json.loads(text, parse_int=_js_int)
    return json.loads(text, parse_constant=_reject_constant, parse_int=_js_int)


def loads_arguments(text: str, envelope: int = 0, *, constants: bool = False) -> Any:
    """Parse JSON ``text`` as ``JSON.parse`` would; raises :class:`ArgumentsTextError`.

    Text nested too deeply for the parser is cut to ``MAX_DEPTH + 1`` levels of arguments and
    parsed again, so its arguments are still refused by :func:`admit_arguments` with the depth
    error. ``envelope`` is how many levels hold the arguments (1 for ``{"args": {...}}``).
    ``constants=True`` reads ``NaN`` and ``Infinity`` as numbers (the MCP SDK's parser does).
    """
    try:
        try:
            return _loads(text, constants)
        except RecursionError:
            return _loads(prune_depth(text, envelope + MAX_DEPTH + 1), constants)
    except json.JSONDecodeError as exc:
        raise ArgumentsTextError(f"{exc.msg} (line {exc.lineno} column {exc.colno})") from None
    except RecursionError:
        raise ArgumentsTextError("nested too deeply to read") from None
    except ArgumentsTextError:
        raise
    except ValueError as exc:
        raise ArgumentsTextError(str(exc)) from None
