"""The permission rules an "Always allow …" answer persists, and how the prompt names them.

As Qwen Code 0.24.4 (``buildPermissionRules``, ``buildHumanReadableRuleLabel``): a shell call
persists one ``Bash(<rule>)`` per simple command that is not read-only (``git commit -m x`` →
``Bash(git commit *)``, ``git status`` → ``Bash(git status)``; a compound ``a && b`` gives the
rules of its parts, never one for the whole text) — except that where 0.24.4's rule would let
any program run (``Bash(npm install *)``, ``Bash(env *)``, ``Bash(bash)``: see
:func:`shell_rules`) there is no "Always allow"; a file tool ``Read(<dir>/**)`` or
``Edit(<dir>/**)`` for the file's directory (the path itself for directory tools; an absolute
directory is written ``//abs/dir/**``); ``web_fetch`` ``WebFetch(<host>)``; an MCP tool its
registered name ``mcp__server__tool``; any other tool ``Name(<skill|subagent_type|server_name>)``
or ``Name``. A rule is written with 0.24.4's display name (``Read``, ``Edit``, ``Bash``,
``WebFetch``, ``WebSearch``) only where our rule parser reads it back as the same tool, so a
persisted rule is always one the next session honours (:mod:`.permissions`).
"""

from __future__ import annotations

import dataclasses
import logging
import os
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from qwen_tools.contract.outcome import ToolConfirmationOutcome
from qwen_tools.contract.tool_names import ToolDisplayNames, ToolNames
from qwen_tools.execution.permissions import EDIT_TOOLS, READ_TOOLS, SHELL, parse_rule
from qwen_tools.shell.rules import KNOWN_SUBCOMMANDS

if TYPE_CHECKING:
    from qwen_tools.config.config import Config
    from qwen_tools.contract.confirmation import ToolCallConfirmationDetails

__all__ = [
    "build_permission_rules",
    "inject_permission_rules",
    "narrow_rules",
    "persist_answer",
    "rule_label",
    "shell_rules",
]

_log = logging.getLogger("qwen_tools")

_DISPLAY = {
    **dict.fromkeys(READ_TOOLS, "Read"),
    **dict.fromkeys(EDIT_TOOLS, "Edit"),
    SHELL: "Bash",
    ToolNames.WEB_FETCH: ToolDisplayNames.WEB_FETCH,
    ToolNames.WEB_SEARCH: ToolDisplayNames.WEB_SEARCH,
}
_FILE_TARGETED = frozenset({ToolNames.READ_FILE, ToolNames.EDIT, ToolNames.WRITE_FILE})
_VERBS = {
    "Read": "read files",
    "Edit": "edit files",
    "Bash": "run commands",
    ToolDisplayNames.WEB_FETCH: "fetch from",
    ToolDisplayNames.WEB_SEARCH: "search the web",
}
_INTERPRETERS = frozenset({  # 0.24.4's DANGEROUS_BASH_INTERPRETERS
    "bash", "sh", "zsh", "fish", "csh", "tcsh", "dash", "ksh", "cmd", "pwsh", "powershell",
    "python", "python3", "python2", "node", "deno", "tsx", "bun", "ruby", "perl", "php", "lua",
    "julia", "r", "rscript", "groovy", "awk", "gawk", "cargo", "npm", "pnpm", "yarn", "make",
    "gmake", "gradle", "mvn", "rake", "task", "just", "go", "npx", "bunx", "pnpx", "uvx", "pipx",
    "dlx", "ssh", "eval", "exec", "source",
})  # fmt: skip
_WRAPPERS = frozenset({  # ours: programs that run their arguments as a command
    "env", "sudo", "doas", "su", "xargs", "timeout", "nice", "ionice", "nohup", "command",
    "builtin", "time", "stdbuf", "setsid", "chroot", "watch", "strace", "ltrace", "taskset",
    "flock", "unbuffer", "parallel", "find",
})  # fmt: skip
_KINDS = {"Read": "path", "Edit": "path", "Bash": "command", ToolDisplayNames.WEB_FETCH: "domain"}


def _display_name(tool_name: str) -> str:
    display = _DISPLAY.get(tool_name)
    parsed = parse_rule(display) if display else None
    return display if display and parsed and tool_name in parsed[0] else tool_name


def _runs_anything(body: str) -> bool:
    """Whether a ``Bash(<body>)`` rule would let any program run (0.24.4's
    ``isDangerousBashRule``, plus the wrappers that run their arguments as a command)."""
    words = body.lower().split()
    if not words:
        return True
    root = words[0].rsplit("/", 1)[-1].removesuffix(".exe")
    if root in KNOWN_SUBCOMMANDS and words[1:] == ["*"]:
        return True  # ``git *``: no subcommand recognised (``git -c k=v x``), so all of them
    if root not in _INTERPRETERS and root not in _WRAPPERS:
        return False
    return len(words) == 1 or "*" in body


def shell_rules(command: str) -> tuple[str, ...] | None:
    """The ``Bash(…)`` rules of a command; ``None`` when one would let any program run.

    0.24.4's rule per simple command that does not only read (``git commit *``). When one of
    them would let any program run — an interpreter, a package runner or a wrapper such as
    ``env``, ``sudo``, ``xargs`` or ``find`` with ``*`` or alone, or a ``git *`` whose
    subcommand was not recognised — "Always allow" is not offered (0.24.4 offers it); nor for
    a command that only reads (it asks because of a path outside the workspace or a git
    setting, which a ``Bash(cat *)`` would wave through) or has command substitution. The
    command as written would be no narrower: a rule without ``*`` also matches the command
    with more arguments (``Bash(npm install a)`` allows ``npm install a evil``, as in 0.24.4).
    """
    from qwen_tools.shell.command_analysis import analyze_command

    analysis = analyze_command(command)
    if analysis.is_read_only or analysis.has_command_substitution:
        return None  # it asks for what no rule may allow (a path outside, a git setting, $(…))
    subs = [s for s in analysis.subcommands if not s.read_only] or list(analysis.subcommands)
    rules = [sub.rule for sub in subs if sub.rule is not None]
    if any(_runs_anything(rule) for rule in rules):
        return None
    return tuple(dict.fromkeys(f"Bash({rule})" for rule in rules))


def narrow_rules(tool_name: str, params: Any, target_dir: str) -> tuple[str, ...] | None:
    """The rules that pre-approve calls like this one (see the module docstring); ``None`` when
    no narrow one exists: a command of :func:`shell_rules`, a file tool without one path or
    with glob characters or parentheses in it (``Read`` alone, or ``Read(//**)``, would allow
    every file), a fetch without a host."""
    args = params if isinstance(params, dict) else {}
    name = _display_name(tool_name)
    if tool_name == SHELL:
        command = args.get("command")
        return shell_rules(command) if isinstance(command, str) else None
    if tool_name in READ_TOOLS | EDIT_TOOLS:
        path = next(
            (args[k] for k in ("file_path", "notebook_path") if isinstance(args.get(k), str)),
            None,
        )
        if path is None and isinstance(args.get("path"), str):
            path = os.path.join(target_dir, args["path"])
        elif path is None and isinstance(args.get("absolute_path"), str):
            path = args["absolute_path"]
        if not path:
            return None
        directory = (os.path.dirname(path) or ".") if tool_name in _FILE_TARGETED else path
        if any(c in directory for c in "*?[]{}()"):
            return None
        return (
            f"{name}(/{directory}/**)" if directory.startswith("/") else f"{name}({directory}/**)",
        )
    if tool_name == ToolNames.WEB_FETCH:
        url = args.get("url")
        host = urlsplit(url).hostname if isinstance(url, str) else None
        return (f"{name}({host})",) if host else None
    if tool_name.startswith("mcp__"):
        return (tool_name,)
    for key in ("skill", "subagent_type", "server_name"):
        value = args.get(key)
        if isinstance(value, str) and value and not any(c in value for c in "()*"):
            return (f"{name}({value})",)
    return (name,)


def build_permission_rules(tool_name: str, params: Any, target_dir: str) -> tuple[str, ...]:
    """:func:`narrow_rules`, empty when there is none."""
    return narrow_rules(tool_name, params, target_dir) or ()


def inject_permission_rules(
    details: ToolCallConfirmationDetails, tool_name: str, params: Any, target_dir: str
) -> None:
    """Give an exec, mcp or info confirmation its rules when it names none (as 0.24.4 does);
    one with no narrow rule (:func:`narrow_rules`) gets no "Always allow" at all."""
    if details.type not in ("exec", "mcp", "info") or details.permission_rules:
        return
    rules = narrow_rules(tool_name, params, target_dir)
    if rules is None:
        details.hide_always_allow = True
        return
    details.permission_rules = rules


def _clean_path(specifier: str) -> str:
    cleaned = specifier.removesuffix("/**").removesuffix("/*")
    cleaned = cleaned[1:] if cleaned.startswith("//") else cleaned
    return cleaned if cleaned.endswith("/") else cleaned + "/"


def rule_label(rules: tuple[str, ...]) -> str:
    """The rules in words, for "Always allow <label> in this project" (0.24.4's wording)."""
    parts: list[str] = []
    for rule in rules:
        paren = rule.find("(")
        if paren == -1:
            parts.append(_VERBS.get(rule, rule.lower()))
            continue
        display, specifier = rule[:paren], rule[paren + 1 : -1]
        verb = _VERBS.get(display, display.lower())
        kind = _KINDS.get(display, "literal")
        if kind == "path":
            parts.append(f"{verb} in {_clean_path(specifier)}")
        elif kind == "command":
            parts.append(f"{verb.split(' ')[0]} '{specifier}' commands")
        elif kind == "domain":
            parts.append(f"{verb} {specifier}")
        else:
            parts.append(f'{verb} "{specifier}"')
    return ", ".join(parts)


def persist_answer(
    config: Config, details: ToolCallConfirmationDetails, outcome: ToolConfirmationOutcome
) -> None:
    """Save the rules of an "Always allow … in this project / for this user" answer.

    The rules go to ``permissions.allow`` of the workspace's or the user's settings file
    (:mod:`~qwen_tools.config.permission_persist`) and into this session's settings, so the
    next call like this one and the next session run without asking. A file that cannot take
    them leaves both alone; the reason is logged as a warning (printed on stderr).
    """
    if details.type not in ("exec", "mcp", "info") or not details.permission_rules:
        return
    from qwen_tools.config.permission_persist import (
        PermissionPersistError,
        persist_allow_rules,
        scope_settings_file,
    )

    user = outcome is ToolConfirmationOutcome.PROCEED_ALWAYS_USER
    path, root = scope_settings_file(
        "user" if user else "project", config.target_dir, config.home_dir
    )
    try:
        persist_allow_rules(path, root, details.permission_rules)
    except PermissionPersistError as exc:
        _log.warning("%s", exc)
        return
    live = config.settings.permissions_allow
    added = tuple(rule for rule in details.permission_rules if rule not in live)
    config.settings = dataclasses.replace(config.settings, permissions_allow=(*live, *added))
