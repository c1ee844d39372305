"""Building blocks of :mod:`~qwen_tools.tools.grep.regex_translate`: classes, word boundaries, the compiled result.

Character classes come in ripgrep's and in JavaScript's syntax.

ripgrep (Rust's ``regex``) classes may nest (``[a[bc]]``), hold POSIX classes (``[[:alpha:]]``,
ASCII only) and combine sets with ``&&`` (intersection), ``--`` (difference) and ``~~``
(symmetric difference), left to right; a leading ``]`` or run of ``-`` is literal. JavaScript
classes (without the ``u`` flag) are flat; ``[]`` matches nothing and ``[^]`` any character.

Each class becomes one Python expression matching a single character: a plain ``[...]`` set
when possible, otherwise look-aheads combining sets (``(?:(?=A)B)`` for ``A&&B``), so that
``re.IGNORECASE`` folds every operand as Rust folds them. No class ever matches ``\\n`` (it is
removed, as ripgrep does; a class that could only match it is an error) or a surrogate (which
stands for an undecodable byte).
"""

from __future__ import annotations

import functools
import re

from qwen_tools.tools.grep import unicode_sets as U

__all__ = [
    "ANY",
    "JS_DOT",
    "NATIVE_BOUNDARIES",
    "NEVER",
    "NEWLINE_ERROR",
    "ClassParser",
    "LineRegex",
    "NotRust",
    "RegexUnsupported",
    "ranges_expr",
    "word_boundary",
]

NEWLINE_ERROR = 'the literal "\\n" is not allowed in a regex'
ANY = "[^\\n\\ud800-\\udfff]"
JS_DOT = "[^\\n\\r\\u2028\\u2029\\ud800-\\udfff]"
NEVER = "(?!)"
POSIX: dict[str, U.Ranges] = {
    name: U.normalise([(ord(a), ord(b)) for a, b in zip(spec[::2], spec[1::2], strict=True)])
    for name, spec in {
        "alnum": "09AZaz", "alpha": "AZaz", "ascii": "\x00\x7f", "blank": "\t\t  ",
        "cntrl": "\x00\x1f\x7f\x7f", "digit": "09", "graph": "!~", "lower": "az",
        "print": " ~", "punct": "!/:@[`{~", "space": "\t\r  ", "upper": "AZ",
        "word": "09AZ__az", "xdigit": "09AFaf",
    }.items()
}  # fmt: skip


class RegexUnsupported(Exception):
    """The pattern cannot be searched by the Python engine; the message is model-facing."""


class NotRust(Exception):
    """ripgrep's regex syntax rejects the pattern: translate it with its JavaScript meaning."""


def negate(expr: str) -> str:
    """One character (never a line terminator) that ``expr`` does not match."""
    if expr == NEVER:
        return ANY
    if expr.startswith("[") and expr.endswith("]"):  # a plain positive set
        return f"[^{expr[1:-1]}\\n\\ud800-\\udfff]"
    return f"(?:(?!{expr}){ANY})"


def set_operation(operator: str, left: str, right: str) -> str:
    """``left && right``, ``left -- right`` or ``left ~~ right`` on one character."""
    if operator == "&&":
        return f"(?:(?={left}){right})"
    if operator == "--":
        return f"(?:(?!{right}){left})"
    return f"(?:(?!{right}){left}|(?!{left}){right})"


def ranges_expr(ranges: U.Ranges, negated: bool = False) -> str:
    """A set matching one character of ``ranges`` (or, negated, any other character)."""
    if negated:
        return f"[^{U.set_body(ranges)}\\n\\ud800-\\udfff]" if ranges else ANY
    return f"[{U.set_body(ranges)}]" if ranges else NEVER


NATIVE_BOUNDARIES = {
    "b": "\\b", "B": "\\B", "<": "\\b(?=\\w)", ">": "\\b(?<=\\w)", "<h": "(?<!\\w)", ">h": "(?!\\w)",
}  # fmt: skip


def word_boundary(kind: str, word: str) -> str:
    """``\\b``, ``\\B``, ``<`` (start), ``>`` (end), ``<h``/``>h`` (half) over the set ``word``."""
    before, after, not_before, not_after = (
        f"(?<={word})",
        f"(?={word})",
        f"(?<!{word})",
        f"(?!{word})",
    )
    return {
        "b": f"(?:{before}{not_after}|{not_before}{after})",
        "B": f"(?:{before}{after}|{not_before}{not_after})",
        "<": f"(?:{not_before}{after})",
        ">": f"(?:{before}{not_after})",
        "<h": not_before,
        ">h": not_after,
    }[kind]


class LineRegex:
    """A translated pattern: ``pick(text)`` gives the compiled form to search ``text`` with.

    Word boundaries are exact only with look-arounds over ripgrep's ``\\w`` set, which ``re``
    runs some fifty times slower than its own ``\\b``. Python's ``\\w`` differs from ripgrep's
    only on a few characters (combining marks, superscript digits…), so texts without any of
    those are searched with the fast form.
    """

    __slots__ = ("exact", "fast")

    def __init__(self, fast: re.Pattern[str], exact: re.Pattern[str]) -> None:
        self.fast = fast
        self.exact = exact

    def pick(self, text: str) -> re.Pattern[str]:
        """The compiled form that is exact for ``text``."""
        if self.exact is self.fast or text.isascii() or _disagreement().search(text) is None:
            return self.fast
        return self.exact

    def search(self, text: str) -> re.Match[str] | None:
        """``pick(text).search(text)``."""
        return self.pick(text).search(text)


@functools.cache
def _disagreement() -> re.Pattern[str]:
    return re.compile(ranges_expr(U.word_disagreement()))


class ClassParser:
    """Reads classes at ``self.p[self.i]`` (just after the ``[``); escapes come from the subclass."""

    def __init__(self, pattern: str) -> None:
        self.p = pattern
        self.i = 0

    def peek(self, offset: int = 0) -> str:
        j = self.i + offset
        return self.p[j] if j < len(self.p) else ""

    def fail(self) -> NotRust:
        """ripgrep would reject the pattern (or, in the JavaScript meaning, it is malformed)."""
        return NotRust()

    def rust_class_escape(self, c: str) -> tuple[U.Ranges, bool]:
        raise NotImplementedError

    def rust_char_escape(self, c: str) -> int:
        raise NotImplementedError

    def js_class_escape(self, c: str) -> tuple[U.Ranges, bool]:
        raise NotImplementedError

    def js_char_escape(self, c: str, *, in_class: bool) -> int:
        raise NotImplementedError

    def js_class(self) -> str:
        negated = self.peek() == "^"
        self.i += negated
        items: list[tuple[int, int]] = []
        while self.p[self.i] != "]":
            first = self.js_class_atom(items)
            if self.peek() != "-" or self.peek(1) in ("]", ""):
                if first is not None:
                    items.append((first, first))
                continue
            self.i += 1
            second = self.js_class_atom(items)
            if first is None or second is None:  # a class escape at either end: "-" is literal
                items.extend((x, x) for x in (first, 0x2D, second) if x is not None)
            else:
                items.append((first, second))
        self.i += 1
        ranges = self.checked_ranges(items, only=not negated)
        return ranges_expr(ranges, negated)

    def js_class_atom(self, items: list[tuple[int, int]]) -> int | None:
        c = self.p[self.i]
        self.i += 1
        if c != "\\":
            return ord(c)
        e = self.p[self.i]
        self.i += 1
        if e == "b":
            return 8
        if e in "dDwWsS":
            ranges, negated = self.js_class_escape(e)
            items.extend(U.complement(ranges) if negated else ranges)
            return None
        return self.js_char_escape(e, in_class=True)

    def rust_class(self) -> str:
        negated = self.peek() == "^"
        self.i += negated
        expr = self.rust_class_body(top=not negated)
        return negate(expr) if negated else expr

    def rust_class_body(self, *, top: bool) -> str:
        """Union items and set operations up to the closing ``]`` (consumed)."""
        items: list[tuple[int, int]] = []
        exprs: list[str] = []
        while self.peek() == "-":
            items.append((0x2D, 0x2D))
            self.i += 1
        if not items and self.peek() == "]":
            items.append((0x5D, 0x5D))
            self.i += 1
        left: str | None = None
        operator = ""
        while True:
            c = self.peek()
            if c == "":
                raise self.fail()
            two = self.p[self.i : self.i + 2]
            if c == "]" or two in ("&&", "--", "~~"):
                current = self.union_expr(items, exprs, top and left is None and c == "]")
                left = current if left is None else set_operation(operator, left, current)
                items, exprs = [], []
                if c == "]":
                    self.i += 1
                    return left
                operator = two
                self.i += 2
                continue
            if c == "[":
                posix = re.match(r"\[:(\^?)([a-z]+):\]", self.p[self.i :])
                if posix and posix.group(2) in POSIX:
                    self.i += posix.end()
                    ranges = POSIX[posix.group(2)]
                    items.extend(U.complement(ranges) if posix.group(1) else ranges)
                    continue
                self.i += 1
                nested_negated = self.peek() == "^"
                self.i += nested_negated
                nested = self.rust_class_body(top=False)
                if nested_negated:
                    exprs.append(negate(nested))
                elif nested != NEVER:
                    exprs.append(nested)
                continue
            self.class_range(items)

    def class_range(self, items: list[tuple[int, int]]) -> None:
        first = self.rust_class_item(items)
        if self.peek() != "-" or self.peek(1) in ("]", "-", ""):
            if first is not None:
                items.append((first, first))
            return
        self.i += 1
        second = self.rust_class_item(items)
        if first is None or second is None or first > second:
            raise self.fail()
        items.append((first, second))

    def rust_class_item(self, items: list[tuple[int, int]]) -> int | None:
        c = self.p[self.i]
        self.i += 1
        if c != "\\":
            return ord(c)
        e = self.p[self.i]
        self.i += 1
        if e in "dDsSwWpP":
            ranges, negated = self.rust_class_escape(e)
            items.extend(U.complement(ranges) if negated else ranges)
            return None
        if e in "bBAz<>":
            raise self.fail()
        return self.rust_char_escape(e)

    def checked_ranges(self, items: list[tuple[int, int]], *, only: bool) -> U.Ranges:
        """The items as ranges; a class that could only match ``\\n`` is an error."""
        ranges = U.normalise(items)
        if only and not ranges and any(lo <= 0x0A <= hi for lo, hi in items):
            raise RegexUnsupported(NEWLINE_ERROR)
        return ranges

    def union_expr(self, items: list[tuple[int, int]], exprs: list[str], only: bool) -> str:
        ranges = self.checked_ranges(items, only=only and not exprs)
        parts = ([ranges_expr(ranges)] if ranges else []) + exprs
        if not parts:
            return NEVER
        return parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"
