"""Editing one entry of a top-level map in a ``settings.json``, keeping the rest of the text.

:func:`set_entry` and :func:`remove_entry` change ``<section>.<name>`` (e.g. ``mcpServers.github``)
by splicing text: everything else — comments, key order, blank lines, other values — stays as
written. New text follows the file's indentation unit (spaces or a tab, from its first key) and
its line endings. Comments *inside* a replaced or removed entry go with it; a comment on a line of
its own above a removed entry stays. Every edit is checked by parsing the result: when it does not
hold exactly the intended data, :class:`SettingsEditError` is raised and nothing should be written.

:func:`write_settings_text` writes the result atomically (creating the parent directory).
"""

from __future__ import annotations

import copy
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qwen_tools.config.settings import SettingsError, _parse_jsonc, _strip_json_comments
from qwen_tools.fs.atomic import write_bytes_atomic

__all__ = [
    "SettingsEditError",
    "read_section",
    "remove_entry",
    "set_entry",
    "write_settings_text",
]

_WS = " \t\r\n"
_DECODER = json.JSONDecoder()


class SettingsEditError(Exception):
    """The edit cannot be made (the section is not an object, or the result would be wrong)."""


@dataclass
class _Member:
    key: str
    start: int
    value_start: int
    value_end: int
    comma: int | None = None


@dataclass
class _Object:
    open: int
    close: int
    members: list[_Member]

    def last(self, key: str) -> int | None:
        """Index of the last member named ``key`` (the one JSON parsers keep)."""
        found = [i for i, member in enumerate(self.members) if member.key == key]
        return found[-1] if found else None


def _skip(clean: str, i: int) -> int:
    while i < len(clean) and clean[i] in _WS:
        i += 1
    return i


def _expect(clean: str, i: int, char: str) -> None:
    if i >= len(clean) or clean[i] != char:
        raise SettingsEditError(f"unexpected text at offset {i} (expected {char!r})")


def _object_at(clean: str, open_: int) -> _Object:
    """The members of the object whose ``{`` is at ``open_`` (``clean`` has no comments)."""
    _expect(clean, open_, "{")
    members: list[_Member] = []
    i = _skip(clean, open_ + 1)
    while i < len(clean) and clean[i] != "}":
        key, after = _DECODER.raw_decode(clean, i)
        colon = _skip(clean, after)
        _expect(clean, colon, ":")
        value_start = _skip(clean, colon + 1)
        _, value_end = _DECODER.raw_decode(clean, value_start)
        member = _Member(str(key), i, value_start, value_end)
        members.append(member)
        i = _skip(clean, value_end)
        if i < len(clean) and clean[i] == ",":
            member.comma = i
            i = _skip(clean, i + 1)
    _expect(clean, i, "}")
    return _Object(open_, i, members)


class _Doc:
    """One settings text: the original, a comment-free copy with the same offsets, its style."""

    def __init__(self, text: str) -> None:
        self.bom = "\ufeff" if text.startswith("\ufeff") else ""
        self.text = text[len(self.bom) :]
        self.clean = _strip_json_comments(self.text)
        self.nl = "\r\n" if "\r\n" in self.text else "\n"
        self.root: _Object | None = None
        if self.text.strip(_WS):
            self.root = _object_at(self.clean, _skip(self.clean, 0))
        self.unit = self._indent_unit()

    def _indent_unit(self) -> str:
        if self.root is not None and self.root.members:
            indent = self.indent_before(self.root.members[0].start)
            if indent:
                return "\t" if "\t" in indent else indent
        return "  "

    def line_start(self, pos: int) -> int:
        return self.text.rfind("\n", 0, pos) + 1

    def indent_before(self, pos: int) -> str | None:
        """The text between the line start and ``pos`` when it is only blanks, else ``None``."""
        prefix = self.text[self.line_start(pos) : pos]
        return prefix if not prefix.strip(" \t") else None

    def line_indent(self, pos: int) -> str:
        line = self.text[self.line_start(pos) : pos]
        return line[: len(line) - len(line.lstrip(" \t"))]

    def dump(self, value: Any, indent: str) -> str:
        text = json.dumps(value, indent=self.unit, ensure_ascii=False)
        return text.replace("\n", self.nl + indent)

    def section(self, name: str) -> tuple[_Member | None, Any]:
        """The (last) top-level member ``name`` and its value."""
        if self.root is None:
            return None, None
        index = self.root.last(name)
        if index is None:
            return None, None
        member = self.root.members[index]
        return member, json.loads(self.clean[member.value_start : member.value_end])

    def render(self, edits: list[tuple[int, int, str]]) -> str:
        text = self.text
        # From the end backwards; of two edits at one offset, the one listed first comes first.
        ordered = sorted(enumerate(edits), key=lambda item: (item[1][0], item[0]), reverse=True)
        for _, (start, end, replacement) in ordered:
            text = text[:start] + replacement + text[end:]
        return self.bom + text


def _insert(doc: _Doc, obj: _Object, key: str, value: Any) -> list[tuple[int, int, str]]:
    """The edits adding ``key: value`` as the last member of ``obj``."""
    base = doc.line_indent(obj.open)
    first = doc.indent_before(obj.members[0].start) if obj.members else None
    indent = first if first else base + doc.unit
    member = f"{json.dumps(key, ensure_ascii=False)}: {doc.dump(value, indent)}"
    edits: list[tuple[int, int, str]] = []
    if obj.members and obj.members[-1].comma is None:
        edits.append((obj.members[-1].value_end, obj.members[-1].value_end, ","))
    interior = doc.text[obj.open + 1 : obj.close]
    if not obj.members and not interior.strip(_WS):
        edits.append((obj.open + 1, obj.close, f"{doc.nl}{indent}{member}{doc.nl}{base}"))
    elif doc.indent_before(obj.close) is not None:
        at = doc.line_start(obj.close)
        edits.append((at, at, f"{indent}{member}{doc.nl}"))
    else:
        edits.append((obj.close, obj.close, f"{doc.nl}{indent}{member}{doc.nl}{base}"))
    return edits


def _expected(text: str) -> dict[str, Any]:
    doc_text = text[1:] if text.startswith("\ufeff") else text
    if not doc_text.strip(_WS):
        return {}
    data = json.loads(_strip_json_comments(doc_text))
    return data if isinstance(data, dict) else {}


def _checked(result: str, expected: dict[str, Any], path: Path | None) -> str:
    try:
        actual = _parse_jsonc(result, path or Path("settings.json"))
    except SettingsError as exc:
        raise SettingsEditError(f"the edited file would not be valid JSON: {exc}") from None
    if actual != expected:
        raise SettingsEditError("the edited file would not hold the intended settings")
    return result


def _validate(text: str, path: Path | None) -> None:
    """Raise :class:`SettingsError` for a text that is not a settings object (empty is fine)."""
    body = text[1:] if text.startswith("\ufeff") else text
    if body.strip(_WS):
        _parse_jsonc(text, path or Path("settings.json"))


def read_section(text: str, section: str, *, path: Path | None = None) -> Any:
    """The value of the top-level ``section`` of a settings text (``None`` when absent).

    Raises :class:`SettingsError` when ``text`` is not a valid settings file.
    """
    _validate(text, path)
    return _expected(text).get(section)


def set_entry(text: str, section: str, name: str, value: Any, *, path: Path | None = None) -> str:
    """``text`` with ``<section>.<name>`` set to ``value`` (added, or its value replaced).

    Raises :class:`SettingsError` when ``text`` is not a valid settings file and
    :class:`SettingsEditError` when ``section`` holds something other than an object or null.
    """
    _validate(text, path)
    expected = copy.deepcopy(_expected(text))
    current = expected.get(section)
    if current is not None and not isinstance(current, dict):
        raise SettingsEditError(f'"{section}" is not an object')
    expected[section] = {**(current or {}), name: value}
    doc = _Doc(text)
    if doc.root is None:
        entry = {section: {name: value}}
        return _checked(doc.bom + doc.dump(entry, "") + doc.nl, expected, path)
    member, data = doc.section(section)
    if member is None:
        return _checked(doc.render(_insert(doc, doc.root, section, {name: value})), expected, path)
    if data is None:
        replacement = doc.dump({name: value}, doc.line_indent(member.start))
        edit = (member.value_start, member.value_end, replacement)
        return _checked(doc.render([edit]), expected, path)
    obj = _object_at(doc.clean, member.value_start)
    index = obj.last(name)
    if index is None:
        return _checked(doc.render(_insert(doc, obj, name, value)), expected, path)
    entry_member = obj.members[index]
    replacement = doc.dump(value, doc.line_indent(entry_member.start))
    edit = (entry_member.value_start, entry_member.value_end, replacement)
    return _checked(doc.render([edit]), expected, path)


def _delete(doc: _Doc, obj: _Object, index: int) -> str:
    member = obj.members[index]
    previous = obj.members[index - 1].comma if index > 0 else None
    if doc.indent_before(member.start) is not None:
        # The entry starts its line: remove its lines, with a comment that ends the last one.
        start = doc.line_start(member.start)
        end = member.value_end if member.comma is None else member.comma + 1
        eol = doc.clean.find("\n", end)
        if eol != -1 and not doc.clean[end:eol].strip(_WS):
            end = eol + 1
        edits = [(start, end, "")]
        if member.comma is None and previous is not None:
            edits.append((previous, previous + 1, ""))
    elif member.comma is not None:
        # Inline, before another entry: the entry, its comma and the blanks after it.
        end = member.comma + 1
        while end < len(doc.text) and doc.text[end] in " \t":
            end += 1
        edits = [(member.start, end, "")]
    elif previous is not None:
        # Inline and last: from the previous entry's comma.
        edits = [(previous, member.value_end, "")]
    else:
        edits = [(member.start, member.value_end, "")]
    if len(obj.members) == 1:
        first, last, _ = edits[0]
        rest = doc.text[obj.open + 1 : first] + doc.text[last : obj.close]
        if not rest.strip(_WS):  # nothing else inside, not even a comment: "{}"
            return doc.render([(obj.open + 1, obj.close, "")])
    return doc.render(edits)


def remove_entry(
    text: str, section: str, name: str, *, path: Path | None = None
) -> tuple[str, bool]:
    """``text`` without ``<section>.<name>`` (every occurrence), and whether it was there.

    Raises :class:`SettingsError` when ``text`` is not a valid settings file.
    """
    _validate(text, path)
    expected = copy.deepcopy(_expected(text))
    current = expected.get(section)
    if not isinstance(current, dict) or name not in current:
        return text, False
    del current[name]
    while True:
        doc = _Doc(text)
        member, data = doc.section(section)
        if member is None or not isinstance(data, dict):
            break
        obj = _object_at(doc.clean, member.value_start)
        index = obj.last(name)
        if index is None:
            break
        text = _delete(doc, obj, index)
    return _checked(text, expected, path), True


def write_settings_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically, creating its directory; raises ``OSError``."""
    os.makedirs(path.parent, exist_ok=True)
    write_bytes_atomic(path, text.encode("utf-8"))
