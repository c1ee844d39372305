"""Character-level scanners over shell text, for the checks that Qwen Code does on raw text.

These never build a syntax tree: they track quotes, backticks and ``$(`` depth while walking the
string. They serve the validation guards (trailing ``&``, trailing comments) and the best-effort
fallback used when the real parser (bashlex) rejects a command.
"""

from __future__ import annotations

import os
import re
import shlex

__all__ = [
    "first_root",
    "has_trailing_background_operator",
    "split_commands",
    "split_trailing_comment",
    "strip_trailing_ampersand",
    "strip_wrapper_text",
    "take_leading_token",
    "tokenize",
    "word_set",
]

ENV_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_PARAM_HEAD = re.compile(
    r'("?)\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?-)([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))\1'
)
_OPERATOR_TOKEN = re.compile(r"[();<>|&]+")


def word_set(text: str) -> frozenset[str]:
    """The space-separated words of ``text`` (compact notation for the option tables)."""
    return frozenset(text.split())


def _prev_nonspace(text: str, index: int) -> str:
    for j in range(index - 1, -1, -1):
        if not text[j].isspace():
            return text[j]
    return ""


def split_commands(command: str) -> list[str]:
    """Split on ``&&``, ``||``, ``|&``, ``|``, ``;``, ``&`` and newlines outside quotes and ``$(…)``.

    ``>&``/``<&`` and ``>|`` stay inside their segment; empty segments are dropped.
    """
    out: list[str] = []
    cur: list[str] = []
    single = double = backtick = False
    stack: list[tuple[bool, bool]] = []
    i, n = 0, len(command)

    def flush() -> None:
        text = "".join(cur).strip()
        if text:
            out.append(text)
        cur.clear()

    while i < n:
        ch = command[i]
        nxt = command[i + 1] if i + 1 < n else ""
        if not single and ch == "\\":
            if nxt == "\n":
                i += 2
                continue
            if nxt:
                cur.append(ch + nxt)
                i += 2
                continue
        if not single and ch == "`":
            backtick = not backtick
        elif not single and not backtick and ch == "$" and nxt == "(":
            stack.append((single, double))
            single = double = False
            cur.append("$(")
            i += 2
            continue
        elif not backtick and stack and ch == ")" and not single and not double:
            single, double = stack.pop()
        elif not backtick and ch == "'" and not double:
            single = not single
        elif not backtick and ch == '"' and not single:
            double = not double
        if single or double or backtick or stack:
            cur.append(ch)
        elif (ch == "&" and nxt == "&") or (ch == "|" and nxt in ("|", "&")):
            flush()
            i += 1
        elif ch == ";" or ch == "\n":
            flush()
        elif ch == "&":
            if _prev_nonspace(command, i) in (">", "<"):
                cur.append(ch)
            else:
                flush()
        elif ch == "|":
            if _prev_nonspace(command, i) == ">":
                cur.append(ch)
            else:
                flush()
        elif ch == "\r" and nxt == "\n":
            flush()
            i += 1
        else:
            cur.append(ch)
        i += 1
    flush()
    return out


class _QuoteState:
    """Quote / backtick / ``$(`` tracking shared by the trailing-comment and ``&`` scanners."""

    def __init__(self) -> None:
        self.single = self.double = self.backtick = self.escape = False
        self.depth = 0

    def step(self, text: str, i: int) -> tuple[bool, int]:
        """Advance over ``text[i]``; return (character is at top level, characters consumed)."""
        ch = text[i]
        if self.single:
            self.single = ch != "'"
            return False, 1
        if self.backtick or self.double or self.escape:
            if self.escape:
                self.escape = False
            elif ch == "\\":
                self.escape = True
            elif self.backtick:
                self.backtick = ch != "`"
            elif ch == '"':
                self.double = False
            elif ch == "$" and text[i + 1 : i + 2] == "(":
                self.depth += 1
                return False, 2
            elif ch == ")" and self.depth:
                self.depth -= 1
            return False, 1
        if ch == "\\":
            self.escape = True
        elif ch in "'\"`":
            self.single, self.double, self.backtick = ch == "'", ch == '"', ch == "`"
        elif ch == "$" and text[i + 1 : i + 2] == "(":
            self.depth += 1
            return False, 2
        elif ch == ")" and self.depth:
            self.depth -= 1
        else:
            return self.depth == 0, 1
        return False, 1


def split_trailing_comment(command: str, keep_after_newline: bool = True) -> tuple[str, str | None]:
    """Cut the first top-level ``#`` comment: (command without it, comment text or ``None``)."""
    state = _QuoteState()
    i = 0
    while i < len(command):
        top, used = state.step(command, i)
        if top and command[i] == "#" and (i == 0 or command[i - 1].isspace()):
            newline = command.find("\n", i + 1)
            if newline == -1:
                return command[:i], command[i + 1 :]
            kept = command[:i] + (command[newline:] if keep_after_newline else "")
            return kept, command[i + 1 : newline]
        i += used
    return command, None


def has_trailing_background_operator(command: str) -> bool:
    """True when the command (comment removed) ends with a top-level bare ``&``."""
    text = split_trailing_comment(command, keep_after_newline=False)[0].rstrip()
    if not text.endswith("&"):
        return False
    last = len(text) - 1
    before = text[:last].rstrip()
    if before and before[-1] in "&|\\":
        return False
    state = _QuoteState()
    i = 0
    while i <= last:
        top, used = state.step(text, i)
        if i == last:
            return top
        i += used
    return False


def strip_trailing_ampersand(command: str) -> str:
    """Drop one trailing ``&`` (not ``&&`` or ``\\&``) and the spaces around it; else unchanged."""
    trimmed = command.rstrip()
    if not trimmed.endswith("&") or trimmed.endswith(("&&", "\\&")):
        return command
    return trimmed[:-1].rstrip()


def tokenize(segment: str) -> list[str] | None:
    """Words of a segment after quote removal, operators dropped; ``None`` if quotes don't close."""
    lexer = shlex.shlex(segment, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:
        return None
    return [t for t in tokens if not _OPERATOR_TOKEN.fullmatch(t)]


def take_leading_token(text: str) -> tuple[str, str] | None:
    """The first shell word of ``text`` (quotes kept) and the rest; ``None`` if it never closes."""
    text = text.lstrip()
    state = _QuoteState()
    i = 0
    while i < len(text):
        if text[i].isspace() and not (
            state.single or state.double or state.backtick or state.escape or state.depth
        ):
            break
        i += state.step(text, i)[1]
    if i == 0 or state.single or state.double or state.backtick or state.escape or state.depth:
        return None
    return text[:i], text[i:]


_WRAPPER_NAMES = word_set("sh bash zsh cmd powershell pwsh")
_REST_CONSUMERS = word_set("cmd powershell pwsh")


def _unquote(token: str) -> tuple[str, str]:
    """Strip one pair of matching outer quotes: (value, quote character or "")."""
    token = token.strip()
    if len(token) >= 2 and token[0] == token[-1] and token[0] in "'\"":
        return token[1:-1], token[0]
    return token, ""


def _wrapper_base(token: str) -> str:
    base = _unquote(token)[0].replace("\\", "/").lower().rsplit("/", 1)[-1]
    return base[:-4] if base.endswith(".exe") else base


def _is_command_marker(wrapper: str, token: str) -> bool:
    flag = _unquote(token)[0].replace("\\", "/").lower()
    if wrapper == "cmd":
        return flag == "/c"
    if wrapper in ("powershell", "pwsh"):
        return flag in ("-command", "-c")
    return re.fullmatch(r"-[a-z]*c[a-z]*", flag) is not None


def strip_wrapper_text(command: str) -> str:
    """Qwen Code's ``stripShellWrapper``: the script of ``[VAR=…] bash|sh|zsh [flags] -c 'S'``.

    A text-level rule (used by the validation guards, as in Qwen Code): what follows the script
    is ignored. Anything else comes back trimmed of edge whitespace.
    """
    trimmed = command.strip(" \t\r\n")
    rest = trimmed
    while (token := take_leading_token(rest)) and ENV_ASSIGNMENT.match(_unquote(token[0])[0]):
        rest = token[1]
    head = take_leading_token(rest)
    wrapper = _wrapper_base(head[0]) if head else ""
    if head is None or wrapper not in _WRAPPER_NAMES:
        return trimmed
    rest = head[1]
    while (token := take_leading_token(rest)) is not None:
        if _is_command_marker(wrapper, token[0]):
            script = take_leading_token(token[1])
            if script is None:
                return trimmed
            inner, quote = _unquote(script[0])
            if not quote and wrapper in _REST_CONSUMERS:
                return token[1].lstrip() or trimmed
            return inner or trimmed
        flag = _unquote(token[0])[0].replace("\\", "/").lower()
        if not (flag.startswith(("-", "/")) or flag == "+o"):
            return trimmed
        rest = token[1]
        inline = "=" in token[0] or ":" in token[0]
        operand = ("-o", "+o", "-executionpolicy", "-file", "-encodedcommand")
        if flag in operand and not inline:
            value = take_leading_token(rest)
            if value is None:
                return trimmed
            rest = value[1]
    return trimmed


def _basename(token: str) -> str:
    return re.split(r"[\\/]", token)[-1]


def resolve_parameter_head(word: str) -> str | None:
    """Expand a word that is just ``$X``, ``${X}``, ``${X:-d}`` or ``${X-d}`` (optionally quoted).

    Returns ``None`` when the word is something else, else the expansion from ``os.environ``.
    """
    m = _PARAM_HEAD.fullmatch(word)
    if not m:
        return None
    name = m.group(2) or m.group(5)
    op = m.group(3)
    value = os.environ.get(name)
    use_default = op is not None and (not value if op == ":-" else value is None)
    if use_default:
        default = m.group(4) or ""
        if len(default) >= 2 and default[0] == default[-1] and default[0] in "'\"":
            default = default[1:-1]
        return default
    return value or ""


def first_root(segment: str, _depth: int = 0) -> str | None:
    """The root command of one segment (Qwen Code's ``getCommandRoot``), basename only."""
    segment = segment.strip()
    if not segment:
        return None
    rest = segment
    while (token := take_leading_token(rest)) and ENV_ASSIGNMENT.match(token[0].strip("'\"")):
        rest = token[1]
    head = take_leading_token(rest)
    if head is not None and _depth < 8:
        expanded = resolve_parameter_head(head[0])
        if expanded is not None:
            if head[0].startswith('"'):
                return _basename(expanded) if expanded else None
            fields = expanded.split()
            return _basename(fields[0]) if fields else first_root(head[1], _depth + 1)
    tokens = tokenize(segment)
    if tokens is None:
        m = re.match(r"\"([^\"]+)\"|'([^']+)'|(\S+)", segment)
        return _basename(m.group(1) or m.group(2) or m.group(3)) if m else None
    index = 0
    while index < len(tokens) and ENV_ASSIGNMENT.match(tokens[index]):
        index += 1
    return _basename(tokens[index]) if index < len(tokens) and tokens[index] else None
