"""Translate a ``grep_search`` pattern into a Python ``re`` pattern with ripgrep's meaning.

Qwen Code hands the pattern (already checked by JavaScript's ``RegExp``) to ripgrep verbatim,
so its meaning is that of Rust's ``regex`` crate as ripgrep configures it: case-insensitive,
Unicode-aware (``\\w``, ``\\d``, ``\\s``, ``\\b``, ``\\pL``), line-oriented (no match may contain a
line terminator, and ``\\A``/``\\z`` anchor at line boundaries), with nested classes, POSIX
classes and ``&&``/``--``/``~~`` set operations. :func:`compile_line_regex` reproduces that
meaning with ``re`` for the pure-Python engine.

ripgrep rejects some patterns that JavaScript accepts: look-around, back-references, unknown
escapes (``\\y``, ``\\cA``), a ``{`` that is not a repetition (``interface{}``), ``[]``… For those
the translation falls back to the JavaScript meaning (per line, ``\\d``/``\\w``/``\\b`` in ASCII,
``{`` literal when it is no quantifier), so ``grep_search`` can run them instead of failing as
0.24.4 does. A pattern that can only match a line terminator (``a\\nb``) is an error, as in
ripgrep; so is a construct ``re`` cannot express (variable-width look-behind, or a ``\\p{…}``
other than a general category in the Rust meaning).
"""

from __future__ import annotations

import functools
import re

from qwen_tools.tools.grep import unicode_sets as U
from qwen_tools.tools.grep.regex_classes import (
    ANY,
    JS_DOT,
    NATIVE_BOUNDARIES,
    NEWLINE_ERROR,
    ClassParser,
    LineRegex,
    NotRust,
    RegexUnsupported,
    ranges_expr,
    word_boundary,
)

__all__ = ["NEWLINE_ERROR", "LineRegex", "RegexUnsupported", "compile_line_regex"]

_ESCAPABLE = frozenset(chr(c) for c in range(0x80) if not chr(c).isalnum()) - {"<", ">"}

_REPETITION = re.compile(r"\{\s*([0-9]+)\s*(?:(,)\s*(?:([0-9]+)\s*)?)?\}")
_JS_INTERVAL = re.compile(r"\{([0-9]+)(?:(,)([0-9]+)?)?\}")
_INFINITY = 2**31 - 1
_HEX = re.compile(r"[0-9a-fA-F]+")
_SPECIAL_BOUNDARIES = {"start": "<", "end": ">", "start-half": "<h", "end-half": ">h"}


def _js_scan(pattern: str) -> tuple[int, bool]:
    """(number of capture groups, whether any is named), skipping escapes and classes."""
    count, named, i, in_class = 0, False, 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c == "(":
            if not pattern.startswith("?", i + 1):
                count += 1
            elif pattern.startswith("?<", i + 1) and pattern[i + 3 : i + 4] not in ("=", "!"):
                count, named = count + 1, True
        i += 1
    return count, named


class _Translator(ClassParser):
    """One pass over the pattern in the Rust meaning (``rust=True``) or the JavaScript one."""

    def __init__(self, pattern: str, *, rust: bool, native_words: bool = False) -> None:
        super().__init__(pattern)
        self.rust = rust
        self.native_words = native_words
        self.uses_words = False  # word boundaries, whose exact form is slow
        self.total_groups, self.has_named = _js_scan(pattern)
        self.groups = 0
        self.open: list[int] = []
        self.names: dict[str, int] = {}

    def translate(self) -> str:
        out = self.alternation()
        if self.i < len(self.p):  # an unmatched ")" cannot get past the JavaScript check
            raise self.fail()
        return out

    def alternation(self) -> str:
        parts = [self.sequence()]
        while self.peek() == "|":
            self.i += 1
            parts.append(self.sequence())
        return "|".join(parts)

    def sequence(self) -> str:
        out: list[str] = []
        while self.peek() not in ("", "|", ")"):
            atom = self.atom()
            quantifier = self.quantifier()
            out.append(f"(?:{atom})" if quantifier and atom in ("^", "$") else atom)
            out.append(quantifier)
        return "".join(out)

    # -- atoms ------------------------------------------------------------------------------

    def atom(self) -> str:
        c = self.p[self.i]
        self.i += 1
        if c == "(":
            return self.group()
        if c == "[":
            return self.rust_class() if self.rust else self.js_class()
        if c == ".":
            return ANY if self.rust else JS_DOT
        if c in "^$":
            return c
        if c == "\\":
            return self.escape()
        if c == "{" and self.rust:
            raise self.fail()  # "repetition operator missing expression"
        return self.literal(ord(c))

    def literal(self, code: int) -> str:
        if code == 0x0A:
            raise RegexUnsupported(NEWLINE_ERROR)
        return re.escape(chr(code))

    def group(self) -> str:
        capture = True
        if self.peek() == "?":
            after = self.p[self.i + 1 : self.i + 3]
            if after[:1] == ":":
                self.i += 2
                capture = False
            elif after[:1] in ("=", "!") or after in ("<=", "<!"):
                if self.rust:
                    raise self.fail()
                head = "(?" + after[: 2 if after[:1] == "<" else 1]
                self.i += len(head) - 1
                body = self.alternation()
                self.close_group()
                return f"(?:{head}{body}))"
            else:  # (?<name>...)
                end = self.p.index(">", self.i)
                name = self.p[self.i + 2 : end]
                if self.rust and not (
                    (name[:1].isalpha() or name[:1] == "_")
                    and all(ch.isalnum() or ch in "_.[]" for ch in name)
                ):
                    raise self.fail()
                self.i = end + 1
                self.names[name] = self.groups + 1
        if not capture or self.rust:
            body = self.alternation()
            self.close_group()
            return f"(?:{body})"
        self.groups += 1
        self.open.append(self.groups)
        body = self.alternation()
        self.open.pop()
        self.close_group()
        return f"({body})"

    def close_group(self) -> None:
        if self.peek() != ")":
            raise self.fail()
        self.i += 1

    def quantifier(self) -> str:
        c = self.peek()
        if c in ("*", "+", "?"):
            self.i += 1
            text = c
        elif c == "{":
            regex = _REPETITION if self.rust else _JS_INTERVAL
            m = regex.match(self.p, self.i)
            if m is None:
                if self.rust:
                    raise self.fail()
                return ""
            low = int(m.group(1))
            high = int(m.group(3)) if m.group(3) else (None if m.group(2) else low)
            if self.rust and max(low, high or 0) > 2**32 - 1:
                raise self.fail()
            if high is not None and high < low:
                raise self.fail()
            self.i = m.end()
            low = min(low, _INFINITY)
            high = None if high is None or high >= _INFINITY else high
            text = f"{{{low}}}" if high == low else f"{{{low},{'' if high is None else high}}}"
        else:
            return ""
        if self.peek() == "?":
            self.i += 1
            text += "?"
        return text

    # -- escapes ----------------------------------------------------------------------------

    def escape(self) -> str:
        c = self.p[self.i]
        self.i += 1
        if self.rust:
            return self.rust_escape(c)
        return self.js_escape(c)

    def rust_escape(self, c: str) -> str:
        if c in "dDsSwW" or c in "pP":
            ranges, negated = self.rust_class_escape(c)
            return ranges_expr(ranges, negated)
        if c == "b" and self.peek() == "{" and not self.peek(1).isdigit():
            end = self.p.find("}", self.i)
            kind = _SPECIAL_BOUNDARIES.get(self.p[self.i + 1 : end]) if end > 0 else None
            if kind is None:
                raise self.fail()
            self.i = end + 1
            return self.boundary(kind)
        if c in "bB<>":
            return self.boundary(c)
        if c in "Az":
            return "^" if c == "A" else "$"
        return self.literal(self.rust_char_escape(c))

    def boundary(self, kind: str) -> str:
        """A Unicode word boundary: exact, or Python's (same result where Python's ``\\w`` and
        ripgrep's agree, and much faster)."""
        self.uses_words = True
        if self.native_words:
            return NATIVE_BOUNDARIES[kind]
        return word_boundary(kind, ranges_expr(U.perl_word()))

    def rust_char_escape(self, c: str) -> int:
        """A Rust escape denoting one character (the backslash and ``c`` consumed)."""
        simple = {"a": 7, "f": 12, "t": 9, "n": 10, "r": 13, "v": 11}
        if c in simple:
            return simple[c]
        if c in "xuU":
            if self.peek() == "{":
                end = self.p.find("}", self.i)
                digits = self.p[self.i + 1 : end].strip() if end > 0 else ""
                self.i = end + 1
            else:
                width = {"x": 2, "u": 4, "U": 8}[c]
                digits = self.p[self.i : self.i + width]
                self.i += width
                if len(digits) != width:
                    raise self.fail()
            if not _HEX.fullmatch(digits) or int(digits, 16) > 0x10FFFF:
                raise self.fail()
            code = int(digits, 16)
            if 0xD800 <= code <= 0xDFFF:
                raise self.fail()
            return code
        if c in _ESCAPABLE:
            return ord(c)
        raise self.fail()

    def rust_class_escape(self, c: str) -> tuple[U.Ranges, bool]:
        """``\\d``-like and ``\\p``-like escapes as (ranges, negated)."""
        if c in "dDsSwW":
            lower = c.lower()
            table = (
                U.perl_digit()
                if lower == "d"
                else U.perl_space()
                if lower == "s"
                else U.perl_word()
            )
            return table, c.isupper()
        if self.peek() == "{":
            end = self.p.find("}", self.i)
            if end < 0:
                raise self.fail()
            name = self.p[self.i + 1 : end]
            self.i = end + 1
        else:
            name = self.peek()
            self.i += 1
            if not name or name not in "LMNPSZC":
                raise self.fail()
        negated = c == "P"
        if "!=" in name:
            name, negated = name.replace("!=", "="), not negated
        ranges = U.property_ranges(name)
        if ranges is None:
            raise RegexUnsupported(f"unsupported Unicode property: {name}")
        return ranges, negated

    def js_escape(self, c: str) -> str:
        if c in "dDwWsS":  # ASCII sets: no folding of "ſ" or the Kelvin sign into them
            return f"(?a:{ranges_expr(*self.js_class_escape(c))})"
        if c in "bB":
            return f"(?a:\\{c})"
        if c in "123456789":
            j = self.i
            while j < len(self.p) and self.p[j].isdigit():
                j += 1
            number = int(self.p[self.i - 1 : j])
            if number <= self.total_groups:
                self.i = j
                return self.backreference(number)
            if c in "89":
                return self.literal(ord(c))
        if c == "k" and self.has_named:
            end = self.p.index(">", self.i)
            name = self.p[self.i + 1 : end]
            self.i = end + 1
            return self.backreference(self.names.get(name, 0))
        return self.literal(self.js_char_escape(c, in_class=False))

    def backreference(self, number: int) -> str:
        if number == 0 or number > self.groups or number in self.open:
            return "(?:)"  # a group that has not matched yet matches the empty string
        return f"(?({number})\\{number})"  # a group that did not take part matches empty

    def js_char_escape(self, c: str, *, in_class: bool) -> int:
        """A JavaScript ``CharacterEscape`` (the backslash and ``c`` consumed)."""
        simple = {"f": 12, "n": 10, "r": 13, "t": 9, "v": 11}
        if c in simple:
            return simple[c]
        if c == "c":
            nxt = self.peek()
            if nxt.isascii() and (nxt.isalpha() or (in_class and (nxt.isdigit() or nxt == "_"))):
                self.i += 1
                return ord(nxt) & 0x1F
            self.i -= 1  # a literal backslash; the "c" is read next
            return 0x5C
        if c in "xu":
            width = 2 if c == "x" else 4
            digits = self.p[self.i : self.i + width]
            if len(digits) == width and _HEX.fullmatch(digits):
                self.i += width
                code = int(digits, 16)
                low = self.p[self.i : self.i + 6]
                if 0xD800 <= code <= 0xDBFF and re.fullmatch(r"\\u[dD][c-fC-F][0-9a-fA-F]{2}", low):
                    self.i += 6
                    code = 0x10000 + ((code - 0xD800) << 10) + (int(low[2:], 16) - 0xDC00)
                return code
            return ord(c)
        if "0" <= c <= "7":
            value = int(c)
            limit = 3 if value < 4 else 2
            while limit > 1 and "0" <= self.peek() <= "7":
                value = value * 8 + int(self.peek())
                self.i += 1
                limit -= 1
            return value
        return ord(c)

    def js_class_escape(self, c: str) -> tuple[U.Ranges, bool]:
        ascii_word = U.normalise([(48, 57), (65, 90), (95, 95), (97, 122)])
        table = {"d": U.normalise([(48, 57)]), "w": ascii_word, "s": U.js_space()}[c.lower()]
        return table, c.isupper()


def _compile(source: str) -> re.Pattern[str]:
    try:
        return re.compile(source, re.IGNORECASE | re.MULTILINE)
    except (re.error, OverflowError, RecursionError) as exc:
        raise RegexUnsupported(f"regex parse error: {exc}") from exc


@functools.lru_cache(maxsize=128)
def compile_line_regex(pattern: str) -> LineRegex:
    """The ``re`` equivalent of a (JavaScript-valid) pattern, for case-insensitive line search.

    Raises :class:`RegexUnsupported` when the pattern cannot be searched.
    """
    try:
        translator = _Translator(pattern, rust=True, native_words=True)
        fast = translator.translate()
    except (NotRust, IndexError, ValueError):
        try:
            fast = _Translator(pattern, rust=False).translate()
        except (NotRust, IndexError, ValueError) as exc:  # input the JavaScript check rejects
            raise RegexUnsupported(f"regex parse error: {pattern}") from exc
        compiled = _compile(fast)
        return LineRegex(compiled, compiled)
    compiled = _compile(fast)
    if not translator.uses_words:
        return LineRegex(compiled, compiled)
    exact = _Translator(pattern, rust=True).translate()
    return LineRegex(compiled, _compile(exact))
