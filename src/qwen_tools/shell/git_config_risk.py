"""Whether git, run in a directory, could run a program its repository's configuration names.

``git status``, ``git diff`` or ``git log -p`` only read, yet git runs programs its
configuration names: an fsmonitor hook (``status``), an external diff or a diff driver's
``textconv``/``command`` (``diff``, ``log -p``, ``show``), a clean/smudge filter (``status``,
``diff``), an SSH command, credential helper or URL rewrite (``remote show``), a pager, a GPG
program (``log --show-signature``)… A model that could edit that configuration could turn a
read-only command into any program. So a read-only git command runs without approval only when
the configuration it would read sets none of the keys below, in the repository's own config
(``local`` and ``worktree`` scopes, with their ``include.path``/``includeIf`` files), in any file
the configuration includes from inside the workspace, or in a submodule's config
(``$GIT_COMMON_DIR/modules/**/config``). The user's own ``global`` and ``system`` settings are
trusted.

Risky keys: ``core.fsmonitor`` (unless a boolean), ``core.hooksPath``, ``core.pager``,
``core.editor``, ``core.sshCommand``, ``core.gitProxy``, ``core.askPass``,
``core.alternateRefsCommand``, ``sequence.editor``, ``pager.*``, ``diff.external``,
``diff.*.command``, ``diff.*.textconv``, ``filter.*.clean|smudge|process``, ``merge.*.driver``,
``gpg.program``, ``gpg.*.program``, ``gpg.ssh.defaultKeyCommand``, ``credential.helper``,
``credential.*.helper``, ``remote.*.uploadpack|receivepack|vcs``, ``protocol.*``,
``url.*.insteadOf|pushInsteadOf``, ``uploadpack.packObjectsHook``, ``difftool.*``,
``mergetool.*``, ``man.*``, ``browser.*``, ``web.browser``, ``help.browser``, ``sendemail.*``,
``submodule.*.update`` and ``trace2.*`` (which writes a file), and ``blame.ignoreRevsFile`` and
``mailmap.file`` (files git reads, and may quote in an error, wherever they are). A
configuration git cannot read counts as risky.

The probe runs ``git config`` (5 s limit) each time it is asked: a verdict is never kept.
:data:`NEUTRAL_GIT_CONFIG` lists ``-c``-style settings a caller may also pass through
``GIT_CONFIG_COUNT`` to commands it runs as read-only.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable, Iterator, Mapping

from qwen_tools.shell.syntax import Script, iter_commands

__all__ = [
    "NEUTRAL_GIT_CONFIG",
    "config_risk",
    "script_config_risk",
    "with_neutral_git_config",
]

_RISKY = re.compile(
    r"core\.(?:hookspath|pager|editor|sshcommand|gitproxy|askpass|alternaterefscommand)"
    r"|sequence\.editor|pager\..+|diff\.external|diff\..+\.(?:command|textconv)"
    r"|filter\..+\.(?:clean|smudge|process)|merge\..+\.driver"
    r"|gpg\.program|gpg\..+\.program|gpg\.ssh\.defaultkeycommand"
    r"|credential\.helper|credential\..+\.helper|remote\..+\.(?:uploadpack|receivepack|vcs)"
    r"|protocol\..+|url\..+\.(?:insteadof|pushinsteadof)|uploadpack\.packobjectshook"
    r"|difftool\..+|mergetool\..+|man\..+|browser\..+|web\.browser|help\.browser"
    r"|sendemail\..+|submodule\..+\.update|trace2\..+|blame\.ignorerevsfile|mailmap\.file",
    re.IGNORECASE | re.DOTALL,
)
_BOOLEAN = re.compile(r"true|false|yes|no|on|off|0|1|", re.IGNORECASE)
_TIMEOUT_S = 5.0
_MAX_SUBMODULE_CONFIGS = 200

NEUTRAL_GIT_CONFIG: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", "/dev/null"),
    ("protocol.ext.allow", "never"),
)
"""Settings that switch off what git would run on its own, for commands run as read-only."""


def _risky(key: str, value: str | None) -> bool:
    key = key.lower()
    if key == "core.fsmonitor":
        return not _BOOLEAN.fullmatch((value or "").strip())
    return _RISKY.fullmatch(key) is not None


def _git(args: list[str], cwd: str) -> subprocess.CompletedProcess[str] | None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_TRACE")}
    try:
        return subprocess.run(
            ["git", *args],
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            errors="surrogateescape",
            timeout=_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None


def _entries(output: str, with_scope: bool) -> Iterator[tuple[str, str, str, str | None]]:
    """``(scope, origin, key, value)`` of ``git config --list --null --show-origin`` output."""
    fields = output.split("\0")
    step = 3 if with_scope else 2
    for index in range(0, len(fields) - step + 1, step):
        scope = fields[index] if with_scope else "file"
        origin = fields[index + step - 2]
        key, newline, value = fields[index + step - 1].partition("\n")
        yield scope, origin, key, value if newline else None


def _origin_path(origin: str, cwd: str) -> str | None:
    if not origin.startswith("file:"):
        return None
    return os.path.join(cwd, origin[5:])


def _first_risk(
    output: str, cwd: str, inside: Callable[[str], bool], with_scope: bool
) -> str | None:
    for scope, origin, key, value in _entries(output, with_scope):
        path = _origin_path(origin, cwd)
        relevant = scope in ("local", "worktree", "file") or (path is not None and inside(path))
        if relevant and _risky(key, value):
            return key
    return None


def _submodule_configs(cwd: str) -> list[str]:
    done = _git(["rev-parse", "--git-common-dir"], cwd)
    if done is None or done.returncode != 0:
        return []
    modules = os.path.join(cwd, done.stdout.strip(), "modules")
    found: list[str] = []
    for root, dirs, files in os.walk(modules):
        dirs[:] = [d for d in dirs if d not in ("objects", "refs", "logs", "hooks")]
        if "config" in files:
            found.append(os.path.join(root, "config"))
        if len(found) >= _MAX_SUBMODULE_CONFIGS:
            break
    return found


def config_risk(cwd: str, inside: Callable[[str], bool]) -> str | None:
    """The first risky key git would read in ``cwd`` (see the module docstring), else ``None``.

    ``inside`` tells whether a file is in the workspace (then its settings count even when a
    global ``include`` brought them in). Outside any repository only included workspace files
    can matter. A configuration git cannot read gives ``"(unreadable configuration)"``.
    """
    if not os.path.isdir(cwd):
        return None
    listing = ["config", "--list", "--includes", "--null", "--show-origin"]
    done = _git([*listing, "--show-scope"], cwd)
    if done is None or done.returncode != 0:
        return "(unreadable configuration)"
    risk = _first_risk(done.stdout, cwd, inside, with_scope=True)
    if risk is not None:
        return risk
    for path in _submodule_configs(cwd):
        sub = _git([*listing, "--file", path], os.path.dirname(path))
        if sub is None or sub.returncode != 0:
            return "(unreadable configuration)"
        risk = _first_risk(sub.stdout, os.path.dirname(path), inside, with_scope=False)
        if risk is not None:
            return risk
    return None


def script_config_risk(script: Script, cwd: str, inside: Callable[[str], bool]) -> str | None:
    """Why the git commands of ``script``, run in ``cwd``, could run a configured program.

    ``None`` when the script runs no git or the configuration is clean. A ``cd``/``pushd``/
    ``popd`` before a git command makes its repository unknown, which counts as a risk.
    """
    moved = uses_git = False
    for command in iter_commands(script, into_substitutions=True):
        name = command.words[0].text.rsplit("/", 1)[-1] if command.words else ""
        if name in ("cd", "pushd", "popd"):
            moved = True
        elif name == "git":
            if moved:
                return "(git runs after a change of directory)"
            uses_git = True
    return config_risk(cwd, inside) if uses_git else None


def with_neutral_git_config(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` plus :data:`NEUTRAL_GIT_CONFIG` as ``GIT_CONFIG_COUNT`` entries (after any there)."""
    out = dict(env)
    try:
        count = max(0, int(out.get("GIT_CONFIG_COUNT", "0")))
    except ValueError:
        count = 0
    for key, value in NEUTRAL_GIT_CONFIG:
        out[f"GIT_CONFIG_KEY_{count}"] = key
        out[f"GIT_CONFIG_VALUE_{count}"] = value
        count += 1
    out["GIT_CONFIG_COUNT"] = str(count)
    return out
