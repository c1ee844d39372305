"""JavaScript's view of strings, for texts that must match what Node computes.

``String.prototype.trim``/``trimEnd`` (JavaScript's whitespace set, U+FEFF included) and
lengths and prefixes in UTF-16 code units (characters beyond the BMP count twice).
"""

from __future__ import annotations

__all__ = ["JS_WHITESPACE", "js_trim", "js_trim_end", "utf16_len", "utf16_prefix"]

JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def js_trim(text: str) -> str:
    """``String.prototype.trim``: strip JavaScript whitespace (incl. U+FEFF) at both ends."""
    return text.strip(JS_WHITESPACE)


def js_trim_end(text: str) -> str:
    """``String.prototype.trimEnd``: strip JavaScript whitespace (spaces, tabs, ``\\r``…)."""
    return text.rstrip(JS_WHITESPACE)


def utf16_len(text: str) -> int:
    """The length JavaScript reports: characters beyond the BMP count twice."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def utf16_prefix(text: str, units: int) -> str:
    """The first ``units`` UTF-16 code units of ``text`` (a split surrogate pair is dropped)."""
    if units <= 0:
        return ""
    if text.isascii():
        return text[:units]
    encoded = text.encode("utf-16-le", "surrogatepass")[: units * 2]
    return encoded.decode("utf-16-le", "ignore")
