"""Deny, ask and allow rules and their verdict on one call, as Qwen Code 0.24.4 applies them.

The rule lists are Qwen Code's: deny = ``permissions.deny`` ∪ ``tools.exclude``, ask =
``permissions.ask``, allow = ``permissions.allow`` ∪ ``tools.allowed``. The syntax (``Tool`` or
``Tool(specifier)``, aliases such as ``Bash``/``Read``/``Edit``/``WebFetch``) and the specifier
matching are those of :mod:`.permissions`. :func:`evaluate_rules` gives the first match in the
order deny > ask > allow:

* a deny rule refuses the call in every approval mode, yolo included;
* an ask rule makes the call ask even when the tool would not (a read-only tool, a read-only
  command), in every mode but yolo; plan and auto-edit then apply as usual;
* allow rules are applied later, by :func:`.permissions.is_preapproved`.

A deny or ask rule for the shell matches when *any* command the line would run matches it,
found by :func:`~qwen_tools.shell.command_words.effective_commands` (``/bin/rm``, ``r''m``,
``bash -c 'rm …'``, ``$(rm …)``, ``xargs rm``, ``find -exec rm`` …), besides the raw segments
Qwen Code compares. As in Qwen Code, ``Read``/``Edit``/``Write``/``WebFetch`` rules also apply to
the files and hosts a shell line reads, lists, writes or fetches
(:func:`~qwen_tools.shell.virtual_ops.virtual_operations`: ``cat secret/x``, ``> file``,
``curl host``). When some command of the line cannot be known before it runs (``$X args``,
``eval "$(…)"``, a shell reading stdin), or its directory cannot (``cd $X``) while a file rule
exists, and a rule could apply, the call asks — and in yolo it is refused when that rule is a
deny rule, since nobody would be asked. A path rule matches the path as given
or its real path. MCP tools match their registered name, Qwen Code's ``mcp__server__tool``
aliases, ``mcp__server`` (every tool of the server) or a ``…*`` prefix.

:func:`whole_tool_deny` names the specifier-less deny rule, if any, that keeps a tool out of the
registry altogether (``deny: ["WebFetch"]``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from qwen_tools.contract.tool_names import ToolNames
from qwen_tools.execution.permissions import (
    EDIT_TOOLS,
    READ_TOOLS,
    SHELL,
    command_matches,
    domain_matches,
    parse_rule,
    path_matches,
    split_shell_command,
)
from qwen_tools.mcp.naming import sanitize

if TYPE_CHECKING:
    from qwen_tools.config.config import Config
    from qwen_tools.config.tool_settings import ToolSettings
    from qwen_tools.contract.declarative import BaseDeclarativeTool
    from qwen_tools.shell.virtual_ops import VirtualOp, VirtualOps

__all__ = [
    "RuleVerdict",
    "allow_rules",
    "ask_rules",
    "denied_call_message",
    "denied_tool_message",
    "deny_rules",
    "evaluate_rules",
    "whole_tool_deny",
]

Decision = Literal["deny", "ask", "default"]


@dataclass(frozen=True)
class RuleVerdict:
    """What the deny and ask rules say about one call.

    ``opaque`` is set when the decision is ``ask`` only because some command of a shell line
    cannot be checked against the shell rule ``rule``.
    """

    decision: Decision
    rule: str | None = None
    opaque: bool = False


def _unique(*groups: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(rule for group in groups for rule in group if rule.strip()))


def deny_rules(settings: ToolSettings) -> tuple[str, ...]:
    """``permissions.deny`` then ``tools.exclude`` (Qwen Code merges both into deny)."""
    return _unique(settings.permissions_deny, settings.exclude)


def ask_rules(settings: ToolSettings) -> tuple[str, ...]:
    """``permissions.ask``."""
    return _unique(settings.permissions_ask)


def allow_rules(settings: ToolSettings) -> tuple[str, ...]:
    """``permissions.allow`` then ``tools.allowed``."""
    return _unique(settings.permissions_allow, settings.allowed)


def _covers(
    names: frozenset[str], name: str, aliases: Iterable[str] = (), server: str | None = None
) -> bool:
    """Whether a rule's tool part names this tool."""
    own = {name, *aliases}
    if names & own:
        return True
    for pattern in names:
        if not pattern.startswith("mcp__"):
            continue
        if pattern.endswith("*") and any(n.startswith(pattern[:-1]) for n in own):
            return True
        parts = pattern.split("__")
        if len(parts) != 2 or not parts[1]:
            continue
        if server is not None and sanitize(parts[1]) == sanitize(server):
            return True
        prefixes = (f"{pattern}__", f"{sanitize(parts[1])}__")
        if server is None and any(n.startswith(prefixes) for n in own):
            return True
    return False


def _tool_covered(names: frozenset[str], tool: BaseDeclarativeTool[Any]) -> bool:
    return _covers(names, tool.name, getattr(tool, "aliases", ()), tool.server_name)


def _restricts(config: Config, rule: str, tool: BaseDeclarativeTool[Any], params: Any) -> bool:
    """Whether a deny or ask rule applies to this call."""
    parsed = parse_rule(rule)
    if parsed is None or not _tool_covered(parsed[0], tool):
        return False
    specifier = parsed[1]
    if specifier is None:
        return True
    if tool.server_name is not None:
        return False  # MCP rules take no specifier
    args = params if isinstance(params, dict) else {}
    if tool.name == SHELL:
        from qwen_tools.shell.command_words import (
            effective_commands,
        )  # the shell parser, when asked

        command = str(args.get("command", ""))
        found = effective_commands(command)
        candidates = (*found.commands, *split_shell_command(command))
        return any(command_matches(candidate, specifier) for candidate in candidates)
    path = args.get("file_path") or args.get("absolute_path") or args.get("path")
    if tool.name in READ_TOOLS | EDIT_TOOLS and isinstance(path, str):
        return path_matches(config, path, specifier) or path_matches(
            config, path, specifier, follow=False
        )
    if tool.name == ToolNames.WEB_FETCH and isinstance(args.get("url"), str):
        return domain_matches(args["url"], specifier)
    values = (args.get(key) for key in ("server_name", "subagent_type", "skill"))
    return any(isinstance(v, str) and v == specifier for v in values)


def _restricts_op(config: Config, rule: str, op: VirtualOp) -> bool:
    """Whether a deny or ask rule applies to one operation of a shell line."""
    parsed = parse_rule(rule)
    if parsed is None or op.tool not in parsed[0]:
        return False
    specifier = parsed[1]
    if specifier is None:
        return True
    if op.tool == ToolNames.WEB_FETCH:
        return domain_matches(f"https://{op.target}", specifier)
    return path_matches(config, op.target, specifier) or path_matches(
        config, op.target, specifier, follow=False
    )


def _shell_ops(config: Config, params: dict[str, Any]) -> VirtualOps:
    from qwen_tools.shell.virtual_ops import virtual_operations  # the shell parser, when asked

    directory = params.get("directory")
    cwd = directory if isinstance(directory, str) and directory else str(config.target_dir)
    return virtual_operations(str(params.get("command", "")), cwd)


def _file_rule(rules: Iterable[str]) -> str | None:
    for rule in rules:
        parsed = parse_rule(rule)
        if parsed is not None and parsed[0] & _OP_TOOLS:
            return rule
    return None


_OP_TOOLS = frozenset(
    {ToolNames.READ_FILE, ToolNames.LIST_DIRECTORY, ToolNames.WRITE_FILE, ToolNames.WEB_FETCH}
)


def _shell_rule_with_specifier(rules: Iterable[str]) -> str | None:
    for rule in rules:
        parsed = parse_rule(rule)
        if parsed is not None and SHELL in parsed[0] and parsed[1] is not None:
            return rule
    return None


def evaluate_rules(config: Config, tool: BaseDeclarativeTool[Any], params: Any) -> RuleVerdict:
    """The deny/ask verdict on one call (``default`` when neither applies)."""
    settings = config.settings
    deny, ask = deny_rules(settings), ask_rules(settings)
    if not deny and not ask:
        return RuleVerdict("default")
    shell = tool.name == SHELL and isinstance(params, dict)
    ops: VirtualOps | None = _shell_ops(config, params) if shell else None
    op_list = ops.ops if ops is not None else ()
    for rule in deny:
        if _restricts(config, rule, tool, params) or any(
            _restricts_op(config, rule, op) for op in op_list
        ):
            return RuleVerdict("deny", rule)
    if ops is not None:
        from qwen_tools.shell.command_words import effective_commands

        opaque = effective_commands(str(params.get("command", ""))).opaque
        unknown_deny = (_shell_rule_with_specifier(deny) if opaque else None) or (
            _file_rule(deny) if opaque or ops.unknown_directory else None
        )
        if unknown_deny is not None:
            return RuleVerdict("ask", unknown_deny, opaque=True)
        unknown_ask = (_shell_rule_with_specifier(ask) if opaque else None) or (
            _file_rule(ask) if opaque or ops.unknown_directory else None
        )
        if unknown_ask is not None:
            return RuleVerdict("ask", unknown_ask)
    for rule in ask:
        if _restricts(config, rule, tool, params) or any(
            _restricts_op(config, rule, op) for op in op_list
        ):
            return RuleVerdict("ask", rule)
    return RuleVerdict("default")


def whole_tool_deny(
    settings: ToolSettings, name: str, aliases: Iterable[str] = (), server: str | None = None
) -> str | None:
    """The deny rule without specifier that names this tool (it is then not registered)."""
    for rule in deny_rules(settings):
        parsed = parse_rule(rule)
        if parsed is not None and parsed[1] is None and _covers(parsed[0], name, aliases, server):
            return rule
    return None


def _tool_wide(rule: str) -> bool:
    parsed = parse_rule(rule)
    if parsed is None or parsed[1] is None:
        return True
    names, specifier = parsed
    if names & READ_TOOLS or names & EDIT_TOOLS:
        return specifier == "//**"
    return specifier == "*"


def denied_call_message(name: str, verdict: RuleVerdict) -> str:
    """Qwen Code's refusal of a call a deny rule matched (ours for an uncheckable command)."""
    rule = verdict.rule or ""
    if verdict.opaque:
        return (
            f'This "{name}" invocation was denied by permission rules: a command in it is only '
            "known when it runs (a variable or substitution as the command name, eval of a "
            "substitution, a shell reading stdin, an alias), so it cannot be checked against "
            f'the rule "{rule}". Write the command out literally.'
        )
    still = "" if _tool_wide(rule) else " Other uses of this tool are still permitted."
    return (
        f'This "{name}" invocation was denied by permission rules. '
        f'Matching deny rule: "{rule}".{still}'
    )


def denied_tool_message(name: str, rule: str) -> str:
    """Qwen Code's refusal of a call to a tool a whole-tool deny rule keeps out."""
    return (
        f'Qwen Code requires permission to use "{name}", but that permission was declined. '
        f'Matching deny rule: "{rule}".'
    )
