"""Does ``new RegExp(pattern)`` accept a pattern, and if not, what does V8 say?

Qwen Code checks ``grep_search`` patterns by compiling them with JavaScript's ``RegExp`` (no
flags) and reports the engine's message verbatim, e.g.
``Invalid regular expression: /[[/: Unterminated character class``. This module re-implements
the syntax check of V8's regular-expression parser for that case: no ``u``/``v`` flag, so the
web-compatibility grammar of ECMA-262 Annex B applies (``]``, ``{`` and ``}`` may be literal,
unknown escapes are identity escapes, ``\\1`` is octal when there are fewer groups, lookaheads
may be quantified). The pattern is read as UTF-16 code units, as JavaScript does.

Every message V8 can give without flags is covered (unterminated group or class, unmatched
``)``, nothing to repeat, out-of-order ranges, invalid groups, names and references…) except
limits that only absurd inputs reach (too many captures, stack depth, pattern size).
"""

from __future__ import annotations

__all__ = ["js_regex_error"]

_END = -1
_INFINITY = 2**31 - 1
_ZWNJ, _ZWJ = 0x200C, 0x200D
_CLASS_ESCAPES = frozenset(b"dDsSwW")


class _SyntaxError(Exception):
    """A V8 ``RegExpError`` message."""


def _is_digit(c: int) -> bool:
    return 0x30 <= c <= 0x39


def _hex_value(c: int) -> int:
    return int(chr(c), 16) if c >= 0 and chr(c) in "0123456789abcdefABCDEF" else -1


def _id_start(c: int) -> bool:
    return c in (0x24, 0x5F) or (0 <= c < 0x110000 and chr(c).isidentifier())


def _id_part(c: int) -> bool:
    return c in (0x24, _ZWNJ, _ZWJ) or (0 <= c < 0x110000 and ("a" + chr(c)).isidentifier())


class _Parser:
    """A syntax-only walk over the pattern, mirroring V8's ``RegExpParserImpl``."""

    def __init__(self, pattern: str) -> None:
        raw = pattern.encode("utf-16-le", "surrogatepass")
        self.units = [int.from_bytes(raw[i : i + 2], "little") for i in range(0, len(raw), 2)]
        self.pos = 0
        self.captures_started = 0
        self.capture_count: int | None = None  # set by the look-ahead scan
        self.has_named = False
        self.names: set[str] = set()
        self.references: list[str] = []

    def cur(self) -> int:
        return self.units[self.pos] if self.pos < len(self.units) else _END

    def next(self) -> int:
        return self.units[self.pos + 1] if self.pos + 1 < len(self.units) else _END

    def code_point(self) -> int:
        """The code point at the cursor, advancing past a surrogate pair (unicode reading)."""
        c = self.cur()
        self.pos += 1
        if 0xD800 <= c <= 0xDBFF and 0xDC00 <= self.cur() <= 0xDFFF:
            c = 0x10000 + ((c - 0xD800) << 10) + (self.cur() - 0xDC00)
            self.pos += 1
        return c

    def skip_class(self) -> None:
        """Move past the ``]`` that ends the class the cursor is in (or to the end)."""
        while (d := self.cur()) != _END:
            self.pos += 1
            if d == 0x5C:
                self.pos += 1
            elif d == 0x5D:
                break

    def scan_captures(self, in_class: bool = False) -> None:
        """Count the capture groups from here on and note named ones (``ScanForCaptures``)."""
        saved, count = self.pos, self.captures_started
        if in_class:
            self.skip_class()
        while (c := self.cur()) != _END:
            self.pos += 1
            if c == 0x5C:  # \
                self.pos += 1
            elif c == 0x5B:  # [
                self.skip_class()
            elif c == 0x28:  # (
                if self.cur() == 0x3F:  # ?
                    self.pos += 1
                    if self.cur() != 0x3C:
                        continue
                    self.pos += 1
                    if self.cur() in (0x3D, 0x21):
                        continue
                    self.has_named = True
                count += 1
        self.capture_count = count
        self.pos = saved

    def has_named_captures(self, in_class: bool = False) -> bool:
        if not self.has_named and self.capture_count is None:
            self.scan_captures(in_class)
        return self.has_named

    def group_name(self) -> str:
        """``ParseCaptureGroupName``: an identifier closed by ``>`` (cursor just after ``<``)."""
        name: list[str] = []
        at_start = True
        while True:
            c = self.code_point() if self.cur() != _END else _END
            if c == 0x5C and self.cur() == 0x75:  # \u escape inside a name
                self.pos += 1
                c = self.unicode_escape()
                if c < 0:
                    raise _SyntaxError("Invalid Unicode escape")
            elif c == 0x5C:
                raise _SyntaxError("Invalid capture group name")
            if at_start:
                if not _id_start(c):
                    raise _SyntaxError("Invalid capture group name")
            elif c == 0x3E:  # >
                return "".join(name)
            elif not _id_part(c):
                raise _SyntaxError("Invalid capture group name")
            name.append(chr(c))
            at_start = False

    def unicode_escape(self) -> int:
        """``XXXX`` or ``{X…}`` after ``\\u`` in a group name: the code point, or -1."""
        braced = self.cur() == 0x7B
        start, self.pos = self.pos, self.pos + braced
        value = digits = 0
        while (h := _hex_value(self.cur())) >= 0 and (braced or digits < 4):
            value, digits = value * 16 + h, digits + 1
            self.pos += 1
        if braced and digits and self.cur() == 0x7D and value <= 0x10FFFF:
            self.pos += 1
            return value
        if not braced and digits == 4:
            return value
        self.pos = start
        return -1

    def interval(self) -> tuple[int, int] | None:
        """``{n}``, ``{n,}`` or ``{n,m}`` at the cursor; None (cursor unchanged) otherwise."""
        start = self.pos
        self.pos += 1
        if not _is_digit(self.cur()):
            self.pos = start
            return None
        low = self.number()
        if self.cur() == 0x7D:
            self.pos += 1
            return low, low
        if self.cur() == 0x2C:
            self.pos += 1
            if self.cur() == 0x7D:
                self.pos += 1
                return low, _INFINITY
            high = self.number() if _is_digit(self.cur()) else -1
            if high >= 0 and self.cur() == 0x7D:
                self.pos += 1
                return low, high
        self.pos = start
        return None

    def number(self) -> int:
        value = 0
        while _is_digit(self.cur()):
            value = min(value * 10 + self.cur() - 0x30, _INFINITY)
            self.pos += 1
        return value

    def backreference(self) -> bool:
        """``\\N`` as a back reference when N ≤ the number of groups (cursor on the backslash)."""
        start = self.pos
        self.pos += 1
        value = 0
        while _is_digit(self.cur()):
            value = value * 10 + self.cur() - 0x30
            self.pos += 1
            if value > 1 << 16:
                self.pos = start
                return False
        if value > self.captures_started:
            if self.capture_count is None:
                self.scan_captures()
            if self.capture_count is not None and value > self.capture_count:
                self.pos = start
                return False
        return True

    def character_escape(self) -> int:
        """Read one ``CharacterEscape`` (cursor on the backslash): its code unit.

        Without the ``u`` flag it never fails: ``\\x``/``\\u`` without hex digits and unknown
        letters are identity escapes, and ``\\c`` without a letter is a literal backslash.
        """
        self.pos += 1
        c = self.cur()
        if c == 0x63:  # \cX
            if 0x41 <= (self.next() & ~0x20) <= 0x5A:
                self.pos += 2
                return self.units[self.pos - 1] & 0x1F
            return 0x5C
        if c in (0x78, 0x75):  # \xHH, \uHHHH
            self.pos += 1
            width = 2 if c == 0x78 else 4
            digits = [_hex_value(u) for u in self.units[self.pos : self.pos + width]]
            if len(digits) < width or min(digits) < 0:
                return c
            self.pos += width
            return int("".join(f"{d:x}" for d in digits), 16)
        self.pos += 1
        if 0x30 <= c <= 0x37:  # legacy octal, up to \377
            value = c - 0x30
            for _ in range(2 if c <= 0x33 else 1):
                if not 0x30 <= self.cur() <= 0x37:
                    break
                value = value * 8 + self.cur() - 0x30
                self.pos += 1
            return value
        return {0x66: 0x0C, 0x6E: 0x0A, 0x72: 0x0D, 0x74: 0x09, 0x76: 0x0B}.get(c, c)

    def class_atom(self) -> tuple[int, bool]:
        """One class atom: ``(code unit, False)`` or ``(-1, True)`` for ``\\d``-like escapes."""
        c = self.cur()
        if c != 0x5C:
            self.pos += 1
            return c, False
        n = self.next()
        if n == _END:
            raise _SyntaxError("\\ at end of pattern")
        if n == 0x62:  # \b is a backspace in a class
            self.pos += 2
            return 8, False
        if n in _CLASS_ESCAPES:
            self.pos += 2
            return -1, True
        if n == 0x6B and self.has_named_captures(in_class=True):  # \k is reserved once names exist
            raise _SyntaxError("Invalid escape")
        if n == 0x63:  # \c also takes digits and _ inside a class
            after = self.units[self.pos + 2] if self.pos + 2 < len(self.units) else _END
            if _is_digit(after) or after == 0x5F:
                self.pos += 3
                return after & 0x1F, False
        return self.character_escape(), False

    def character_class(self) -> None:
        """``[...]`` (cursor on ``[``)."""
        self.pos += 1
        if self.cur() == 0x5E:
            self.pos += 1
        while self.cur() not in (_END, 0x5D):
            first, first_is_class = self.class_atom()
            if self.cur() != 0x2D:  # -
                continue
            self.pos += 1
            if self.cur() in (_END, 0x5D):
                break
            second, second_is_class = self.class_atom()
            if not (first_is_class or second_is_class) and first > second:
                raise _SyntaxError("Range out of order in character class")
        if self.cur() == _END:
            raise _SyntaxError("Unterminated character class")
        self.pos += 1

    def open_group(self, stack: list[str]) -> None:
        """``(``, ``(?:``, lookarounds and named groups (cursor on ``(``)."""
        self.pos += 1
        kind = "capture"
        if self.cur() == 0x3F:  # ?
            n = self.next()
            if n == 0x3A:
                kind = "group"
            elif n in (0x3D, 0x21):
                kind = "lookahead"
            elif n == 0x3C and self.units[self.pos + 2 : self.pos + 3] in ([0x3D], [0x21]):
                kind = "lookbehind"
                self.pos += 1
            elif n == 0x3C:
                self.pos += 2
                self.has_named = True
                self.captures_started += 1
                stack.append("name:" + self.group_name())
                return
            else:
                raise _SyntaxError("Invalid group")
            self.pos += 2
        else:
            self.captures_started += 1
        stack.append(kind)

    def atom_escape(self) -> bool:
        """An escape outside a class; True when it is an atom (False: an assertion)."""
        n = self.next()
        if n == _END:
            raise _SyntaxError("\\ at end of pattern")
        if 0x31 <= n <= 0x39:
            if self.backreference():
                return True
            if n >= 0x38:  # \8 and \9 are literal digits
                self.pos += 2
                return True
        elif n in (0x62, 0x42):  # \b \B
            self.pos += 2
            return False
        elif n in _CLASS_ESCAPES:
            self.pos += 2
            return True
        elif n == 0x6B and self.has_named_captures():  # \k<name>
            self.pos += 2
            if self.cur() != 0x3C:
                raise _SyntaxError("Invalid named reference")
            self.pos += 1
            self.references.append(self.group_name())
            return True
        self.character_escape()
        return True

    def parse(self) -> None:
        stack: list[str] = []
        while True:
            c = self.cur()
            quantifiable = "atom"
            if c == _END:
                if stack:
                    raise _SyntaxError("Unterminated group")
                break
            if c == 0x29:  # )
                if not stack:
                    raise _SyntaxError("Unmatched ')'")
                self.pos += 1
                quantifiable = stack.pop()
                if quantifiable.startswith("name:"):  # V8 registers the name at the ")"
                    if quantifiable[5:] in self.names:
                        raise _SyntaxError("Duplicate capture group name")
                    self.names.add(quantifiable[5:])
            elif c in (0x2A, 0x2B, 0x3F):  # * + ?
                raise _SyntaxError("Nothing to repeat")
            elif c in (0x7C, 0x5E, 0x24):  # | ^ $
                self.pos += 1
                continue
            elif c == 0x28:
                self.open_group(stack)
                continue
            elif c == 0x5B:
                self.character_class()
            elif c == 0x5C:
                if not self.atom_escape():
                    continue
            elif c == 0x7B and self.interval() is not None:
                raise _SyntaxError("Nothing to repeat")
            else:
                self.pos += 1
            if not self.quantifier():
                continue
            if quantifiable == "lookbehind":
                raise _SyntaxError("Invalid quantifier")
        missing = [name for name in self.references if name not in self.names]
        if missing:
            raise _SyntaxError("Invalid named capture referenced")

    def quantifier(self) -> bool:
        """Skip a quantifier (and its lazy ``?``) after an atom; False when there is none."""
        c = self.cur()
        if c in (0x2A, 0x2B, 0x3F):
            self.pos += 1
        elif c == 0x7B:
            bounds = self.interval()
            if bounds is None:
                return False
            if bounds[1] < bounds[0]:
                raise _SyntaxError("numbers out of order in {} quantifier")
        else:
            return False
        if self.cur() == 0x3F:
            self.pos += 1
        return True


def js_regex_error(pattern: str) -> str | None:
    """V8's message for ``new RegExp(pattern)``, or ``None`` when the pattern compiles.

    >>> js_regex_error("[[")
    'Invalid regular expression: /[[/: Unterminated character class'
    """
    try:
        _Parser(pattern).parse()
    except _SyntaxError as exc:
        return f"Invalid regular expression: /{pattern}/: {exc}"
    return None
