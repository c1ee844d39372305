"""The deterministic checks of the ``auto`` approval mode, run before its classifier is asked.

* :func:`protected_write` — the call writes a file that changes how later commands or sessions
  behave: the sensitive files of :mod:`.sensitive_paths` (``.git/``, ``.qwen/settings.json``,
  ``package.json``, ``Makefile``, CI workflows, the Qwen home …) and the context files Qwen Code
  0.24.4's auto mode protects too (``QWEN.md``, ``AGENTS.md``, ``QWEN.local.md``). For ``edit``
  and ``write_file`` that is the target file; for a shell command, a redirection target or a
  path argument of a writing command (``cp``, ``mv``, ``tee``, ``sed -i`` …), as 0.24.4's raw
  scan does; also a redirection to a target only known when it runs (``> $f``) and
  ``git config`` writes (not ``--get``/``--list``), which we add. Such a call always asks the
  user in ``auto`` (0.24.4 sends it to the classifier; we never let a classifier approve it).
* :func:`destructive_command` — 0.24.4's deterministic block of destructive git and
  infrastructure commands (``git reset --hard``, ``git clean -f``, ``terraform destroy`` …)
  unless the user's last message asked for that kind of thing; its texts are 0.24.4's.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any

from qwen_tools.contract.tool_names import ToolNames
from qwen_tools.execution.sensitive_paths import sensitive_path_reason

if TYPE_CHECKING:
    from qwen_tools.config.config import Config

__all__ = ["EDIT_TOOLS", "SHELL_TOOL", "destructive_command", "protected_write"]

SHELL_TOOL = ToolNames.SHELL
EDIT_TOOLS = frozenset([ToolNames.EDIT, ToolNames.WRITE_FILE])
_CONTEXT_FILES = frozenset(["qwen.md", "agents.md", "qwen.local.md"])
_WRITING_COMMANDS = re.compile(
    r"\b(?:cp|mv|install|rsync|patch|perl|sed|tee|dd|sort|awk|gawk|node|python3?|ruby|php"
    r"|curl|wget|tar|unzip|cpio|ln|touch|truncate|chmod)\b"
)
_IN_PLACE = re.compile(r"(?:^|\s)(?:-[A-Za-z]*i|--in-place(?:=|\s|$))")
_REDIRECT = re.compile(r">+\|?&?\s*([^\s;&|<>]+)")
_PATHISH = re.compile(r"[A-Za-z0-9_./~-]+")
_GIT_CONFIG_WRITE = re.compile(r"\bgit(?:\s+(?:-[Cc]\s+\S+|--[\w-]+(?:=\S+)?))*\s+config\b")
_GIT_CONFIG_READ = re.compile(r"\bconfig\s+(?:--get\b|--get-all\b|--list\b|-l\b|--get-regexp\b)")


def _protected_path(config: Config, path: str, cwd: str) -> bool:
    if not path:
        return False
    absolute = path if os.path.isabs(path) else os.path.join(cwd, os.path.expanduser(path))
    if os.path.basename(os.path.normpath(absolute)).lower() in _CONTEXT_FILES:
        return True
    return sensitive_path_reason(config, absolute) is not None


def _strip(token: str) -> str:
    return token.strip("'\"(){}$,;")


def _shell_writes_protected(config: Config, command: str, cwd: str) -> bool:
    if _GIT_CONFIG_WRITE.search(command) and not _GIT_CONFIG_READ.search(command):
        return True  # .git/config: core.fsmonitor, core.hooksPath, aliases run code later
    for match in _REDIRECT.finditer(command):
        raw = match.group(1)
        if re.search(r"[$`]", raw):
            return True  # a target we cannot read before it runs
        target = _strip(raw)
        if target and not target.startswith("&") and _protected_path(config, target, cwd):
            return True
    for line in command.split("\n"):
        if not _WRITING_COMMANDS.search(line):
            continue
        if re.search(r"\b(?:sed|perl)\b", line) and not _IN_PLACE.search(line):
            continue
        for raw in line.split():
            token = _strip(raw)
            if not token or (token.startswith("-") and "=" not in token):
                continue
            if re.search(r"\$[{(A-Za-z_]", raw):
                return True  # a target we cannot read before it runs
            value = token.partition("=")[2] if token.startswith("-") else token
            if any(_protected_path(config, part, cwd) for part in _PATHISH.findall(value)):
                return True
    return False


def protected_write(config: Config, tool_name: str, params: Any) -> bool:
    """Whether the call writes a protected file (see the module docstring)."""
    if not isinstance(params, dict):
        return False
    if tool_name in EDIT_TOOLS:
        path = params.get("file_path")
        return isinstance(path, str) and _protected_path(config, path, str(config.target_dir))
    if tool_name == SHELL_TOOL:
        command = params.get("command")
        directory = params.get("directory")
        cwd = str(config.target_dir)
        if isinstance(directory, str) and directory:
            cwd = os.path.join(cwd, directory)
        return isinstance(command, str) and _shell_writes_protected(config, command, cwd)
    return False


_DESTRUCTIVE_GIT = (
    re.compile(r"\bgit\s+reset\s+--hard\b"),
    re.compile(r"\bgit\s+checkout\s+--\s+\."),
    re.compile(r"\bgit\s+clean\s+-[a-zA-Z]*f"),
    re.compile(r"\bgit\s+stash\s+drop\b"),
)
_GIT_AMEND = re.compile(r"\bgit\s+commit\s+--amend\b")
_IAC_DESTROY = (
    re.compile(r"\bterraform\s+destroy\b"),
    re.compile(r"\bpulumi\s+destroy\b"),
    re.compile(r"\bcdk\s+destroy\b"),
)
_DISCARD_WORDS = re.compile(
    r"\bdiscard\b|\bthrow\s+away\b|\bwipe\b|\bclean\s+up\b|\breset\s+everything\b|\bdrop\s+all\b"
    r"|\bforce\s+reset\b|\bstart\s+over\b|\bstart\s+fresh\b|\bclean\s+slate\b|丢弃|清除|重置",
    re.IGNORECASE,
)
_SHELL_C = re.compile(
    r"(?:^|\s)(?:bash|sh|zsh|fish|dash|ksh)\s+-[a-zA-Z]*c\s+(?:\"([^\"]*)\"|'([^']*)')"
)
_STACK_WORDS = ("destroy", "tear down", "delete stack", "remove stack", "销毁", "删除")


def destructive_command(command: str, user_prompt: str) -> str | None:
    """0.24.4's reason for blocking ``command`` outright, or ``None``.

    ``git commit --amend`` is always blocked: 0.24.4 lets it through only for a commit the agent
    made in the session, which we do not track.
    """
    inner = _SHELL_C.sub(lambda m: " " + (m.group(1) or m.group(2) or ""), command)
    expanded = f"{command} {inner}"
    for pattern in _DESTRUCTIVE_GIT:
        if pattern.search(expanded) and not _DISCARD_WORDS.search(user_prompt):
            found = pattern.search(command)
            matched = found.group(0) if found else command
            return (
                f'Blocked destructive git command: "{matched}". To proceed, explicitly mention '
                "discarding local work in your prompt."
            )
    if _GIT_AMEND.search(expanded):
        return (
            'Blocked "git commit --amend": the target commit was not made by the agent in this '
            "session. To proceed, use manual approval."
        )
    lower = user_prompt.lower()
    for pattern in _IAC_DESTROY:
        if pattern.search(expanded):
            found = pattern.search(command)
            name = found.group(0).split()[0] if found else "unknown"
            if not (name in lower and any(word in lower for word in _STACK_WORDS)):
                return (
                    f'Blocked infrastructure destroy command: "{name} destroy". To proceed, '
                    "explicitly specify the target stack/resource in your prompt."
                )
    return None
