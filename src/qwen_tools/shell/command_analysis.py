"""What a shell command does, as ``run_shell_command`` needs to know it before running it.

:func:`analyze_command` parses the command with bashlex (a real bash grammar) and reports its
root programs, whether it only reads (Qwen Code 0.24.4's rules: read-only programs, git
subcommands, no output redirection, no writers, no substitution), the sub-commands a
confirmation would list, and the ``Bash(root [subcommand] *)`` rules an "always allow" would
save. When bashlex rejects the syntax, the analysis falls back to a text split: never read-only,
roots and rules per segment, ``parse_ok=False``.

:func:`validate_shell_command` gives the tool-level rejections in Qwen Code's order and wording.

A ``bash -c 'SCRIPT'`` (also ``sh``/``zsh``, ``-lc`` …) that is the whole command is judged by
its script, as Qwen Code does; unlike 0.24.4, anything after the wrapper (``&& rm …``) keeps the
wrapper from being stripped, so it can't hide a second command.

:func:`read_only_refusal` is what a read-only command must also pass, where it runs, to run
without approval: it names no path outside the workspace (:mod:`.readonly_paths`) and runs no git
whose configuration names a program (:mod:`.git_config_risk`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

from qwen_tools.shell.git_config_risk import script_config_risk
from qwen_tools.shell.guards import (
    SELF_KILL_REJECTION,
    blocked_sleep_message,
    detect_self_kill,
    shell_wrapper_script,
)
from qwen_tools.shell.readonly_paths import outside_paths
from qwen_tools.shell.rules import command_rule
from qwen_tools.shell.safety import (
    Safety,
    command_safety,
    git_config_makes_unsafe,
    redirect_safety,
    script_safety,
)
from qwen_tools.shell.safety_rules import READ_ONLY_ROOTS
from qwen_tools.shell.sed_awk import merge_safety
from qwen_tools.shell.substitution import detect_command_substitution
from qwen_tools.shell.syntax import Group, Node, Script, SimpleCommand, iter_commands, parse_script
from qwen_tools.shell.text_scan import (
    ENV_ASSIGNMENT,
    first_root,
    has_trailing_background_operator,
    resolve_parameter_head,
    split_commands,
    strip_trailing_ampersand,
    strip_wrapper_text,
    tokenize,
)

__all__ = [
    "EMPTY_COMMAND_MESSAGE",
    "NO_COMMAND_ROOT_MESSAGE",
    "SELF_KILL_REJECTION",
    "SUBSTITUTION_WARNING",
    "TRAILING_AMPERSAND_MESSAGE",
    "CommandAnalysis",
    "Safety",
    "SubCommand",
    "analyze_command",
    "foreground_sleep_rejection",
    "get_command_roots",
    "is_read_only_command",
    "is_read_only_in_directory",
    "read_only_refusal",
    "split_commands",
    "strip_shell_wrapper",
    "strip_trailing_ampersand",
    "validate_command_text",
    "validate_shell_command",
]

SUBSTITUTION_WARNING = (
    "Contains command substitution ($(...), backticks, <(...), >(...), or ${parameter@P})."
)
EMPTY_COMMAND_MESSAGE = "Command cannot be empty."
TRAILING_AMPERSAND_MESSAGE = (
    'Background shell commands must not end with a bare "&". Remove the trailing "&" and rely '
    "on is_background: true instead."
)
NO_COMMAND_ROOT_MESSAGE = "Could not identify command root to obtain permission from user."

# Test and declaration commands: Qwen Code's grammar has no plain command there, so no rule.
_NO_RULE_ROOTS = frozenset(
    ("[", "[[", "export", "declare", "local", "readonly", "typeset", "unset")
)
# The narrower program list Qwen Code's scheduler uses to run shell calls in parallel.
_CONCURRENT_ROOTS = READ_ONLY_ROOTS - {
    "less", "more", "printf", "rg", "ripgrep", "sort", "tree", "uniq",
}  # fmt: skip


@dataclass(frozen=True)
class SubCommand:
    """One simple command of the (wrapper-stripped) command, as a confirmation lists it."""

    text: str
    root: str | None
    rule: str | None  # rule body, e.g. "npm install *" (shown as "Bash(npm install *)")
    read_only: bool


@dataclass(frozen=True)
class CommandAnalysis:
    """The analysis of one command string (see :func:`analyze_command`)."""

    command: str
    parse_ok: bool
    roots: tuple[str, ...]
    non_read_only_roots: tuple[str, ...]
    is_read_only: bool
    has_command_substitution: bool
    permission_rules: tuple[str, ...]
    safety: Safety  # of the command as given: what plan mode uses (before the git-config probe)
    stripped_command: str  # script of a whole-command ``bash -c`` wrapper, else the trimmed command
    subcommands: tuple[SubCommand, ...]
    concurrency_safe: bool  # Qwen Code's stricter test for running shell calls in parallel


def _dedupe(values: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(v for v in values if v))


def _basename(text: str) -> str:
    return text.replace("\\", "/").rsplit("/", 1)[-1]


def _command_root(command: SimpleCommand) -> str | None:
    words = list(command.words)
    while words:
        expanded = resolve_parameter_head(words[0].raw)
        if expanded is None:
            return _basename(words[0].text) or None
        if words[0].raw.startswith('"'):
            return _basename(expanded) if expanded else None
        if expanded.split():
            return _basename(expanded.split()[0])
        words.pop(0)
    return None


def _script_roots(script: Script) -> list[str]:
    roots: list[str] = []
    for command in iter_commands(script):
        if command.words:
            roots.append(_command_root(command) or "")
        for word in () if command.words else command.assignments:
            for sub in word.subs:  # ``x=$(date)`` runs ``date``
                roots.extend(_script_roots(sub))
    return roots


def _roots(command: str, script: Script | None) -> tuple[str, ...]:
    if script is None:
        return _dedupe([first_root(part) or "" for part in split_commands(command)])
    return _dedupe(_script_roots(script))


def _checked_safety(command: str, script: Script | None) -> Safety:
    if script is None:
        return "unknown"
    result = script_safety(script)
    if result == "read-only" and "\\\n" in command:
        joined = parse_script(command.replace("\\\n", ""))
        if joined is None or script_safety(joined) != "read-only":
            return "unknown"
    return result


def _ast_subcommands(source: str, nodes: Script, outer: Safety = "read-only") -> list[SubCommand]:
    found: list[SubCommand] = []
    for node in nodes:
        if isinstance(node, SimpleCommand):
            verdict = merge_safety(outer, command_safety(node))
            rule = None
            if node.words and node.words[0].raw not in _NO_RULE_ROOTS:
                rule = command_rule(node.words[0].raw, [w.raw for w in node.words[1:]])
            text = source[node.start : node.end]
            root = _command_root(node) if node.words else next(iter(_script_roots((node,))), None)
            found.append(SubCommand(text, root, rule, verdict == "read-only"))
        else:
            inner = merge_safety(outer, redirect_safety(node.redirects))
            found.extend(_ast_subcommands(source, node.children, inner))
    return found


def _text_subcommands(command: str) -> list[SubCommand]:
    found: list[SubCommand] = []
    for part in split_commands(command):
        script = parse_script(part)
        if script is not None:
            found.extend(_ast_subcommands(part, script))
            continue
        tokens = tokenize(part) or []
        while tokens and ENV_ASSIGNMENT.match(tokens[0]):
            tokens.pop(0)
        rule = None
        if tokens and tokens[0] not in _NO_RULE_ROOTS:
            rule = command_rule(tokens[0], tokens[1:])
        found.append(SubCommand(part, first_root(part), rule, False))
    return found


def _wrapper_script(script: Script | None) -> str | None:
    if script is None or len(script) != 1 or not isinstance(script[0], SimpleCommand):
        return None
    command = script[0]
    if command.redirects:
        return None
    return shell_wrapper_script([w.text for w in (*command.assignments, *command.words)])


def _walk(nodes: Script) -> list[Node]:
    out: list[Node] = []
    for node in nodes:
        out.append(node)
        if isinstance(node, Group):
            out.extend(_walk(node.children))
    return out


def _concurrency_safe(script: Script) -> bool:
    for node in _walk(script):
        if any(">" in r.op for r in node.redirects):
            return False
        if not isinstance(node, SimpleCommand):
            continue
        if node.assignments or not node.words:
            return False
        root = node.words[0].raw
        args = [w.text for w in node.words[1:]]
        if root not in _CONCURRENT_ROOTS:
            return False
        if root == "find" and args and args[-1].startswith("-"):
            return False
        if root == "sed" and any(
            a.startswith("-")
            and a not in ("-n", "-E", "-r", "-s", "-u", "-z", "--quiet", "--silent")
            for a in args
        ):
            return False
        if root == "git" and args[:1] == ["branch"] and args[1:] not in ([], ["--list"]):
            return False
    return True


@functools.lru_cache(maxsize=1024)
def analyze_command(command: str) -> CommandAnalysis:
    """Analyse ``command`` (cached). ``$VAR`` command names are resolved from ``os.environ``."""
    text = command.strip(" \t\r\n")
    script = parse_script(text)
    inner = _wrapper_script(script)
    stripped = text if inner is None else inner
    inner_script = script if inner is None else parse_script(inner)
    substitution = detect_command_substitution(command) or (
        inner is not None and detect_command_substitution(inner)
    )
    inner_safety = _checked_safety(stripped, inner_script)
    is_read_only = not substitution and inner_safety == "read-only"
    if inner_script is not None:
        subs = _ast_subcommands(stripped, inner_script)
    else:
        subs = _text_subcommands(stripped)
    effective = [s for s in subs if not s.read_only] or subs
    return CommandAnalysis(
        command=command,
        parse_ok=script is not None,
        roots=_roots(text, script),
        non_read_only_roots=() if is_read_only else _dedupe([s.root or "" for s in effective]),
        is_read_only=is_read_only,
        has_command_substitution=substitution,
        permission_rules=()
        if is_read_only
        else _dedupe([f"Bash({s.rule})" for s in effective if s.rule]),
        safety=_checked_safety(text, script),
        stripped_command=stripped,
        subcommands=tuple(subs),
        concurrency_safe=is_read_only
        and inner is None
        and script is not None
        and _concurrency_safe(script),
    )


def is_read_only_command(command: str) -> bool:
    """True when the command only reads (the default permission would be ``allow``)."""
    return analyze_command(command).is_read_only


def get_command_roots(command: str) -> list[str]:
    """The root program of every simple command, in order, without duplicates."""
    return list(analyze_command(command).roots)


def strip_shell_wrapper(command: str) -> str:
    """Qwen Code's ``stripShellWrapper`` (text level; what follows the script is ignored).

    The validation guards use it, as Qwen Code does. The read-only decision instead uses
    :attr:`CommandAnalysis.stripped_command`, which strips only a wrapper that is the whole
    command.
    """
    return strip_wrapper_text(command)


def is_read_only_in_directory(command: str, cwd: str) -> bool:
    """:func:`is_read_only_command`, plus the local git config check for ``git diff``/``status``.

    Runs ``git config`` (1 s timeout) when the command uses those; call it off the event loop.
    """
    analysis = analyze_command(command)
    if not analysis.is_read_only:
        return False
    script = parse_script(analysis.stripped_command)
    return script is not None and not git_config_makes_unsafe(script, cwd)


def read_only_refusal(command: str, cwd: str, inside: Callable[[str], bool]) -> str | None:
    """Why a read-only ``command`` run in ``cwd`` still needs approval, or ``None`` if it doesn't.

    It names a path ``inside`` rejects (outside the workspace), or it runs git whose repository
    configuration names a program. Looks at the file system and may run ``git config``: call it
    off the event loop, when approving and again right before running.
    """
    analysis = analyze_command(command)
    script = parse_script(analysis.stripped_command)
    if script is None:
        return "the command could not be parsed"
    outside = outside_paths(script, cwd, inside)
    if outside:
        return f"it names {outside[0]}, outside the workspace"
    risk = script_config_risk(script, cwd, inside)
    if risk is not None:
        return f"git would read the repository setting {risk}, which can run a program"
    return None


def validate_command_text(command: str, *, is_background: bool) -> str | None:
    """The checks Qwen Code runs before ``timeout``/``directory``: empty, self-kill, ``&``, root."""
    if not command.strip():
        return EMPTY_COMMAND_MESSAGE
    if detect_self_kill(command):
        return SELF_KILL_REJECTION
    if is_background and has_trailing_background_operator(strip_wrapper_text(command)):
        return TRAILING_AMPERSAND_MESSAGE
    if not analyze_command(command).roots:
        return NO_COMMAND_ROOT_MESSAGE
    return None


def foreground_sleep_rejection(command: str) -> str | None:
    """The standalone-sleep block (foreground calls only; checked after ``directory``)."""
    return blocked_sleep_message(strip_wrapper_text(command))


def validate_shell_command(command: str, *, is_background: bool) -> str | None:
    """All command-text rejections, in Qwen Code's order, or ``None``.

    The tool's own ``timeout`` and ``directory`` checks come between
    :func:`validate_command_text` and :func:`foreground_sleep_rejection` in Qwen Code; call
    those two separately to keep that order exactly.
    """
    error = validate_command_text(command, is_background=is_background)
    if error is None and not is_background:
        error = foreground_sleep_rejection(command)
    return error
