"""The permission rule suggested for one command: ``root [subcommand] [*]`` (shown as ``Bash(…)``).

Leading options are skipped to find a subcommand; only the programs below have subcommands
(``docker compose`` has a second level). ``*`` is appended only when arguments follow.
"""

from __future__ import annotations

from qwen_tools.shell.text_scan import word_set

__all__ = ["KNOWN_SUBCOMMANDS", "command_rule"]


_PIP = word_set(
    "install download uninstall freeze inspect list show check config search cache index wheel "
    "hash completion debug help"
)

KNOWN_SUBCOMMANDS: dict[str, frozenset[str]] = {
    "git": word_set(
        "add am archive bisect blame branch bundle cat-file checkout cherry-pick clean clone "
        "commit config describe diff fetch format-patch gc grep init log ls-files ls-remote "
        "merge mv notes pull push range-diff rebase reflog remote reset restore revert rev-parse "
        "rm shortlog show stash status submodule switch tag worktree"
    ),
    "npm": word_set(
        "access adduser audit bugs cache ci completion config create dedupe deprecate diff "
        "dist-tag docs doctor edit exec explain explore find-dupes fund help hook init install "
        "install-ci-test install-test link login logout ls org outdated owner pack ping pkg "
        "prefix profile prune publish query rebuild repo restart root run run-script search "
        "set-script shrinkwrap star stars start stop team test token uninstall unpublish unstar "
        "update version view whoami"
    ),
    "yarn": word_set(
        "add autoclean bin cache check config create generate-lock-entry global help import "
        "info init install licenses link list login logout outdated owner pack policies publish "
        "remove run tag team test unlink unplug upgrade upgrade-interactive version versions why "
        "workspace workspaces"
    ),
    "pnpm": word_set(
        "add audit create dedupe deploy dlx env exec fetch import init install install-test "
        "licenses link list ls outdated pack patch patch-commit prune publish rebuild remove root "
        "run server setup store test uninstall unlink update why"
    ),
    "docker": word_set(
        "attach build commit compose container context cp create diff events exec export history "
        "image images import info inspect kill load login logout logs manifest network node pause "
        "plugin port ps pull push rename restart rm rmi run save search secret service stack "
        "start stats stop swarm system tag top trust unpause update version volume wait"
    ),
    "pip": _PIP,
    "pip3": _PIP,
    "cargo": word_set(
        "add bench build check clean clippy doc fetch fix fmt generate-lockfile init install "
        "locate-project login metadata new owner package pkgid publish read-manifest remove "
        "report run rustc rustdoc search test tree uninstall update vendor verify-project version "
        "yank"
    ),
    "kubectl": word_set(
        "annotate api-resources api-versions apply attach auth autoscale certificate cluster-info "
        "completion config cordon cp create debug delete describe diff drain edit events exec "
        "explain expose get kustomize label logs patch plugin port-forward proxy replace rollout "
        "run scale set taint top uncordon version wait"
    ),
}

_DOCKER_COMPOSE = word_set(
    "build config cp create down events exec images kill logs ls pause port ps pull push restart "
    "rm run start stop top unpause up version wait watch"
)


def command_rule(name: str, args: list[str]) -> str:
    """The rule body for ``name args…``; ``name`` and ``args`` as written (quotes kept).

    ``npm install foo`` → ``npm install *``; ``git status`` → ``git status``;
    ``ls -la`` → ``ls *``; ``pwd`` → ``pwd``.
    """
    root = name.lower()
    index = 0
    while index < len(args) and args[index].startswith("-"):
        index += 1
    subcommands = KNOWN_SUBCOMMANDS.get(root)
    if subcommands and index < len(args) and args[index].lower() in subcommands:
        rule = f"{root} {args[index]}"
        compose = root == "docker" and args[index].lower() == "compose"
        if compose and index + 1 < len(args) and args[index + 1].lower() in _DOCKER_COMPOSE:
            rule = f"{root} compose {args[index + 1]}"
            return rule + " *" if index + 2 < len(args) else rule
        return rule + " *" if index + 1 < len(args) else rule
    return root + " *" if args else root
