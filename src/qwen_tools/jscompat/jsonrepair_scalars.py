"""Character classes, text helpers and the scalar parsers (strings, numbers, words) of :mod:`.jsonrepair`."""

from __future__ import annotations

import json
import re


class JSONRepairError(ValueError):
    """The text could not be repaired; ``position`` is where the problem was found."""

    def __init__(self, message: str, position: int) -> None:
        super().__init__(f"{message} at position {position}")
        self.position = position


_CONTROL = {"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_SIMPLE_ESCAPES = frozenset('"\\/bfnrt')
_DELIMITERS = frozenset(",:[]/{}()\n+")
_UNQUOTED_STOPS = frozenset(",[]/{}\n+")
_DOUBLE_QUOTES = frozenset('"\u201c\u201d')
_SINGLE_QUOTES = frozenset("'\u2018\u2019`\u00b4")
_WHITESPACE = frozenset(" \n\t\r")
_URL_START = re.compile(r"^(http|https|ftp|mailto|file|data|irc)://$")
_URL_CHAR = re.compile(r"^[A-Za-z0-9\-._~:/?#@!$&'()*+;=]$")
_VALUE_START = re.compile(r"^[\[{\w-]$")
_HEX = frozenset("0123456789abcdefABCDEF")


def is_special_space(char: str) -> bool:
    code = ord(char) if char else -1
    return code == 0xA0 or 0x2000 <= code <= 0x200A or code in (0x202F, 0x205F, 0x3000)


def is_quote(char: str) -> bool:
    return bool(char) and (char in _DOUBLE_QUOTES or char in _SINGLE_QUOTES)


def is_value_start(char: str) -> bool:
    return is_quote(char) or bool(char and _VALUE_START.match(char))


def is_name_start(char: str) -> bool:
    return bool(char) and (char.isascii() and (char.isalpha() or char in "_$"))


def is_name_char(char: str) -> bool:
    return is_name_start(char) or (bool(char) and "0" <= char <= "9")


def insert_before_trailing_space(text: str, insert: str) -> str:
    end = len(text)
    while end > 0 and text[end - 1] in _WHITESPACE:
        end -= 1
    return text[:end] + insert + text[end:]


def strip_last(text: str, target: str, *, drop_rest: bool = False) -> str:
    index = text.rfind(target)
    if index < 0:
        return text
    return text[:index] + ("" if drop_rest else text[index + 1 :])


def ends_with_comma_or_newline(text: str) -> bool:
    return re.search(r"[,\n][ \t\r]*$", text) is not None


class ScalarParser:
    """The cursor (``pos`` in ``text``), the output so far, and the parsers of scalar values."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.out = ""

    def at(self, index: int) -> str:
        """The character at ``index``, or ``""`` past either end."""
        return self.text[index] if 0 <= index < len(self.text) else ""

    @property
    def char(self) -> str:
        return self.at(self.pos)

    def fail(self, message: str) -> JSONRepairError:
        return JSONRepairError(message, self.pos)

    def space(self, newlines: bool = True) -> bool:  # pragma: no cover - provided by the subclass
        raise NotImplementedError

    def value(self) -> bool:  # pragma: no cover - provided by the subclass
        raise NotImplementedError

    def skip(self, char: str) -> bool:
        if self.char == char:
            self.pos += 1
            return True
        return False

    def string(self, stop_at_delimiter: bool = False, stop_at: int = -1) -> bool:
        escaped_quotes = self.char == "\\"
        if escaped_quotes:
            self.pos += 1
        opening = self.char
        if not is_quote(opening):
            return False
        if opening == '"':
            closes = frozenset('"')
        elif opening == "'":
            closes = frozenset("'")
        elif opening in _SINGLE_QUOTES:
            closes = _SINGLE_QUOTES
        else:
            closes = _DOUBLE_QUOTES
        start, out_start = self.pos, len(self.out)
        piece = '"'
        self.pos += 1
        while True:
            if self.pos >= len(self.text):
                previous = self.at(self._previous_non_space(self.pos - 1))
                # past the end (an escape at the very end) counts as a delimiter, as in
                # jsonrepair, where ``",:[]…".includes("")`` is true
                if not stop_at_delimiter and (previous == "" or previous in _DELIMITERS):
                    self.pos, self.out = start, self.out[:out_start]
                    return self.string(stop_at_delimiter=True)
                self.out += insert_before_trailing_space(piece, '"')
                return True
            if self.pos == stop_at:
                self.out += insert_before_trailing_space(piece, '"')
                return True
            char = self.char
            if char in closes:
                quote_at, quote_in_piece = self.pos, len(piece)
                piece += '"'
                self.pos += 1
                self.out += piece
                self.space(newlines=False)
                nxt = self.char
                if (
                    stop_at_delimiter
                    or self.pos >= len(self.text)
                    or nxt in _DELIMITERS
                    or is_quote(nxt)
                    or ("0" <= nxt <= "9" and nxt != "")
                ):
                    self.concatenation()
                    return True
                before_index = self._previous_non_space(quote_at - 1)
                before = self.at(before_index)
                if before == ",":
                    self.pos, self.out = start, self.out[:out_start]
                    return self.string(stop_at=before_index)
                if before and before in _DELIMITERS:
                    self.pos, self.out = start, self.out[:out_start]
                    return self.string(stop_at_delimiter=True)
                # a quote inside the string: keep it, escaped
                self.out = self.out[:out_start]
                self.pos = quote_at + 1
                piece = piece[:quote_in_piece] + "\\" + piece[quote_in_piece:]
            elif stop_at_delimiter and char in _UNQUOTED_STOPS:
                if self.at(self.pos - 1) == ":" and _URL_START.match(
                    self.text[start + 1 : self.pos + 2]
                ):
                    while self.pos < len(self.text) and _URL_CHAR.match(self.char):
                        piece += self.char
                        self.pos += 1
                self.out += insert_before_trailing_space(piece, '"')
                self.concatenation()
                return True
            elif char == "\\":
                escape = self.at(self.pos + 1)
                if escape and escape in _SIMPLE_ESCAPES:
                    piece += self.text[self.pos : self.pos + 2]
                    self.pos += 2
                elif escape == "u":
                    digits = 2
                    while (
                        digits < 6
                        and self.at(self.pos + digits) in _HEX
                        and self.at(self.pos + digits)
                    ):
                        digits += 1
                    if digits == 6:
                        piece += self.text[self.pos : self.pos + 6]
                        self.pos += 6
                    elif self.pos + digits >= len(self.text):
                        self.pos = len(self.text)
                    else:
                        raise self.fail(
                            f'Invalid unicode character "{self.text[self.pos : self.pos + 6]}"'
                        )
                else:
                    piece += escape
                    self.pos += 2
            else:
                if char == '"' and self.at(self.pos - 1) != "\\":
                    piece += '\\"'
                elif char in _CONTROL:
                    piece += _CONTROL[char]
                elif char < " ":
                    raise self.fail(f"Invalid character {json.dumps(char)}")
                else:
                    piece += char
                self.pos += 1
            if escaped_quotes:
                self.skip("\\")

    def concatenation(self) -> None:
        self.space()
        while self.char == "+":
            self.pos += 1
            self.space()
            self.out = strip_last(self.out, '"', drop_rest=True)
            start = len(self.out)
            if self.string():
                self.out = self.out[:start] + self.out[start + 1 :]
            else:
                self.out = insert_before_trailing_space(self.out, '"')

    def _previous_non_space(self, index: int) -> int:
        while index > 0 and self.at(index) in _WHITESPACE and self.at(index):
            index -= 1
        return index

    def _at_number_end(self) -> bool:
        char = self.char
        return self.pos >= len(self.text) or char in _DELIMITERS or char in _WHITESPACE

    def number(self) -> bool:
        start = self.pos

        def digits() -> None:
            while "0" <= self.char <= "9" and self.char:
                self.pos += 1

        def cut_short() -> bool:
            self.out += self.text[start : self.pos] + "0"
            return True

        if self.char == "-":
            self.pos += 1
            if self._at_number_end():
                return cut_short()
            if not ("0" <= self.char <= "9" and self.char):
                self.pos = start
                return False
        digits()
        if self.char == ".":
            self.pos += 1
            if self._at_number_end():
                return cut_short()
            if not ("0" <= self.char <= "9" and self.char):
                self.pos = start
                return False
            digits()
        if self.char in ("e", "E") and self.char:
            self.pos += 1
            if self.char in ("-", "+") and self.char:
                self.pos += 1
            if self._at_number_end():
                return cut_short()
            if not ("0" <= self.char <= "9" and self.char):
                self.pos = start
                return False
            digits()
        if not self._at_number_end():
            self.pos = start
            return False
        if self.pos > start:
            text = self.text[start : self.pos]
            self.out += f'"{text}"' if re.match(r"^0\d", text) else text
            return True
        return False

    def keyword(self) -> bool:
        for name, value in (
            ("true", "true"),
            ("false", "false"),
            ("null", "null"),
            ("True", "true"),
            ("False", "false"),
            ("None", "null"),
        ):
            if self.text.startswith(name, self.pos):
                self.out += value
                self.pos += len(name)
                return True
        return False

    def unquoted(self, *, is_key: bool) -> bool:
        start = self.pos
        if is_name_start(self.char):
            while self.pos < len(self.text) and is_name_char(self.char):
                self.pos += 1
            probe = self.pos
            while self.at(probe) in _WHITESPACE and self.at(probe):
                probe += 1
            if self.at(probe) == "(":
                self.pos = probe + 1
                self.value()
                if self.char == ")":
                    self.pos += 1
                    if self.char == ";":
                        self.pos += 1
                return True
        while (
            self.pos < len(self.text)
            and self.char not in _UNQUOTED_STOPS
            and not is_quote(self.char)
            and (not is_key or self.char != ":")
        ):
            self.pos += 1
        if self.at(self.pos - 1) == ":" and _URL_START.match(self.text[start : self.pos + 2]):
            while self.pos < len(self.text) and _URL_CHAR.match(self.char):
                self.pos += 1
        if self.pos > start:
            while self.pos > 0 and self.at(self.pos - 1) in _WHITESPACE and self.at(self.pos - 1):
                self.pos -= 1
            symbol = self.text[start : self.pos]
            self.out += "null" if symbol == "undefined" else json.dumps(symbol, ensure_ascii=False)
            if self.char == '"':
                self.pos += 1
            return True
        return False

    def regex(self) -> bool:
        if self.char != "/":
            return False
        start = self.pos
        self.pos += 1
        while self.pos < len(self.text) and (self.char != "/" or self.at(self.pos - 1) == "\\"):
            self.pos += 1
        self.pos += 1
        self.out += f'"{self.text[start : self.pos]}"'
        return True
