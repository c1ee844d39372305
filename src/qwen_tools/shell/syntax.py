"""A typed syntax tree for bash commands, built from bashlex's parse.

bashlex is untyped and has a few gaps; this module converts its nodes into small frozen
dataclasses (:class:`SimpleCommand`, :class:`Group`, :class:`Word`, :class:`Redirect`) and
returns ``None`` for anything bashlex cannot parse, so callers can fall back to text scanning.
Quoted heredoc delimiters and arithmetic expansions (which bashlex rejects) are rewritten
first, keeping every offset.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from qwen_tools.shell.substitution import prepare_for_bashlex

__all__ = [
    "Group",
    "Node",
    "Redirect",
    "Script",
    "SimpleCommand",
    "Word",
    "iter_commands",
    "parse_script",
]


@dataclass(frozen=True)
class Word:
    """One shell word: ``text`` after quote removal, ``raw`` as written."""

    text: str
    raw: str
    params: tuple[str, ...] = ()  # bodies of $x / ${...} expansions, e.g. "x@P", "a:-b"
    subs: tuple[Script, ...] = ()  # $(…), `…`, <(…), >(…)

    @property
    def fully_quoted(self) -> bool:
        """True for a single quoted string (``'…'`` or ``"…"``), where globs don't expand."""
        raw = self.raw
        return len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"" and raw[0] not in raw[1:-1]


@dataclass(frozen=True)
class Redirect:
    """``op`` is bashlex's operator (``>``, ``>>``, ``>&``, ``<``, ``<<``, ``<<<``, ``&>`` …)."""

    op: str
    fd: int | None
    target: Word | None  # None when the target is a descriptor number or "-"
    dup: str | None = None  # "1", "-" for >&1, >&-
    heredoc: str | None = None
    heredoc_quoted: bool = False


@dataclass(frozen=True)
class SimpleCommand:
    """``FOO=1 name args… redirects`` spanning ``source[start:end]``."""

    start: int
    end: int
    assignments: tuple[Word, ...]
    words: tuple[Word, ...]
    redirects: tuple[Redirect, ...]


@dataclass(frozen=True)
class Group:
    """A list, pipeline, subshell, brace group, loop, conditional or function definition.

    ``kind`` is one of ``list``, ``pipeline``, ``subshell``, ``brace``, ``if``, ``for``,
    ``while``, ``until``, ``function``. ``words`` holds loop words (``for x in WORDS``).
    """

    kind: str
    start: int
    end: int
    children: tuple[Node, ...]
    words: tuple[Word, ...] = ()
    redirects: tuple[Redirect, ...] = ()


Node = SimpleCommand | Group
Script = tuple[Node, ...]

_PLAIN_GROUPS = {"if", "for", "while", "until"}


class _Unsupported(Exception):
    """A bashlex node this converter does not know."""


class _Converter:
    def __init__(self, source: str, quoted_heredocs: frozenset[int]) -> None:
        self.source = source
        self.quoted_heredocs = quoted_heredocs

    def raw(self, node: Any) -> str:
        start, end = node.pos
        return self.source[start:end]

    def word(self, node: Any) -> Word:
        params: list[str] = []
        subs: list[Script] = []
        stack = list(getattr(node, "parts", []) or [])
        while stack:
            part = stack.pop(0)
            if part.kind == "parameter":
                params.append(str(getattr(part, "value", "")))
            elif part.kind in ("commandsubstitution", "processsubstitution"):
                subs.append((self.node(part.command),))
            elif part.kind != "tilde":
                stack.extend(getattr(part, "parts", []) or [])
        return Word(str(node.word), self.raw(node), tuple(params), tuple(subs))

    def redirect(self, node: Any) -> Redirect:
        fd = node.input if isinstance(getattr(node, "input", None), int) else None
        output = getattr(node, "output", None)
        heredoc = getattr(node, "heredoc", None)
        target: Word | None = None
        dup: str | None = None
        if isinstance(output, int | str):
            dup = str(output)
        elif output is not None:
            target = self.word(output)
        return Redirect(
            op=str(node.type),
            fd=fd,
            target=target,
            dup=dup,
            heredoc=str(heredoc.value) if heredoc is not None else None,
            heredoc_quoted=node.pos[0] in self.quoted_heredocs,
        )

    def command(self, node: Any) -> SimpleCommand:
        assignments: list[Word] = []
        words: list[Word] = []
        redirects: list[Redirect] = []
        for part in node.parts:
            if part.kind == "assignment" and not words:
                assignments.append(self.word(part))
            elif part.kind in ("word", "assignment"):
                words.append(self.word(part))
            elif part.kind == "redirect":
                redirects.append(self.redirect(part))
            else:
                raise _Unsupported(part.kind)
        start, end = node.pos
        return SimpleCommand(start, end, tuple(assignments), tuple(words), tuple(redirects))

    def node(self, node: Any) -> Node:
        kind = node.kind
        start, end = node.pos
        if kind == "command":
            return self.command(node)
        if kind in ("list", "pipeline"):
            skip = {"operator", "pipe", "reservedword"}
            children = tuple(self.node(p) for p in node.parts if p.kind not in skip)
            return Group(kind, start, end, children)
        if kind == "compound":
            items = node.list
            opener = items[0].word if items and items[0].kind == "reservedword" else ""
            children = tuple(self.node(p) for p in items if p.kind != "reservedword")
            redirects = tuple(self.redirect(r) for r in getattr(node, "redirects", []) or [])
            group_kind = {"(": "subshell", "{": "brace"}.get(opener, "list")
            return Group(group_kind, start, end, children, (), redirects)
        if kind in _PLAIN_GROUPS or kind == "function":
            children_list: list[Node] = []
            words: list[Word] = []
            for part in node.parts:
                if part.kind == "word":
                    if kind == "function" and not words and not children_list:
                        continue  # the function's name
                    words.append(self.word(part))
                elif part.kind != "reservedword":
                    children_list.append(self.node(part))
            return Group(kind, start, end, tuple(children_list), tuple(words))
        raise _Unsupported(kind)


_parse_lock = threading.Lock()  # bashlex's parser keeps state on a shared object


@functools.lru_cache(maxsize=256)
def parse_script(command: str) -> Script | None:
    """Parse ``command``; ``None`` when bashlex cannot (unsupported syntax, errors, empty text).

    Cached: the result is immutable.
    """
    if not command.strip():
        return None
    import bashlex  # type: ignore[import-untyped]  # imported on first use: ~0.1 s

    source, quoted = prepare_for_bashlex(command)
    try:
        with _parse_lock:
            parts = bashlex.parse(source)
        converter = _Converter(command, quoted)
        return tuple(converter.node(part) for part in parts)
    except Exception:
        return None


def iter_commands(nodes: Script, *, into_substitutions: bool = False) -> Iterator[SimpleCommand]:
    """Every simple command in source order; substitutions only when asked."""
    for node in nodes:
        if isinstance(node, SimpleCommand):
            if into_substitutions:
                for word in (*node.assignments, *node.words, *_redirect_words(node.redirects)):
                    for sub in word.subs:
                        yield from iter_commands(sub, into_substitutions=True)
            yield node
        else:
            if into_substitutions:
                for word in (*node.words, *_redirect_words(node.redirects)):
                    for sub in word.subs:
                        yield from iter_commands(sub, into_substitutions=True)
            yield from iter_commands(node.children, into_substitutions=into_substitutions)


def _redirect_words(redirects: tuple[Redirect, ...]) -> Iterator[Word]:
    for redirect in redirects:
        if redirect.target is not None:
            yield redirect.target
