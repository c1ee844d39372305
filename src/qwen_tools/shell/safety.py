"""Classify a parsed command as ``read-only``, ``write`` or ``unknown`` (Qwen Code's AST rules).

The verdict of a script is the strictest verdict of its parts: simple commands (program rules
from :mod:`.safety_rules`), their redirections (``>``, ``>>``, ``&>``, ``&>>``, ``>|`` and
``>&FILE`` write; ``>&2`` and ``2>&1`` don't), substitutions (at least ``unknown``, and the
verdict of what they run), environment prefixes (``unknown``), loops/conditionals (at least
``unknown``) and function definitions (``unknown``). A separate check, which needs the working
directory, makes a git command unsafe when the repository's configuration names a program git
would run (:mod:`.git_config_risk`).
"""

from __future__ import annotations

import re

from qwen_tools.shell.git_config_risk import script_config_risk
from qwen_tools.shell.safety_rules import classify_invocation, has_help
from qwen_tools.shell.sed_awk import Safety, has_pattern_expansion, merge_safety
from qwen_tools.shell.syntax import Node, Redirect, Script, SimpleCommand, Word
from qwen_tools.shell.text_scan import word_set

__all__ = [
    "Safety",
    "command_safety",
    "git_config_makes_unsafe",
    "node_safety",
    "redirect_safety",
    "script_safety",
    "word_substitution_safety",
]

_WRITE_REDIRECTS = frozenset((">", ">>", "&>", "&>>", ">|", "<>"))
_EXPANSION_SENSITIVE = word_set("awk find git printf rg ripgrep sed sort tree uniq")
_AT_P = re.compile(r"[A-Za-z_][A-Za-z0-9_]*@P")
_CHILD_KINDS = frozenset(("list", "pipeline", "subshell", "brace"))


def _heredoc_substitutes(redirect: Redirect) -> bool:
    if redirect.heredoc is None or redirect.heredoc_quoted:
        return False
    body = redirect.heredoc
    return "$(" in body or "`" in body


def word_substitution_safety(word: Word) -> Safety:
    """At least ``unknown`` when the word runs something; the verdict of what it runs."""
    if word.subs:
        return merge_safety("unknown", *(script_safety(sub) for sub in word.subs))
    for param in word.params:
        if _AT_P.fullmatch(param) or "$(" in param or "`" in param:
            return "unknown"
    return "read-only"


def redirect_safety(redirects: tuple[Redirect, ...]) -> Safety:
    """The verdict of a list of redirections."""
    result: Safety = "read-only"
    for redirect in redirects:
        if redirect.target is not None:
            result = merge_safety(result, word_substitution_safety(redirect.target))
        if _heredoc_substitutes(redirect):
            result = merge_safety(result, "unknown")
        if redirect.op in _WRITE_REDIRECTS:
            return "write"
        if redirect.op == ">&":
            if redirect.target is None:
                continue
            target = redirect.target.text
            if re.fullmatch(r"\d+|-", target):
                continue
            result = merge_safety(
                result, "unknown" if re.search(r"[$`*?()\[\]{}]", target) else "write"
            )
    return result


def _has_expansion(word: Word) -> bool:
    if word.params:
        return True
    return not word.fully_quoted and has_pattern_expansion(word.raw)


def command_safety(command: SimpleCommand, siblings: int = 1) -> Safety:
    """The verdict of one simple command, its redirections and substitutions included."""
    subs = [word_substitution_safety(w) for w in (*command.assignments, *command.words)]
    if not command.words:
        base: Safety = "read-only"
        if command.assignments and not command.redirects and siblings != 1:
            base = "unknown"
        return merge_safety(base, redirect_safety(command.redirects), *subs)
    raw_root = command.words[0].raw
    root = raw_root.lower()
    args = [w.text for w in command.words[1:]]
    if raw_root != root:
        result: Safety = "unknown"
    else:
        result = classify_invocation(root, args)
    if (
        result == "read-only"
        and root in _EXPANSION_SENSITIVE
        and any(_has_expansion(w) for w in command.words[1:])
    ):
        result = "unknown"
    if result == "write" and root not in ("find", "git", "sed", "sort", "tree") and has_help(args):
        result = "unknown"
    if command.assignments:
        result = merge_safety(result, "unknown")
    return merge_safety(result, redirect_safety(command.redirects), *subs)


def node_safety(node: Node, siblings: int = 1) -> Safety:
    """The verdict of one statement; ``siblings`` counts the statements beside it."""
    if isinstance(node, SimpleCommand):
        return command_safety(node, siblings)
    if node.kind == "function":
        return "unknown"
    floor: Safety = "read-only" if node.kind in _CHILD_KINDS else "unknown"
    count = len(node.children)
    return merge_safety(
        floor,
        *(node_safety(child, count) for child in node.children),
        *(word_substitution_safety(w) for w in node.words),
        redirect_safety(node.redirects),
    )


def script_safety(script: Script) -> Safety:
    """The verdict of a whole parsed script (``unknown`` when it is empty)."""
    if not script:
        return "unknown"
    return merge_safety(*(node_safety(node, len(script)) for node in script))


def git_config_makes_unsafe(script: Script, cwd: str) -> bool:
    """True when a git command here could run a program its repository's configuration names.

    See :mod:`.git_config_risk` (risky keys, submodules, includes); a ``cd``/``pushd`` before a
    git command makes it unsafe outright (the repository is unknown).
    """
    return script_config_risk(script, cwd, lambda _path: False) is not None
