"""Unicode character sets as code-point ranges, for translating ripgrep's classes to ``re``.

ripgrep's regex engine is Unicode-aware: ``\\w`` is Alphabetic + marks + decimal digits +
connector punctuation + join controls, ``\\d`` is the decimal digits (``Nd``), ``\\s`` is
``White_Space``, and ``\\pL``/``\\p{Lu}``… are general categories. Python's ``re`` has slightly
different ``\\w`` and ``\\s`` and no ``\\p``, so the translator builds explicit sets from
:mod:`unicodedata`. A line terminator (``\\n``) and surrogates (which stand for undecodable
bytes in our decoded text) are never part of a set: ripgrep cannot match either.

The general-category table takes about 0.15 s to build and is built once, on first use.
"""

from __future__ import annotations

import functools
import unicodedata

__all__ = [
    "Ranges",
    "category_ranges",
    "complement",
    "js_space",
    "perl_digit",
    "perl_space",
    "perl_word",
    "property_ranges",
    "set_body",
    "word_disagreement",
]

Ranges = tuple[tuple[int, int], ...]
"""Sorted, disjoint, non-adjacent inclusive code-point ranges."""

_MAX = 0x10FFFF
_EXCLUDED: Ranges = ((0x0A, 0x0A), (0xD800, 0xDFFF))
_SPACE: Ranges = (
    (0x09, 0x09),
    (0x0B, 0x0D),
    (0x20, 0x20),
    (0x85, 0x85),
    (0xA0, 0xA0),
    (0x1680, 0x1680),
    (0x2000, 0x200A),
    (0x2028, 0x2029),
    (0x202F, 0x202F),
    (0x205F, 0x205F),
    (0x3000, 0x3000),
)
_JS_SPACE: Ranges = (
    (0x09, 0x09),
    (0x0B, 0x0D),
    (0x20, 0x20),
    (0xA0, 0xA0),
    (0x1680, 0x1680),
    (0x2000, 0x200A),
    (0x2028, 0x2029),
    (0x202F, 0x202F),
    (0x205F, 0x205F),
    (0x3000, 0x3000),
    (0xFEFF, 0xFEFF),
)
# Other_Alphabetic characters outside the mark categories (circled and squared letters).
_OTHER_ALPHABETIC: Ranges = ((0x24B6, 0x24E9), (0x1F130, 0x1F149), (0x1F150, 0x1F169))
_JOIN_CONTROL: Ranges = ((0x200C, 0x200D),)

_LONG_NAMES = {
    "letter": "L", "casedletter": "LC", "uppercaseletter": "Lu", "lowercaseletter": "Ll",
    "titlecaseletter": "Lt", "modifierletter": "Lm", "otherletter": "Lo", "mark": "M",
    "combiningmark": "M", "nonspacingmark": "Mn", "spacingmark": "Mc", "enclosingmark": "Me",
    "number": "N", "decimalnumber": "Nd", "letternumber": "Nl", "othernumber": "No",
    "punctuation": "P", "connectorpunctuation": "Pc", "dashpunctuation": "Pd",
    "openpunctuation": "Ps", "closepunctuation": "Pe", "initialpunctuation": "Pi",
    "finalpunctuation": "Pf", "otherpunctuation": "Po", "symbol": "S", "mathsymbol": "Sm",
    "currencysymbol": "Sc", "modifiersymbol": "Sk", "othersymbol": "So", "separator": "Z",
    "spaceseparator": "Zs", "lineseparator": "Zl", "paragraphseparator": "Zp", "other": "C",
    "control": "Cc", "format": "Cf", "surrogate": "Cs", "privateuse": "Co", "unassigned": "Cn",
}  # fmt: skip


def normalise(ranges: list[tuple[int, int]]) -> Ranges:
    """Sort and merge overlapping or adjacent ranges, dropping ``\\n`` and surrogates."""
    merged: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if merged and lo <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(hi, merged[-1][1]))
        else:
            merged.append((lo, hi))
    return _subtract(tuple(merged), _EXCLUDED)


def _subtract(ranges: Ranges, removed: Ranges) -> Ranges:
    out: list[tuple[int, int]] = []
    for lo, hi in ranges:
        for rlo, rhi in removed:
            if rhi < lo or rlo > hi:
                continue
            if rlo > lo:
                out.append((lo, rlo - 1))
            lo = rhi + 1
            if lo > hi:
                break
        if lo <= hi:
            out.append((lo, hi))
    return tuple(out)


def complement(ranges: Ranges) -> Ranges:
    """Every code point (but ``\\n`` and surrogates) that is not in ``ranges``."""
    return _subtract(((0, _MAX),), normalise(list(ranges)))


@functools.cache
def _categories() -> dict[str, Ranges]:
    found: dict[str, list[tuple[int, int]]] = {}
    start, current = 0, unicodedata.category("\0")
    for code in range(1, _MAX + 2):
        category = unicodedata.category(chr(code)) if code <= _MAX else ""
        if category != current:
            found.setdefault(current, []).append((start, code - 1))
            start, current = code, category
    return {name: normalise(ranges) for name, ranges in found.items()}


def category_ranges(name: str) -> Ranges:
    """The ranges of a general category: two letters (``Lu``), one letter (``L``) or ``LC``."""
    table = _categories()
    if name == "LC":
        return normalise([*table.get("Lu", ()), *table.get("Ll", ()), *table.get("Lt", ())])
    if len(name) == 1:
        return normalise([r for key, ranges in table.items() if key[0] == name for r in ranges])
    return table.get(name, ())


@functools.cache
def perl_word() -> Ranges:
    """ripgrep's ``\\w``."""
    parts = [
        *category_ranges("L"),
        *category_ranges("M"),
        *category_ranges("Nd"),
        *category_ranges("Nl"),
        *category_ranges("Pc"),
        *_OTHER_ALPHABETIC,
        *_JOIN_CONTROL,
    ]
    return normalise(parts)


@functools.cache
def word_disagreement() -> Ranges:
    """Characters that are word characters for only one of Python's ``re`` and ripgrep."""
    rust = perl_word()
    flags = bytearray(_MAX + 1)
    for lo, hi in rust:
        flags[lo : hi + 1] = b"\x01" * (hi - lo + 1)
    found: list[tuple[int, int]] = []
    for code in range(0x80, _MAX + 1):
        char = chr(code)
        if (char.isalnum() or char == "_") != bool(flags[code]):
            found.append((code, code))
    return normalise(found)


@functools.cache
def perl_digit() -> Ranges:
    """ripgrep's ``\\d`` (decimal numbers)."""
    return category_ranges("Nd")


def perl_space() -> Ranges:
    """ripgrep's ``\\s`` (``White_Space`` without the line terminator)."""
    return normalise(list(_SPACE))


def js_space() -> Ranges:
    """JavaScript's ``\\s`` without the line terminator."""
    return normalise(list(_JS_SPACE))


def property_ranges(raw: str) -> Ranges | None:
    """A ``\\p{…}`` property we can build (general categories, ``Any``, ``ASCII``) or None."""
    name = raw.replace(" ", "").replace("_", "").replace("-", "").lower()
    for prefix in ("generalcategory=", "gc="):
        name = name.removeprefix(prefix)
    name = name.removeprefix("is") if name.startswith("is") and len(name) > 2 else name
    if name == "any":
        return normalise([(0, _MAX)])
    if name == "ascii":
        return normalise([(0, 0x7F)])
    if name == "assigned":
        return complement(category_ranges("Cn"))
    short = next((gc for gc in (*_LONG_NAMES.values(),) if gc.lower() == name), None)
    short = _LONG_NAMES.get(name, short)
    return category_ranges(short) if short is not None else None


def _char(code: int) -> str:
    if code < 0x80 and (chr(code).isalnum() or chr(code) == "_"):
        return chr(code)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def set_body(ranges: Ranges) -> str:
    """The inside of a Python ``[...]`` set matching exactly ``ranges``."""
    return "".join(_char(lo) if lo == hi else f"{_char(lo)}-{_char(hi)}" for lo, hi in ranges)
