"""The paths a read-only command names outside the workspace.

In ``default`` mode a read-only command (``cat``, ``head``, ``grep``, ``ls``, ``git diff`` …) runs
without asking. That must not let it read ``/etc/shadow`` or ``~/.ssh/id_rsa``: a read-only
command that names a path outside the workspace asks like any other. :func:`outside_paths` lists
such names; every argument counts as a possible path (a pattern that looks like an outside path
asks too), except those of programs that never open their arguments (``echo``, ``printf``,
``pwd``, ``which``, ``basename``, ``dirname``, ``printenv``, ``whoami``). For each argument and
each input redirection (``< FILE``):

* an option's value counts (``--file=/etc/passwd``, ``-f/etc/passwd``);
* ``~`` and ``~user`` are expanded; an argument with a parameter (``$HOME/x``), a substitution,
  ``~+`` or ``~-`` (``$PWD``/``$OLDPWD``) is unknown, so it counts as outside;
* brace expansion is done (``{/etc/passwd,a}``), globs are expanded where the shell would and
  every match is checked (``dirlink/*`` through a symlink); a glob component starting with a dot
  (``.*``) counts as outside, since older shells let it match ``..``;
* relative paths are resolved against the command's directory and against every ``cd``/``pushd``
  target met before (any of them may be current); ``cd`` with no target (home), ``cd -`` and
  ``popd`` make the directory unknown;
* "inside" is decided by the caller on the resolved path (the workspace resolves symlinks), and
  ``/dev/null``, ``/dev/zero``, ``/dev/std{in,out,err}``, ``/dev/[u]random`` and ``/dev/tty``
  are allowed.
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Callable

from qwen_tools.shell.braces import expand_braces
from qwen_tools.shell.sed_awk import has_brace_expansion
from qwen_tools.shell.syntax import Script, Word, iter_commands
from qwen_tools.shell.text_scan import word_set

__all__ = ["outside_paths"]

_NO_FILE_PROGRAMS = word_set("echo printf pwd whoami which where basename dirname printenv")
_DEVICES = frozenset(
    [
        "/dev/null",
        "/dev/zero",
        "/dev/stdin",
        "/dev/stdout",
        "/dev/stderr",
        "/dev/random",
        "/dev/urandom",
        "/dev/tty",
    ]
)
_GLOB = re.compile(r"[*?\[]")
_MAX_MATCHES = 10_000
_UNKNOWN_DIRECTORY = "(a directory known only when the command runs)"


def _candidates(word: Word) -> list[str] | None:
    """The path-like strings one argument may stand for; ``None`` when unknown until it runs."""
    if word.params or word.subs:
        return None
    text = word.text
    if text.startswith("-") and text != "-":
        if "=" in text:
            text = text.split("=", 1)[1]
        else:
            found = re.search(r"[/~]|\.\.", text[1:])
            if found is None:
                return []
            text = text[1 + found.start() :]
    if not text:
        return []
    if not word.fully_quoted and has_brace_expansion(word.raw):
        return expand_braces(text)
    return [text]


def _expand_user(path: str, home: str) -> str | None:
    """``~`` and ``~user`` expanded; ``None`` for ``~+``, ``~-`` (``$PWD``, ``$OLDPWD``) or an
    unknown user, whose meaning is only known when the command runs."""
    if path == "~" or path.startswith("~/"):
        return home + path[1:]
    if path.startswith("~"):
        expanded = os.path.expanduser(path)
        return None if expanded == path else expanded
    return path


def _resolved(path: str, bases: list[str], globbed: bool) -> list[str] | None:
    """Absolute paths ``path`` may name from any base; ``None`` when that can't be known."""
    absolute = [path] if os.path.isabs(path) else [os.path.join(base, path) for base in bases]
    if not globbed or not _GLOB.search(path):
        return absolute
    if any(part.startswith(".") and _GLOB.search(part) for part in path.split("/")):
        return None  # ``.*`` may match ``..``
    out: list[str] = []
    for pattern in absolute:
        matches = glob.glob(pattern)
        if len(matches) > _MAX_MATCHES:
            return None
        out.extend(matches or [pattern])
    return out


def _outside(word: Word, bases: list[str], inside: Callable[[str], bool], home: str) -> list[str]:
    candidates = _candidates(word)
    if candidates is None:
        return [word.raw]
    found: list[str] = []
    for candidate in candidates:
        expanded = _expand_user(candidate, home)
        if expanded is None:
            found.append(word.raw)
            continue
        if os.path.normpath(expanded) in _DEVICES:
            continue
        paths = _resolved(expanded, bases, globbed=not word.fully_quoted)
        if paths is None:
            found.append(word.raw)
        else:
            found.extend(p for p in paths if not inside(p))
    return found


def outside_paths(
    script: Script, cwd: str, inside: Callable[[str], bool], home: str | None = None
) -> list[str]:
    """The outside paths (or unknown arguments) a read-only ``script`` run in ``cwd`` names."""
    home = home or os.path.expanduser("~")
    bases = [cwd]
    found: list[str] = []
    for command in iter_commands(script, into_substitutions=True):
        for redirect in command.redirects:
            if redirect.op in ("<", "<>") and redirect.target is not None:
                found.extend(_outside(redirect.target, bases, inside, home))
        if not command.words:
            continue
        program = command.words[0].text.rsplit("/", 1)[-1].lower()
        args = list(command.words[1:])
        if program in ("cd", "pushd", "popd"):
            targets = [w for w in args if not w.text.startswith("-") or w.text == "-"]
            if program == "popd" or not targets or targets[0].text == "-":
                found.append(_UNKNOWN_DIRECTORY)
                continue
            outside = _outside(targets[0], bases, inside, home)
            found.extend(outside)
            text = _expand_user(targets[0].text, home)
            if not outside and text is not None:
                bases = list(dict.fromkeys([*bases, *(os.path.join(b, text) for b in bases)]))
            continue
        if program in _NO_FILE_PROGRAMS:
            continue
        for word in args:
            found.extend(_outside(word, bases, inside, home))
    return found
