"""Pre-approval: ``tools.allowed`` rules and the session's "always allow" answers.

Rules use Qwen Code's syntax: ``Tool`` or ``Tool(specifier)``, with the reference's aliases
(``Bash``/``Shell`` → ``run_shell_command``, ``Read`` → the read-only file tools, ``Edit`` → the
editing tools, ``WebFetch``…). Specifiers:

* shell: ``*`` matches every command; otherwise a command matches when it equals the specifier or
  starts with it followed by a space; ``git *`` means ``git`` alone or with arguments and
  ``git:*`` is the same. Leading ``VAR=value`` assignments are ignored. A compound command
  (``&&``, ``||``, ``;``, ``|``) is allowed only when every part is.
* file tools: a glob on the file path (``/abs/**``, or relative to the project root);
* ``web_fetch``: a domain (``example.com`` also covers its subdomains; ``domain:`` prefix ok);
* anything else: the exact value of the call's ``server_name``/``subagent_type`` parameter.

A command containing command substitution is never pre-approved: it always asks, and neither
is an edit of a file that makes later commands run code (:mod:`.sensitive_paths`). Deny and ask
rules, which come first, live in :mod:`.permission_rules`.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from qwen_tools.config.tool_settings import ApprovalMode
from qwen_tools.contract.outcome import ToolConfirmationOutcome
from qwen_tools.contract.tool_names import LEGACY_TOOL_NAMES, ToolDisplayNames, ToolNames

if TYPE_CHECKING:
    from qwen_tools.config.config import Config
    from qwen_tools.contract.confirmation import ToolCallConfirmationDetails
    from qwen_tools.contract.declarative import BaseDeclarativeTool

SHELL = ToolNames.SHELL
READ_TOOLS = frozenset(
    {
        ToolNames.READ_FILE,
        ToolNames.GREP,
        ToolNames.GLOB,
        ToolNames.LIST_DIRECTORY,
        ToolNames.READ_MANY_FILES,
    }
)
EDIT_TOOLS = frozenset({ToolNames.EDIT, ToolNames.WRITE_FILE})
_ALIASES: dict[str, frozenset[str]] = {
    # a rule's tool, lower-cased: the names of Claude Code's rules, then the tools' legacy names
    "bash": frozenset({SHELL}),
    "shell": frozenset({SHELL}),
    "shelltool": frozenset({SHELL}),
    "read": READ_TOOLS,
    "edit": EDIT_TOOLS,
    "write": frozenset({ToolNames.WRITE_FILE}),
    ToolDisplayNames.WEB_FETCH.lower(): frozenset({ToolNames.WEB_FETCH}),
    ToolDisplayNames.WEB_SEARCH.lower(): frozenset({ToolNames.WEB_SEARCH}),
    **{legacy: frozenset({name}) for legacy, name in LEGACY_TOOL_NAMES.items()},
}
_RULE = re.compile(r"^\s*([^()\s]+)\s*(?:\((.*)\))?\s*$", re.S)
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=\S*\s+")
_SUBSTITUTION = re.compile(r"\$\(|`|<\(|>\(|\$\{[^}]*@P\}")


def parse_rule(rule: str) -> tuple[frozenset[str], str | None] | None:
    """``(tool names, specifier)`` of a rule, or ``None`` when it is malformed."""
    match = _RULE.match(rule)
    if match is None:
        return None
    name, specifier = match.group(1), match.group(2)
    names = _ALIASES.get(name.lower(), frozenset({name}))
    return names, (specifier.strip() if specifier is not None else None)


def split_shell_command(command: str) -> list[str]:
    """The simple commands of a compound command, split on unquoted ``&& || ; | &`` and newlines."""
    parts: list[str] = []
    current: list[str] = []
    quote: str | None = None
    i = 0
    while i < len(command):
        ch = command[i]
        if quote:
            current.append(ch)
            if ch == "\\" and quote == '"' and i + 1 < len(command):
                current.append(command[i + 1])
                i += 1
            elif ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
            current.append(ch)
        elif ch == "\\" and i + 1 < len(command):
            current.extend(command[i : i + 2])
            i += 1
        elif ch in ";|&\n":
            parts.append("".join(current))
            current = []
            if i + 1 < len(command) and command[i + 1] == ch and ch in "|&":
                i += 1
        else:
            current.append(ch)
        i += 1
    parts.append("".join(current))
    return [p.strip() for p in parts if p.strip()]


def command_matches(command: str, specifier: str) -> bool:
    """Whether one simple command matches a shell rule's specifier (see the module docstring)."""
    command = command.strip()
    while _ASSIGNMENT.match(command):
        command = _ASSIGNMENT.sub("", command, count=1)
    spec = specifier.strip()
    if spec == "*":
        return True
    if spec.endswith(":*"):
        spec = spec[:-2] + " *"
    if spec.endswith(" *"):
        base = spec[:-2].rstrip()
        return command == base or command.startswith(base + " ")
    if "*" in spec:
        return fnmatch.fnmatchcase(command, spec)
    return command == spec or command.startswith(spec + " ")


def path_matches(config: Config, path: str, specifier: str, *, follow: bool = True) -> bool:
    """Whether a file path matches a path specifier: its real path, or (``follow=False``) the
    absolute path as given, normalised without resolving links."""
    if specifier.startswith("//"):
        pattern = specifier[1:]
    elif specifier.startswith("~/"):
        pattern = os.path.expanduser(specifier)
    elif specifier.startswith("/"):
        pattern = str(config.target_dir) + specifier
    else:
        pattern = os.path.join(str(config.target_dir), specifier.removeprefix("./"))
    regex = (
        re.sub(r"/\\\*\\\*$", "(?:/.*)?", re.escape(pattern))  # ``dir/**`` covers ``dir``
        .replace(r"\*\*/", "(?:.*/)?")
        .replace(r"\*\*", ".*")
        .replace(r"\*", "[^/]*")
    )
    target = os.path.realpath(path) if follow else os.path.normpath(os.path.abspath(path))
    return re.fullmatch(regex, target) is not None


def domain_matches(url: str, specifier: str) -> bool:
    """Whether the URL's host is the specifier's domain or one of its subdomains."""
    host = (urlsplit(url).hostname or "").lower()
    domain = specifier.removeprefix("domain:").strip().lower()
    return host == domain or host.endswith("." + domain)


def rule_allows(config: Config, rule: str, tool_name: str, params: Any) -> bool:
    """Whether one allow rule covers this call."""
    parsed = parse_rule(rule)
    if parsed is None or tool_name not in parsed[0]:
        return False
    specifier = parsed[1]
    if specifier is None:
        return True
    args = params if isinstance(params, dict) else {}
    if tool_name == SHELL:
        command = str(args.get("command", ""))
        if _SUBSTITUTION.search(command):
            return False
        return all(command_matches(part, specifier) for part in split_shell_command(command))
    path = args.get("file_path") or args.get("absolute_path") or args.get("path")
    if tool_name in READ_TOOLS | EDIT_TOOLS and isinstance(path, str):
        return path_matches(config, path, specifier)
    if tool_name == ToolNames.WEB_FETCH and isinstance(args.get("url"), str):
        return domain_matches(args["url"], specifier)
    values = (args.get(key) for key in ("server_name", "subagent_type", "skill"))
    return any(isinstance(v, str) and v == specifier for v in values)


def any_rule_allows(config: Config, rules: Iterable[str], tool_name: str, params: Any) -> bool:
    """Whether some rule of ``rules`` covers this call."""
    return any(rule_allows(config, rule, tool_name, params) for rule in rules)


def shell_parts_allowed(config: Config, rules: Iterable[str], params: Any) -> bool:
    """Whether each part of a compound command is covered by some shell rule or only reads.

    As 0.24.4's ``evaluateCompoundCommand``: ``mkdir -p out && touch out/a`` is allowed by
    ``Bash(mkdir *)`` and ``Bash(touch *)`` together, and ``cat notes && touch a`` by
    ``Bash(touch *)`` alone. A reading part counts only when the shell tool would run it
    without asking (no path outside the workspace, no risky git setting) and no part changes
    directory; command substitution is never allowed.
    """
    from qwen_tools.shell.command_analysis import (
        analyze_command,
        is_read_only_command,
        read_only_refusal,
    )

    args = params if isinstance(params, dict) else {}
    command = args.get("command")
    if not isinstance(command, str) or _SUBSTITUTION.search(command):
        return False
    specs = [
        parsed[1]
        for parsed in map(parse_rule, rules)
        if parsed is not None and SHELL in parsed[0] and parsed[1] is not None
    ]
    parts = split_shell_command(analyze_command(command).stripped_command)
    if not specs or not parts:
        return False
    moves = any(re.match(r"\s*(?:cd|pushd)(?:\s|$)", part) for part in parts)
    reading = [part for part in parts if not any(command_matches(part, s) for s in specs)]
    if len(reading) == len(parts) or (reading and moves):
        return False
    if not all(is_read_only_command(part) for part in reading):
        return False
    cwd = os.path.join(config.target_dir, str(args.get("directory") or "."))
    inside = config.workspace.is_path_within_workspace
    return all(read_only_refusal(part, cwd, inside) is None for part in reading)


def is_preapproved(
    config: Config,
    tool: BaseDeclarativeTool[Any],
    params: Any,
    details: ToolCallConfirmationDetails,
) -> bool:
    """Whether settings or an earlier "always allow" answer cover this call."""
    if details.type == "exec" and details.warnings:
        return False  # command substitution always asks
    if details.type == "plan":
        return False  # a plan always needs the user's answer (the reference forces the prompt)
    if details.type == "edit":
        from qwen_tools.execution.sensitive_paths import sensitive_path_reason

        if sensitive_path_reason(config, details.file_path) is not None:
            return False  # edits that make later commands run code always ask (but in yolo)
    session = config.session
    if tool.name in session.always_allowed_tools:
        return True
    rules = (*config.settings.allowed, *config.settings.permissions_allow)
    if any_rule_allows(config, rules, tool.name, params):
        return True
    if tool.name == SHELL and shell_parts_allowed(config, rules, params):
        return True
    if details.type == "mcp" and details.server_name in session.always_allowed_mcp_servers:
        return True
    if details.type == "exec" and details.root_commands:
        return all(root in session.always_allowed_shell_roots for root in details.root_commands)
    return False


def remember_always_allow(
    config: Config,
    tool: BaseDeclarativeTool[Any],
    details: ToolCallConfirmationDetails,
    outcome: ToolConfirmationOutcome,
) -> None:
    """Record an "always allow" answer for the rest of the session."""
    session = config.session
    if details.type == "plan":
        return  # the answer picks the mode after the plan; exit_plan_mode applies it itself
    if details.type == "edit" and outcome is ToolConfirmationOutcome.PROCEED_ALWAYS:
        config.approval_mode = ApprovalMode.AUTO_EDIT
    elif details.type == "exec" and outcome is ToolConfirmationOutcome.PROCEED_ALWAYS:
        session.always_allowed_shell_roots.update(details.root_commands)
    elif details.type == "mcp" and outcome is ToolConfirmationOutcome.PROCEED_ALWAYS_SERVER:
        session.always_allowed_mcp_servers.add(details.server_name)
    elif outcome in (
        ToolConfirmationOutcome.PROCEED_ALWAYS,
        ToolConfirmationOutcome.PROCEED_ALWAYS_TOOL,
    ):
        session.always_allowed_tools.add(tool.name)
