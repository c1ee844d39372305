"""Files whose edit makes later commands run code: such edits ask in every mode but yolo.

In ``auto-edit`` mode edits are approved without asking, and read-only commands (``git
status``) never ask; an edit of ``.git/config`` that sets ``core.fsmonitor`` joins the two into
running any program. So an edit (``write_file``, ``edit``, any tool with an edit confirmation)
of one of these files is never approved by the mode, by ``tools.allowed``/``permissions.allow``
rules or by an earlier "always allow" — only yolo runs it without asking:

* version control metadata and hooks: any path through a ``.git``, ``.hg``, ``.svn``, ``.bzr``,
  ``.husky`` or ``.githooks`` directory, a ``.git`` file (worktrees), ``.gitmodules``,
  ``.gitattributes`` (filter and diff drivers), ``.gitconfig``, ``.config/git/*``, ``.hgrc``,
  ``.pre-commit-config.yaml``, ``lefthook.yml``;
* Qwen Code's and our settings: everything in a ``.qwen`` directory (settings, ``.env``,
  commands, agents, skills, hooks) except Markdown files directly in it, ``.mcp.json``, and
  everything in the Qwen home (``$QWEN_HOME``, ``~/.qwen``: settings, trusted folders, MCP
  approvals) except its top-level Markdown memory files and its ``tmp`` directory;
* environment and task runners that later commands read and run: ``.env``, ``.envrc``
  (direnv), ``package.json`` (npm scripts), ``.npmrc``, ``.yarnrc``/``.yarnrc.yml``,
  ``.pnpmfile.cjs``, ``Makefile``/``GNUmakefile``, ``justfile``, ``Taskfile.yml``,
  ``.github/workflows/*``, ``.vscode/*`` (tasks run on folder open), ``.devcontainer/*``;
* shell and SSH start-up files (``.bashrc``, ``.bash_profile``, ``.profile``, ``.zshrc``,
  ``.zshenv``, ``.ssh/*`` …), should a workspace contain a home directory.

The list follows Qwen Code 0.24.4's protected paths of its ``auto`` mode (git, husky,
package.json, .npmrc, Makefile, justfile, Taskfile, workflows, ``.qwen`` settings, the Qwen
home) and adds what makes *read-only* commands or the next session run code. Ordinary source
files are not on it: running them takes a command, and that command is approved on its own.

A path matches whatever the spelling: it is compared lower-cased (case-insensitive file
systems), NFC-normalised, as given (normalised: ``./.git//config``, ``src/../.git``), as its
real path (symlinks to or into ``.git``) and as the real path of its parent (a file not yet
created). A regular file with more than one hard link is sensitive too: it may be one of these
under another name.
"""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from qwen_tools.config.config import Config

__all__ = ["is_sensitive_edit", "sensitive_path_reason"]

_DIRECTORIES = frozenset(
    [".git", ".hg", ".svn", ".bzr", ".husky", ".githooks", ".vscode", ".devcontainer", ".ssh"]
)
_NAMES = frozenset(
    [
        ".git",
        ".gitmodules",
        ".gitattributes",
        ".gitconfig",
        ".hgrc",
        ".pre-commit-config.yaml",
        "lefthook.yml",
        ".lefthook.yml",
        ".mcp.json",
        ".env",
        ".envrc",
        "package.json",
        ".npmrc",
        ".yarnrc",
        ".yarnrc.yml",
        ".pnpmfile.cjs",
        "makefile",
        "gnumakefile",
        "justfile",
        ".justfile",
        "taskfile.yml",
        "taskfile.yaml",
        ".bashrc",
        ".bash_profile",
        ".bash_login",
        ".bash_logout",
        ".profile",
        ".zshrc",
        ".zshenv",
        ".zprofile",
        ".zlogin",
    ]
)


def _fold(path: str) -> str:
    return unicodedata.normalize("NFC", path).lower()


def _candidates(path: str, base: Path) -> list[str]:
    absolute = os.path.normpath(os.path.join(str(base), os.path.expanduser(path)))
    found = [absolute, os.path.realpath(absolute)]
    parent, name = os.path.split(absolute)
    found.append(os.path.join(os.path.realpath(parent), name))
    return list(dict.fromkeys(_fold(p) for p in found))


def _reason_by_name(path: str, homes: list[str]) -> str | None:
    for home in homes:
        if path == home or path.startswith(home + "/"):
            rest = path[len(home) + 1 :]
            top_markdown = "/" not in rest and rest.endswith(".md")
            if not top_markdown and rest != "tmp" and not rest.startswith("tmp/"):
                return "the Qwen home directory"
    parts = path.split("/")
    for index, part in enumerate(parts[:-1]):
        if part in _DIRECTORIES:
            return f"a {part} directory"
        if part == ".qwen" and not (index == len(parts) - 2 and parts[-1].endswith(".md")):
            return "a .qwen directory"
        if part == ".github" and parts[index + 1 : index + 2] == ["workflows"]:
            return "CI workflows"
        if part == ".config" and parts[index + 1 : index + 2] == ["git"]:
            return "git's user configuration"
    if parts[-1] in _NAMES:
        return parts[-1]
    return None


def _homes(config: Config) -> list[str]:
    homes = [str(config.home_dir), os.path.join(os.path.expanduser("~"), ".qwen")]
    found: list[str] = []
    for home in homes:
        for form in (os.path.normpath(os.path.abspath(home)), os.path.realpath(home)):
            folded = _fold(form).rstrip("/")
            if folded and folded not in found:
                found.append(folded)
    return found


def sensitive_path_reason(config: Config, path: str) -> str | None:
    """Why an edit of ``path`` must ask (what it is), or ``None`` for an ordinary file."""
    homes = _homes(config)
    for candidate in _candidates(path, config.target_dir):
        reason = _reason_by_name(candidate, homes)
        if reason is not None:
            return reason
    try:
        st = os.stat(os.path.join(str(config.target_dir), path))
    except OSError:
        return None
    if st.st_nlink > 1 and not os.path.isdir(os.path.join(str(config.target_dir), path)):
        return "a file with other hard links"
    return None


async def is_sensitive_edit(config: Config, path: str) -> bool:
    """:func:`sensitive_path_reason` off the event loop (it looks at the file system)."""
    import anyio.to_thread  # only edits ask: a read-only call never loads it

    return await anyio.to_thread.run_sync(sensitive_path_reason, config, path) is not None
