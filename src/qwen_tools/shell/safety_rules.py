"""Per-program rules: does ``ROOT ARGS…`` only read (``read-only``), write, or is it ``unknown``?

The tables and decisions follow Qwen Code 0.24.4's tree-sitter classifier (``shellAstParser``):
a fixed set of read-only programs, a fixed set of writers, and argument-level rules for ``git``,
``find``, ``sed``, ``awk``, ``sort``, ``tree``, ``uniq``, ``tee``, ``dd``, ``kill``/``pkill``/
``killall``, ``printf -v``, pagers and ``rg --pre``. Anything else is ``unknown``.
"""

from __future__ import annotations

import re

from qwen_tools.shell.sed_awk import Safety, classify_awk, classify_sed, merge_safety
from qwen_tools.shell.text_scan import word_set

__all__ = ["READ_ONLY_ROOTS", "WRITE_ROOT", "classify_invocation", "has_help"]

READ_ONLY_ROOTS = word_set(
    "awk basename cat cd column cut df dirname du echo find git grep head less ls more "
    "printenv printf ps pwd rg ripgrep sed sort stat tail tree uniq wc which where whoami"
)
WRITE_ROOT = re.compile(
    r"(?:chgrp|chmod|chown|cp|install|ln|mkdir|mkfifo|mknod|mv|rename|rm|rmdir|shred|touch"
    r"|truncate|unlink)"
)
READ_ONLY_GIT = word_set(
    "blame branch cat-file diff grep log ls-files remote rev-parse show status describe"
)
_WRITE_GIT = re.compile(
    r"(?:add|am|checkout|cherry-pick|clean|clone|commit|fetch|gc|init|merge|mv|pull|push|rebase"
    r"|reset|restore|revert|rm|stash|switch)"
)
_WRITE_REMOTE_ACTION = re.compile(r"(?:add|remove|rm|rename|set-branches|set-head|set-url|update)")
_REMOTE_ACTION_WORD = re.compile(
    r"(?:add|remove|rm|rename|set-branches|set-head|set-url|update|prune)", re.IGNORECASE
)
_GIT_HELPER_OPTION = re.compile(
    r"--(?:ext-diff|filters|show-signature|textconv|open-files-in-pager)(?:=|$)"
)
_GIT_COMMIT_VALUE_OPTION = re.compile(
    r"-[CcFmt]|--(?:author|cleanup|date|file|fixup|message|pathspec-from-file|reedit-message"
    r"|reuse-message|squash|template|trailer)"
)
_WRITE_BRANCH_FLAG = re.compile(
    r"-[cCdDmMu](?:.|$)|--(?:delete|move|copy|set-upstream(?:-to)?|unset-upstream"
    r"|create-reflog|edit-description)(?:=|$)"
)
_LIST_BRANCH_FLAG = re.compile(
    r"(?:-[alr]|--(?:all|list|remotes|show-current|contains|no-contains|merged|no-merged"
    r"|points-at))(?:=|$)"
)
_FIND_WRITE_PREFIXES = ("-fls", "-fprint", "-fprintf")
_FIND_VALUE_PREDICATE = re.compile(
    r"-(?:[ac]?newer|newer[a-z]{2}|[acm](?:min|time)|context|fstype|gid|group"
    r"|i?(?:lname|name|path|regex)|inum|links|maxdepth|mindepth|path|perm|printf|regextype"
    r"|samefile|size|type|uid|used|user|wholename|xtype)"
)
_UNIQ_VALUE_OPTIONS = frozenset(
    ("-f", "--skip-fields", "-s", "--skip-chars", "-w", "--check-chars")
)
_HELP = re.compile(r"--help|--version", re.IGNORECASE)
_SIGNAL_ZERO = re.compile(r"(?:SIG)?0+", re.IGNORECASE)
_GLOBBY = re.compile(r"[$`*?()\[\]{}]")


def _before_terminator(args: list[str]) -> list[str]:
    return args[: args.index("--")] if "--" in args else args


def has_help(args: list[str], value_options: tuple[str, ...] = ()) -> bool:
    """``--help``/``--version`` before ``--`` (not as the value of one of ``value_options``)."""
    options = _before_terminator(args)
    return any(
        _HELP.fullmatch(arg) and (index == 0 or options[index - 1] not in value_options)
        for index, arg in enumerate(options)
    )


def _without_option_values(args: list[str], option: re.Pattern[str]) -> list[str]:
    result: list[str] = []
    i = 0
    while i < len(args):
        result.append(args[i])
        if option.fullmatch(args[i]):
            i += 1
        i += 1
    return result


def _output_option(args: list[str], long: bool = True, short: bool = True) -> Safety | None:
    for i, arg in enumerate(args):
        if arg == "--":
            break
        if (short and arg == "-o") or (long and arg == "--output"):
            return "write" if i + 1 < len(args) and args[i + 1] else "unknown"
        if short and arg.startswith("-o") and len(arg) > 2:
            return "write"
        if long and arg.startswith("--output="):
            return "write" if len(arg) > 9 else "unknown"
    return None


def _git_remote(rest: list[str], helper: bool) -> Safety:
    action = next((a for a in rest if not a.startswith("-")), "").lower()
    if not action:
        return "unknown" if helper else "read-only"
    if action in ("show", "get-url"):
        risky = any(_REMOTE_ACTION_WORD.fullmatch(a) for a in rest)
        return "unknown" if risky or helper else "read-only"
    if _WRITE_REMOTE_ACTION.fullmatch(action):
        return "write"
    if action == "prune":
        return "unknown" if any(a in ("-n", "--dry-run") for a in rest) else "write"
    return "unknown"


def _git_branch(rest: list[str], helper: bool) -> Safety:
    actions = _without_option_values(rest, re.compile(r"--(?:format|sort)"))
    options = _before_terminator(actions)
    if has_help(actions):
        return "unknown"
    if any(_WRITE_BRANCH_FLAG.match(a) for a in actions):
        return "write" if any(_WRITE_BRANCH_FLAG.match(a) for a in options) else "unknown"
    if len(actions) != len(rest):
        return "unknown"
    if any(_LIST_BRANCH_FLAG.match(a) for a in options):
        return "read-only"
    if any(not a.startswith("-") for a in rest):
        return "write"
    if "--" in rest or helper:
        return "unknown"
    return "read-only" if not rest else "unknown"


def _git(args: list[str]) -> Safety:
    first = args[0] if args else ""
    if not first or first == "--version":
        return "read-only"
    if first == "--help":
        return "read-only" if len(args) == 1 else "unknown"
    if first.startswith("-"):
        return "unknown"
    sub = first.lower()
    rest = args[1:]
    options = _before_terminator(rest)
    helper = (
        any(_GIT_HELPER_OPTION.match(a) for a in options)
        or (sub == "grep" and any(a.startswith("-O") for a in options))
        or (sub in ("log", "show") and any(re.search(r"%G[?GKFPST]", a) for a in options))
    )
    if _WRITE_GIT.fullmatch(sub):
        effective = (
            _without_option_values(rest, _GIT_COMMIT_VALUE_OPTION) if sub == "commit" else rest
        )
        effective_options = _before_terminator(effective)
        dry_run = "--dry-run" in effective_options or (
            "-n" in effective_options and sub in ("add", "clean", "mv", "push", "rm")
        )
        return "unknown" if has_help(effective) or dry_run else "write"
    if sub not in READ_ONLY_GIT:
        return "unknown"
    if sub in ("diff", "log", "show"):
        output = _output_option(rest, long=True, short=False)
        if output:
            return output
    if sub == "blame" and any(re.match(r"--output(?:=|$)", a) for a in options):
        return "unknown"
    if sub != "branch" and has_help(rest):
        return "unknown"
    if sub == "remote":
        return _git_remote(rest, helper)
    if sub == "branch":
        return _git_branch(rest, helper)
    return "unknown" if helper else "read-only"


def _find(args: list[str]) -> Safety:
    result: Safety = "read-only"
    i = 0
    while i < len(args):
        lower = args[i].lower()
        if lower == "--":
            return merge_safety(result, "unknown")
        if lower in ("--help", "--version"):
            return "unknown"
        if _FIND_VALUE_PREDICATE.fullmatch(lower):
            i += 1
            if i >= len(args) or not re.match(r"[^-]", args[i]):
                result = merge_safety(result, "unknown")
        elif lower == "-delete":
            result = "write"
        elif lower.startswith(_FIND_WRITE_PREFIXES):
            result = "write"
            i += 2 if lower.startswith("-fprintf") else 1
        elif lower in ("-exec", "-execdir", "-ok", "-okdir"):
            invoked = args[i + 1].lower() if i + 1 < len(args) else ""
            end = next((j for j in range(i + 2, len(args)) if args[j] in (";", "\\;", "+")), -1)
            invoked_args = args[i + 2 : end] if end >= 0 else args[i + 2 :]
            nested: Safety = "unknown"
            if invoked and WRITE_ROOT.fullmatch(invoked):
                nested = "unknown" if has_help(invoked_args) else "write"
            elif invoked in ("kill", "killall", "pkill"):
                nested = process_safety(invoked, invoked_args)
            result = merge_safety(result, nested)
            i = end if end >= 0 else len(args)
        i += 1
    return result


def _uniq(args: list[str]) -> Safety:
    positional = 0
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            return "write" if len(args) - i + positional > 2 else "read-only"
        if arg in _UNIQ_VALUE_OPTIONS:
            i += 1
            if i >= len(args) or not args[i]:
                return "unknown"
        elif arg == "-" or not arg.startswith("-"):
            positional += 1
        i += 1
    return "write" if positional >= 2 else "read-only"


def process_safety(root: str, args: list[str]) -> Safety:
    """``kill``/``killall``/``pkill``: a write unless it only lists, probes (signal 0) or helps."""
    options = _before_terminator(args)
    value_options = ["--signal"]
    if root != "pkill":
        value_options.append("-s")
    if root == "kill":
        value_options.append("-n")
    if not args or has_help(args) or any(a in ("-h", "-V", "-help", "-version") for a in options):
        return "unknown"
    for index, arg in enumerate(options):
        after_value_option = index > 0 and options[index - 1] in value_options
        if (
            (_GLOBBY.search(arg) and (arg.startswith("-") or after_value_option))
            or re.match(r"-(?:[lL0]|-(?:.*list|table)(?:=|$))", arg)
            or (arg.startswith("--signal=") and _SIGNAL_ZERO.fullmatch(arg[9:]))
            or re.fullmatch(r"-(?:SIG)?0+", arg, re.IGNORECASE)
            or (root == "kill" and re.fullmatch(r"-[sn](?:SIG)?0+", arg, re.IGNORECASE))
            or (root == "killall" and re.fullmatch(r"-s(?:SIG)?0+", arg, re.IGNORECASE))
            or (after_value_option and _SIGNAL_ZERO.fullmatch(arg))
        ):
            return "unknown"
    return "write"


def _sort_or_tree(root: str, args: list[str]) -> Safety:
    result = _output_option(args, long=root == "sort") or "read-only"
    if has_help(args, ("-o", "--output")):
        result = "unknown"
    if any(
        re.match(r"--o|-[^-]+o", a) or (root == "sort" and a.startswith("--co"))
        for a in _before_terminator(args)
    ):
        result = merge_safety(result, "unknown")
    return result


def classify_invocation(root: str, args: list[str]) -> Safety:
    """Classify one program run, before expansions, assignments and redirections are considered.

    ``root`` is the lower-cased program name as written; ``args`` are the unquoted arguments.
    """
    if WRITE_ROOT.fullmatch(root):
        return "unknown" if has_help(args) else "write"
    if root in ("kill", "killall", "pkill"):
        return process_safety(root, args)
    if root == "git":
        return _git(args)
    if root == "find":
        return _find(args)
    if root == "sed":
        return classify_sed(args)
    if root == "awk":
        return classify_awk(args)
    if root in ("sort", "tree"):
        return _sort_or_tree(root, args)
    if root == "uniq":
        return "unknown" if has_help(args) else _uniq(args)
    if root == "tee":
        writes = any(
            not a.startswith("-") or (i > 0 and args[i - 1] == "--") for i, a in enumerate(args)
        )
        return "write" if writes else "unknown"
    if root == "dd":
        return "write" if any(a.startswith("of=") for a in args) else "unknown"
    options = _before_terminator(args)
    if (
        (root == "printf" and any(re.match(r"-[^-]*v", a) for a in options))
        or root in ("less", "more")
        or (
            root in ("rg", "ripgrep")
            and any(
                re.match(r"--(?:hostname-bin|pre)(?:=|$)|--search-zip$|-[^-]*z", a) for a in options
            )
        )
    ):
        return "unknown"
    return "read-only" if root in READ_ONLY_ROOTS else "unknown"
