"""ripgrep's ignore rules, for the Python engine's walk.

Below a directory root, an entry is decided in ripgrep's order: the ``--glob`` override first
(see :mod:`.rg_glob`), then the ignore files — ``.rgignore``, ``.ignore``, ``.gitignore``,
``.git/info/exclude``, the global git excludes file, the ``--ignore-file`` files — then hidden
names (a leading dot) are skipped. Within each kind the deepest directory with a matching
pattern decides; ignore files of the root's parent directories count too. Git rules apply only
inside a repository (a ``.git`` here or above) and stop at the innermost repository's top;
``--no-ignore-vcs`` (``respect_git_ignore`` off) drops them. ``--ignore-file`` patterns are
matched against the absolute path without its leading slash, as ripgrep does, so only
unanchored ones take effect.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from qwen_tools.config.ignore_rules import IgnoreSource, load_ignore_file
from qwen_tools.tools.grep.rg_sandbox import global_excludes_path
from qwen_tools.tools.grep.ripgrep import SearchRequest

_RGIGNORE, _IGNORE, _GITIGNORE, _EXCLUDE = range(4)

Sources = tuple[tuple[int, IgnoreSource], ...]
"""Ignore files with the length of their directory's path prefix (``-1``: git-only global)."""


@dataclass(frozen=True, slots=True)
class DirIgnores:
    """Ignore state for the entries of one directory: sources per kind, deepest first."""

    sources: tuple[Sources, Sources, Sources, Sources]
    in_git: bool

    def child(self, path: str, names: set[str], respect_git: bool) -> DirIgnores:
        """The state for the entries of ``path``, whose entry names are ``names``."""
        base = len(path.rstrip("/")) + 1
        has_git = respect_git and ".git" in names

        def own(name: str, inherited: Sources) -> Sources:
            if name not in names:
                return inherited
            source = load_ignore_file(os.path.join(path, name), "", name)
            return ((base, source), *inherited) if source is not None else inherited

        rgignore = own(".rgignore", self.sources[_RGIGNORE])
        ignore = own(".ignore", self.sources[_IGNORE])
        git: Sources = () if has_git else self.sources[_GITIGNORE]
        exclude: Sources = () if has_git else self.sources[_EXCLUDE]
        if respect_git:
            git = own(".gitignore", git)
        if has_git:
            source = load_ignore_file(_exclude_path(path), "", "exclude")
            exclude = ((base, source),) if source is not None else ()
        return DirIgnores((rgignore, ignore, git, exclude), self.in_git or has_git)

    def decide(self, path: str, is_dir: bool, extra: Sources) -> bool | None:
        """True (ignored), False (whitelisted) or None, by ripgrep's precedence."""
        for kind, sources in enumerate(self.sources):
            if kind >= _GITIGNORE and not self.in_git:
                break
            for base, source in sources:
                verdict = source.check(path[base:], is_dir)
                if verdict is not None:
                    return verdict
        for base, source in extra:  # global git excludes (git only), then --ignore-file
            if base < 0 and not self.in_git:
                continue
            verdict = source.check(path[1:], is_dir)
            if verdict is not None:
                return verdict
        return None


def extra_sources(request: SearchRequest) -> Sources:
    """The ignore files that hold for every directory: git's global excludes, ``--ignore-file``."""
    extra: list[tuple[int, IgnoreSource]] = []
    if request.respect_git_ignore and (excludes := _global_excludes(request)) is not None:
        extra.append((-1, excludes))
    for ignore_file in reversed(request.ignore_files):
        if (source := load_ignore_file(ignore_file, "", ignore_file)) is not None:
            extra.append((0, source))
    return tuple(extra)


def parents_ignores(root: str, respect_git: bool) -> DirIgnores:
    """The ignore state built from the ancestors of ``root`` (its own files included)."""
    chain = [root]
    while (parent := os.path.dirname(chain[-1])) != chain[-1]:
        chain.append(parent)
    state = DirIgnores(((), (), (), ()), False)
    for directory in reversed(chain):
        names = {n for n in (".git", ".gitignore", ".ignore", ".rgignore") if _exists(directory, n)}
        state = state.child(directory, names, respect_git)
    return state


def _exclude_path(directory: str) -> str:
    """``.git/info/exclude`` of a work tree (following a ``gitdir:`` file)."""
    dot_git = os.path.join(directory, ".git")
    git_dir = dot_git
    if os.path.isfile(dot_git):
        try:
            with open(dot_git, encoding="utf-8", errors="replace") as fh:
                git_dir = os.path.join(
                    directory, fh.readline().strip().removeprefix("gitdir:").strip()
                )
            with open(os.path.join(git_dir, "commondir"), encoding="utf-8") as fh:
                git_dir = os.path.join(git_dir, fh.read().strip())
        except OSError:
            pass
    return os.path.join(git_dir, "info", "exclude")


def _global_excludes(request: SearchRequest) -> IgnoreSource | None:
    """git's global excludes file (``core.excludesFile``, else ``$XDG_CONFIG_HOME/git/ignore``)."""
    path = request.git_excludes if request.git_excludes is not None else global_excludes_path()
    return load_ignore_file(path, "", "excludesFile")


def _exists(directory: str, name: str) -> bool:
    return os.path.lexists(os.path.join(directory, name))
