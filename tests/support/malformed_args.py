"""A deterministic corpus of malformed tool-call arguments for every built-in tool.

Each case starts from arguments the tool accepts (paths inside the test workspace) and spoils
one slot: a lone surrogate in a string, a number JSON can write but a tool cannot use (``1e400``,
a 5,000-digit integer, NaN), nesting far deeper than any tool needs, a value of the wrong shape,
or arguments that are not an object at all. Every case must end as a result or a clear error.

``json_text`` writes a case as the JSON a model or a batch file would send: lone surrogates as
``\\udxxx`` escapes, big integers as their digits, infinities and NaN as ``1e400``/``NaN``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEEP_LEVELS = (150, 600, 1200, 5000)
"""Nesting depths tried (each well past the limit; 600 used to break validation, 1200 the
JSON parser, 5000 anything recursive)."""

BIG_INT = 10**5000
"""Digits beyond Python's int-to-str conversion limit (4,300)."""


@dataclass(frozen=True)
class Deep:
    """``levels`` nested lists around ``leaf`` (built without recursion)."""

    levels: int
    leaf: Any = 1

    def value(self) -> Any:
        value: Any = self.leaf
        for _ in range(self.levels):
            value = [value]
        return value

    def text(self) -> str:
        return "[" * self.levels + json.dumps(self.leaf) + "]" * self.levels


@dataclass(frozen=True)
class Case:
    """One call: a label for failure messages, the tool and the (malformed) arguments."""

    label: str
    tool: str
    args: Any
    deep_key: str | None = None
    """The parameter holding nesting past the limit (the depth error names it)."""

    def value(self) -> Any:
        """The arguments as Python data (what a library caller would pass)."""
        return _materialise(self.args)

    def line(self) -> str:
        """A batch line: ``{"name": ..., "args": ...}`` as JSON text."""
        return '{"name":' + json.dumps(self.tool) + ',"args":' + json_text(self.args) + "}"


STRING_ATTACKS = {
    "lone high surrogate": "\ud800",
    "lone low surrogate": "x\udfff y",
    "surrogateescape byte": "caf\udce9",
    "half an emoji": "a\ud83d",
    "reversed pair": "\ude00\ud83d",
}
NUMBER_ATTACKS: dict[str, Any] = {
    "1e400": math.inf,
    "-1e400": -math.inf,
    "5000 digits": BIG_INT,
    "NaN": math.nan,
    "2**64": 2**64,
}
SHAPE_ATTACKS: dict[str, Any] = {
    "null": None,
    "list": [1, "two"],
    "object": {"\ud800": "\udc00"},
    "true": True,
}
NOT_OBJECTS: dict[str, Any] = {
    "args list": ["a"],
    "args string": "\ud800",
    "args number": BIG_INT,
    "args null": None,
}


def base_args(ws: Path) -> dict[str, dict[str, Any]]:
    """Arguments each built-in tool accepts in ``ws`` (which holds ``notes.txt``)."""
    notes = str(ws / "notes.txt")
    return {
        "read_file": {"file_path": notes, "offset": 0, "limit": 2},
        "write_file": {"file_path": str(ws / "out.txt"), "content": "text\n"},
        "edit": {"file_path": notes, "old_string": "line 1", "new_string": "line one"},
        "glob": {"pattern": "*.txt", "path": str(ws)},
        "grep_search": {"pattern": "line", "path": str(ws), "glob": "*.txt", "limit": 5},
        "list_directory": {"path": str(ws), "ignore": ["*.log"]},
        "read_many_files": {"paths": ["*.txt"], "exclude": ["*.log"]},
        "save_memory": {"fact": "the sky is blue", "scope": "project"},
        "run_shell_command": {"command": "echo hi", "description": "say hi", "timeout": 10000},
        "todo_write": {"todos": [{"id": "1", "content": "do it", "status": "pending"}]},
        "web_fetch": {"url": "http://127.0.0.1:9/page", "prompt": "summarise"},
        "web_search": {"query": "weather"},
        "task": {"description": "look", "prompt": "look around", "subagent_type": "nobody"},
        "task_stop": {"task_id": "task_1"},
        "enter_plan_mode": {"userRequested": False},
        "exit_plan_mode": {"plan": "1. do it"},
    }


def _slots(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """Every (path, leaf) of ``value``; arrays and objects are leaves too."""
    if path:
        yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _slots(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _slots(item, (*path, index))


def _replace(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {k: _replace(v, rest, new) if k == head else v for k, v in value.items()}
    return [_replace(v, rest, new) if i == head else v for i, v in enumerate(value)]


def cases(ws: Path, tools: list[str]) -> list[Case]:
    """The corpus for the named tools (tools without known base args start from ``{}``)."""
    known = base_args(ws)
    found: list[Case] = []
    for tool in tools:
        base = known.get(tool, {})
        for path, leaf in list(_slots(base)):
            where = "/".join(str(p) for p in path)
            attacks: dict[str, Any] = {}
            if isinstance(leaf, str):
                attacks.update(STRING_ATTACKS)
                if leaf.startswith(str(ws)):
                    attacks["path with surrogate"] = leaf + "\ud800"
                    attacks["path with surrogateescape"] = str(ws / "caf\udce9.txt")
            elif isinstance(leaf, int | float) and not isinstance(leaf, bool):
                attacks.update(NUMBER_ATTACKS)
            attacks.update(SHAPE_ATTACKS)
            for levels in DEEP_LEVELS:
                attacks[f"{levels} levels"] = Deep(levels)
            for label, attack in attacks.items():
                deep_key = str(path[0]) if isinstance(attack, Deep) else None
                spoilt = _replace(base, path, attack)
                found.append(Case(f"{tool} {where}: {label}", tool, spoilt, deep_key))
        found.append(Case(f"{tool}: surrogate key", tool, {**base, "\ud800key": 1}))
        found.append(Case(f"{tool}: deep extra key", tool, {**base, "extra": Deep(5000)}, "extra"))
        for label, attack in NOT_OBJECTS.items():
            found.append(Case(f"{tool}: {label}", tool, attack))
    return found


def _materialise(value: Any) -> Any:
    if isinstance(value, Deep):
        return value.value()
    if isinstance(value, dict):
        return {k: _materialise(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_materialise(v) for v in value]
    return value


def json_text(value: Any) -> str:
    """JSON text of a case's arguments, written as a model could write it (see module doc)."""
    if isinstance(value, Deep):
        return value.text()
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, int):
        return str(value) if abs(value) < 10**4000 else "1" + "0" * 5000
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "1e400" if value > 0 else "-1e400"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # ensure_ascii: lone surrogates become \udxxx escapes
    if isinstance(value, dict):
        items = (json.dumps(k) + ":" + json_text(v) for k, v in value.items())
        return "{" + ",".join(items) + "}"
    if isinstance(value, list):
        return "[" + ",".join(json_text(v) for v in value) + "]"
    raise TypeError(f"not JSON: {value!r}")
