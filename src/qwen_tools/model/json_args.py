"""Tool-call arguments from the model's JSON text, repaired the way Qwen Code 0.24.4 repairs them.

The reference (``safeJsonParse`` and the streaming tool-call parser) tries, in order: plain
``JSON.parse``; for text cut off inside a string, the text with a closing quote; then the
``jsonrepair`` library; anything that is still not an object becomes ``{}``. We follow the
same order. A prefix of valid JSON (the usual case: output cut off by the token limit) is
completed here the way ``jsonrepair`` completes it (a dangling key gets ``null``, a trailing
comma is dropped, open strings and brackets are closed); other damage (single quotes,
unquoted keys, comments, Python literals, trailing commas) goes to the ``json-repair``
package. ``truncated`` reports what the reference checks to decide the output was cut
short: an open string or an unbalanced ``{``/``[`` at the end of the text.

Parsing is :func:`~qwen_tools.contract.arg_limits.loads_arguments`: integers of any length,
and text nested past the depth limit comes back cut to it, so the call is refused with the depth
error (never a ``RecursionError`` out of the completion).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from qwen_tools.contract.arg_limits import (
    MAX_DEPTH,
    ArgumentsTextError,
    loads_arguments,
    prune_depth,
)
from qwen_tools.jscompat.jsjson import js_stringify

__all__ = ["ParsedArguments", "dumps_arguments", "parse_tool_arguments"]


@dataclass(frozen=True)
class ParsedArguments:
    """The arguments object, and how it was obtained."""

    value: dict[str, Any] = field(default_factory=dict)
    truncated: bool = False
    """The text ended inside a string or with unclosed brackets."""
    repaired: bool = False
    """The text was not valid JSON as received."""


def _loads(text: str) -> Any:
    """``JSON.parse``: no NaN/Infinity, integers of any length, any depth (see ``arg_limits``)."""
    try:
        return loads_arguments(text)
    except ArgumentsTextError as exc:
        raise ValueError(str(exc)) from None


def _scan(text: str) -> tuple[int, bool]:
    """The reference's bracket depth and open-string state at the end of ``text``."""
    depth, in_string, escape = 0, False, False
    for char in text:
        if not in_string:
            if char in "{[":
                depth += 1
            elif char in "}]":
                depth -= 1
        if char == '"' and not escape:
            in_string = not in_string
        escape = char == "\\" and not escape
    return depth, in_string


# -- the public entry points ------------------------------------------------------------------


def _repair(text: str) -> Any:
    """``safeJsonParse``: the ``jsonrepair`` result, or ``{}`` when even that fails."""
    from qwen_tools.jscompat.jsonrepair import JSONRepairError, jsonrepair

    try:
        try:
            repaired = jsonrepair(text)
        except RecursionError:  # jsonrepair recurses: cut the text to the depth limit first
            repaired = jsonrepair(prune_depth(text, MAX_DEPTH + 1))
        return _loads(repaired)
    except (JSONRepairError, ValueError, RecursionError):
        return {}


def parse_tool_arguments(text: str | None) -> ParsedArguments:
    """Parse a tool call's ``arguments`` string; never raises.

    Empty text is ``{}``; a value that is not an object (array, string, number) is ``{}``.
    """
    if not text or not text.strip():
        return ParsedArguments()
    depth, in_string = _scan(text)
    truncated = depth > 0 or in_string
    try:
        value = _loads(text)
        repaired = False
    except ValueError:
        repaired = True
        value = None
        if in_string:
            try:
                value = _loads(text + '"')
            except ValueError:
                value = None
        if value is None:
            value = _repair(text)
    if not isinstance(value, dict):
        value = {}
    return ParsedArguments(value, truncated=truncated, repaired=repaired)


def dumps_arguments(args: Any) -> str:
    """Arguments re-serialised as the reference stores them in history (``JSON.stringify``)."""
    return js_stringify(args)
