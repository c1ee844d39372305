"""Repairing broken JSON text the way the ``jsonrepair`` library (v3) does.

Qwen Code 0.24.4 runs tool-call arguments that fail ``JSON.parse`` through ``jsonrepair``
(Jos de Jong's MIT-licensed library, bundled by the reference), so our repairs must produce
the same JSON. This is an independent Python implementation of its behaviour: a single pass
over the text that copies valid JSON through and fixes what it meets on the way:

* missing closing quotes, brackets and braces (the text was cut off), missing commas and
  colons, trailing commas, a dangling key (gets ``null``), leading zeros (become strings);
* single quotes, typographic quotes and backticks; unquoted keys and values (URLs kept whole);
  Python's ``True``/``False``/``None``; JavaScript's ``undefined``; comments; an ellipsis
  (``...``) in arrays and objects; string concatenation with ``+``; ``/regex/`` literals;
* control characters in strings, invalid escapes (the backslash is dropped), special spaces;
* Markdown code fences around the JSON, JSONP wrappers and MongoDB calls (``f(...)``),
  newline-delimited JSON (becomes an array), redundant closing brackets at the end.

:func:`jsonrepair` returns the repaired text or raises :class:`JSONRepairError` when the text
cannot be made into JSON (the reference's ``safeJsonParse`` then falls back to ``{}``).
"""

from __future__ import annotations

import json

from qwen_tools.jscompat.jsonrepair_scalars import (
    JSONRepairError,
    ScalarParser,
    ends_with_comma_or_newline,
    insert_before_trailing_space,
    is_name_char,
    is_name_start,
    is_special_space,
    is_value_start,
    strip_last,
)

__all__ = ["JSONRepairError", "jsonrepair"]

_WHITESPACE = frozenset(" \n\t\r")


class _Repair(ScalarParser):
    """One repair: ``pos`` walks ``text`` while ``out`` collects the repaired JSON."""

    # -- the document ---------------------------------------------------------------------

    def run(self) -> str:
        self.skip_fence(("```", "[```", "{```"))
        if not self.value():
            raise JSONRepairError("Unexpected end of json string", len(self.text))
        self.skip_fence(("```", "```]", "```}"))
        comma = self.take(",")
        if comma:
            self.space()
        if is_value_start(self.char) and ends_with_comma_or_newline(self.out):
            if not comma:
                self.out = insert_before_trailing_space(self.out, ",")
            self.ndjson()
        elif comma:
            self.out = strip_last(self.out, ",")
        while self.char in ("}", "]") and self.char:
            self.pos += 1
            self.space()
        if self.pos >= len(self.text):
            return self.out
        raise self.fail(f"Unexpected character {json.dumps(self.char)}")

    def ndjson(self) -> None:
        first = True
        while True:
            if not first and not self.take(","):
                self.out = insert_before_trailing_space(self.out, ",")
            first = False
            if not self.value():
                break
        self.out = strip_last(self.out, ",")
        self.out = f"[\n{self.out}\n]"

    # -- whitespace, comments, fences -----------------------------------------------------

    def space(self, newlines: bool = True) -> bool:
        start = self.pos
        self.whitespace(newlines)
        while self.comment():
            self.whitespace(newlines)
        return self.pos > start

    def whitespace(self, newlines: bool) -> bool:
        found = []
        while True:
            char = self.char
            if char and char in _WHITESPACE and (newlines or char != "\n"):
                found.append(char)
            elif is_special_space(char):
                found.append(" ")
            else:
                break
            self.pos += 1
        self.out += "".join(found)
        return bool(found)

    def comment(self) -> bool:
        if self.char == "/" and self.at(self.pos + 1) == "*":
            while self.pos < len(self.text) and not (
                self.char == "*" and self.at(self.pos + 1) == "/"
            ):
                self.pos += 1
            self.pos += 2
            return True
        if self.char == "/" and self.at(self.pos + 1) == "/":
            while self.pos < len(self.text) and self.char != "\n":
                self.pos += 1
            return True
        return False

    def skip_fence(self, fences: tuple[str, ...]) -> None:
        self.whitespace(True)
        for fence in fences:
            if self.text.startswith(fence, self.pos):
                self.pos += len(fence)
                if is_name_start(self.char):
                    while self.pos < len(self.text) and is_name_char(self.char):
                        self.pos += 1
                self.space()
                return

    def take(self, char: str) -> bool:
        if self.char == char:
            self.out += char
            self.pos += 1
            return True
        return False

    def skip_ellipsis(self) -> None:
        self.space()
        if self.text.startswith("...", self.pos):
            self.pos += 3
            self.space()
            self.skip(",")

    # -- values ---------------------------------------------------------------------------

    def value(self) -> bool:
        self.space()
        done = (
            self.obj()
            or self.array()
            or self.string()
            or self.number()
            or self.keyword()
            or self.unquoted(is_key=False)
            or self.regex()
        )
        self.space()
        return done

    def obj(self) -> bool:
        if self.char != "{":
            return False
        self.out += "{"
        self.pos += 1
        self.space()
        if self.skip(","):
            self.space()
        first = True
        while self.pos < len(self.text) and self.char != "}":
            if not first:
                if not self.take(","):
                    self.out = insert_before_trailing_space(self.out, ",")
                self.space()
            first = False
            self.skip_ellipsis()
            if not (self.string() or self.unquoted(is_key=True)):
                if self.char in ("}", "{", "]", "[", ""):
                    self.out = strip_last(self.out, ",")
                    break
                raise self.fail("Object key expected")
            self.space()
            colon = self.take(":")
            at_end = self.pos >= len(self.text)
            if not colon:
                if is_value_start(self.char) or at_end:
                    self.out = insert_before_trailing_space(self.out, ":")
                else:
                    raise self.fail("Colon expected")
            if not self.value():
                if colon or at_end:
                    self.out += "null"
                else:
                    raise self.fail("Colon expected")
        if self.char == "}":
            self.out += "}"
            self.pos += 1
        else:
            self.out = insert_before_trailing_space(self.out, "}")
        return True

    def array(self) -> bool:
        if self.char != "[":
            return False
        self.out += "["
        self.pos += 1
        self.space()
        if self.skip(","):
            self.space()
        first = True
        while self.pos < len(self.text) and self.char != "]":
            if not first and not self.take(","):
                self.out = insert_before_trailing_space(self.out, ",")
            first = False
            self.skip_ellipsis()
            if not self.value():
                self.out = strip_last(self.out, ",")
                break
        if self.char == "]":
            self.out += "]"
            self.pos += 1
        else:
            self.out = insert_before_trailing_space(self.out, "]")
        return True


def jsonrepair(text: str) -> str:
    """The repaired JSON text; raises :class:`JSONRepairError` when ``text`` cannot be repaired."""
    return _Repair(text).run()
