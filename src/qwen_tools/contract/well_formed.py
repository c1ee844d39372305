"""Well-formed Unicode: what becomes of lone surrogates, in arguments and in everything we print.

A Python ``str`` may hold lone surrogates (U+D800–U+DFFF): ``json.loads`` makes them from
``"\\ud800"`` escapes, and the OS layer makes ``\\udc80``–``\\udcff`` from file-name bytes that are
not UTF-8 (``surrogateescape``). No UTF-8 encoder accepts them, so a single one used to crash
whatever wrote it. JavaScript strings hold them too, and Node replaces each one with U+FFFD
wherever a string leaves the process (files, paths, process arguments, URLs, stdout), which is
:func:`to_well_formed` (``String.prototype.toWellFormed``; a high and a low surrogate side by side
are first joined into their character, as they are one character in JavaScript).

Text meant for a JSON reader keeps the information instead: :func:`escape_surrogates` writes each
lone surrogate of JSON text as its ``\\udxxx`` escape, as ``JSON.stringify`` does.
:func:`install_stream_fallback` makes a text stream write such escapes where it would have raised.
"""

from __future__ import annotations

import contextlib
import io
import re
from typing import Any

__all__ = [
    "escape_surrogates",
    "has_surrogates",
    "install_stream_fallback",
    "to_well_formed",
    "well_formed_tree",
]

_SURROGATE = re.compile("[\ud800-\udfff]")


def has_surrogates(text: str) -> bool:
    """Whether ``text`` holds any surrogate code point (it cannot be encoded as UTF-8 then)."""
    return _SURROGATE.search(text) is not None


def to_well_formed(text: str) -> str:
    """``text`` with pairs joined and every lone surrogate replaced by U+FFFD (as Node writes it)."""
    if _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def escape_surrogates(json_text: str) -> str:
    """JSON text with each surrogate written as its escape (``JSON.stringify``'s well-formed output).

    Only valid for JSON text, where a surrogate can only stand inside a string literal.
    """
    if _SURROGATE.search(json_text) is None:
        return json_text
    return _SURROGATE.sub(_escape, json_text)


def well_formed_tree(value: Any) -> Any:
    """JSON-like data with every string (keys included) made well-formed; no recursion.

    Returns ``value`` itself when nothing needed a change, else a copy (dicts and lists rebuilt).
    """
    if isinstance(value, str):
        return to_well_formed(value)
    if not isinstance(value, dict | list) or not _any_surrogate(value):
        return value
    root: Any = {} if isinstance(value, dict) else []
    stack: list[tuple[Any, Any]] = [(value, root)]
    while stack:
        source, target = stack.pop()
        items = source.items() if isinstance(source, dict) else enumerate(source)
        for key, item in items:
            if isinstance(item, dict | list):
                copy: Any = {} if isinstance(item, dict) else []
                stack.append((item, copy))
                item = copy
            elif isinstance(item, str):
                item = to_well_formed(item)
            if isinstance(target, dict):
                target[to_well_formed(key) if isinstance(key, str) else key] = item
            else:
                target.append(item)
    return root


def _any_surrogate(value: Any) -> bool:
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item) is not None:
                return True
        elif isinstance(item, dict):
            stack.extend(k for k in item if isinstance(k, str))
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def install_stream_fallback(stream: Any) -> None:
    """Make a text stream write what it cannot encode as ``\\udxxx`` escapes (never raise).

    In text that is a readable mark of the odd character; in JSON text, where a lone surrogate
    can only stand inside a string literal, it is exactly the JSON escape, so ``--json`` output
    stays valid JSON that reads back to the same string. ``surrogateescape`` (Python's choice
    under a C locale) is replaced too: it writes bytes that are not UTF-8, or raises on the
    other surrogates. Streams that cannot be reconfigured (test captures, custom objects) are
    left as they are.
    """
    if isinstance(stream, io.TextIOWrapper) and stream.errors in ("strict", "surrogateescape"):
        with contextlib.suppress(ValueError, io.UnsupportedOperation):
            stream.reconfigure(errors="backslashreplace")
