"""Allow rules too broad for the ``auto`` mode: while in ``auto`` they do not pre-approve.

Qwen Code 0.24.4 takes such rules out of effect while the session is in ``auto`` (and puts them
back when it leaves), so the classifier still sees those calls. A rule is too broad when it
allows the whole shell (``Bash``, ``Bash(*)``) or any use of an interpreter or a tool that runs
arbitrary code (``Bash(python *)``, ``Bash(npm:*)``, ``Bash(npx *)`` …; ``Bash(python
script.py)`` without a wildcard stays), or any subagent or skill (``Agent``/``Task``, ``Skill``).
The session's "always allow" answers are judged the same way: the shell or ``task`` as a whole,
or an interpreter as an allowed root command.

:func:`still_preapproved` says whether a call that is pre-approved would still be once those
are set aside; the settings files are never changed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from qwen_tools.execution.permissions import (
    SHELL,
    any_rule_allows,
    parse_rule,
    shell_parts_allowed,
)

if TYPE_CHECKING:
    from qwen_tools.config.config import Config
    from qwen_tools.contract.confirmation import ToolCallConfirmationDetails

__all__ = ["is_dangerous_allow_rule", "still_preapproved"]

INTERPRETERS = frozenset(
    [
        "bash",
        "sh",
        "zsh",
        "fish",
        "csh",
        "tcsh",
        "dash",
        "ksh",
        "cmd",
        "pwsh",
        "powershell",
        "python",
        "python3",
        "python2",
        "node",
        "deno",
        "tsx",
        "bun",
        "ruby",
        "perl",
        "php",
        "lua",
        "julia",
        "r",
        "rscript",
        "groovy",
        "awk",
        "gawk",
        "cargo",
        "npm",
        "pnpm",
        "yarn",
        "make",
        "gmake",
        "gradle",
        "mvn",
        "rake",
        "task",
        "just",
        "go",
        "npx",
        "bunx",
        "pnpx",
        "uvx",
        "pipx",
        "dlx",
        "ssh",
        "eval",
        "exec",
        "source",
    ]
)
_WHOLE_TOOLS = frozenset(["task", "agent", "skill"])


def _interpreter(token: str) -> bool:
    bare = token.rstrip("*")
    colon = bare.find(":")
    head = bare[:colon] if colon >= 0 else bare
    name = head.replace("\\", "/").rsplit("/", 1)[-1]
    return name.removesuffix(".exe") in INTERPRETERS


def _dangerous_shell_specifier(specifier: str | None) -> bool:
    content = (specifier or "").strip().lower()
    if content in ("", "*"):
        return True
    first = content.split()[0]
    if not _interpreter(first):
        return False
    colon = content.find(":")
    if first == content and colon < 0:
        return True
    if "*" in content:
        return True
    return colon >= 0 and content[colon + 1 :].strip() == ""


def is_dangerous_allow_rule(rule: str) -> bool:
    """Whether ``rule`` (a ``permissions.allow`` entry) is too broad for ``auto`` (0.24.4)."""
    parsed = parse_rule(rule)
    if parsed is None:
        return False
    names, specifier = parsed
    if {name.lower() for name in names} & _WHOLE_TOOLS:
        return True
    return SHELL in names and _dangerous_shell_specifier(specifier)


def still_preapproved(
    config: Config, tool_name: str, params: Any, details: ToolCallConfirmationDetails
) -> bool:
    """Whether the call stays pre-approved with the too-broad rules and answers set aside."""
    session = config.session
    if tool_name in session.always_allowed_tools and tool_name not in (SHELL, "task"):
        return True
    rules = [
        rule
        for rule in (*config.settings.allowed, *config.settings.permissions_allow)
        if not is_dangerous_allow_rule(rule)
    ]
    if any_rule_allows(config, rules, tool_name, params):
        return True
    if tool_name == SHELL and shell_parts_allowed(config, rules, params):
        return True
    if details.type == "mcp" and details.server_name in session.always_allowed_mcp_servers:
        return True
    if details.type == "exec" and details.root_commands:
        roots = details.root_commands
        allowed = session.always_allowed_shell_roots
        return all(root in allowed and not _interpreter(root) for root in roots)
    return False
