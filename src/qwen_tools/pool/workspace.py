"""Workspaces on one host: a pristine copy and a baseline git commit per template, a fresh copy
per session, and the session's changes as a unified diff against the baseline.

Layout under the host's root::

    templates/<id>/tree      the template's files, as extracted or cloned
    templates/<id>/git       the baseline repository (a git template's own .git)
    sessions/<sid>/workspace the session's workspace (the only place its shell may write)
    sessions/<sid>/home      its QWEN_HOME (project temp dir: saved outputs, background logs)
    sessions/<sid>/index     its git index while a diff is computed

Opening a session costs one archive extraction and no git command; the diff uses the baseline
repository with the session's own index file (``git add -A`` of the workspace, then
``git diff --cached --binary`` against the baseline commit), so new, deleted and binary files
are all in it and nothing the session does to its own ``.git`` can change the baseline.
Git runs without the user's or system's configuration, so the diff is the same everywhere.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import tarfile
from dataclasses import dataclass
from pathlib import Path

from qwen_tools.pool.errors import PoolError
from qwen_tools.pool.template import Template

__all__ = ["Baseline", "TemplateCache", "git_env"]

_IDENTITY = ("-c", "user.name=qwen-tools", "-c", "user.email=qwen-tools@localhost")


def git_env(git_dir: Path, work_tree: Path, index: Path | None = None) -> dict[str, str]:
    """The environment of a git command on ``work_tree`` with the baseline ``git_dir``."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("GIT_") and key not in {"HOME", "XDG_CONFIG_HOME"}
    }
    env.update(
        GIT_DIR=str(git_dir),
        GIT_WORK_TREE=str(work_tree),
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        HOME=str(git_dir),
        LC_ALL="C",
    )
    if index is not None:
        env["GIT_INDEX_FILE"] = str(index)
    return env


def _git(args: list[str], env: dict[str, str], cwd: Path | None = None) -> str:
    done = subprocess.run(
        ["git", *_IDENTITY, "-c", "core.autocrlf=false", "-c", "core.quotepath=false", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip()
        raise PoolError(f"git {args[0]} failed: {message}")
    return done.stdout.decode("utf-8", "surrogateescape")


@dataclass(frozen=True)
class Baseline:
    """One template on this host: its archive, its pristine tree and its baseline commit."""

    archive: bytes
    tree: Path
    git_dir: Path
    commit: str

    def materialize(self, destination: Path) -> None:
        """Fill ``destination`` (created) with the template's files."""
        destination.mkdir(parents=True)
        with tarfile.open(fileobj=io.BytesIO(self.archive), mode="r:") as archive:
            archive.extractall(destination, filter="tar")

    def diff(self, workspace: Path, index: Path) -> str:
        """``workspace``'s changes against the baseline, as ``git diff --binary`` prints them."""
        env = git_env(self.git_dir, workspace, index)
        try:
            _git(["read-tree", self.commit], env, workspace)
            _git(["add", "-A", "--", "."], env, workspace)
            return _git(
                ["diff", "--cached", "--binary", "--no-renames", self.commit], env, workspace
            )
        finally:
            index.unlink(missing_ok=True)


class TemplateCache:
    """The templates prepared on this host (each once), under ``root/templates``."""

    def __init__(self, root: Path) -> None:
        self.root = root / "templates"
        self._baselines: dict[str, Baseline] = {}

    def __contains__(self, template_id: str) -> bool:
        return template_id in self._baselines

    def get(self, template: Template) -> Baseline:
        """The baseline of ``template``, prepared now if it is new here (blocking: git, tar).

        A ``tar`` template must carry its archive's bytes.
        """
        known = self._baselines.get(template.id)
        if known is not None:
            return known
        place = self.root / template.id
        if place.exists():
            shutil.rmtree(place)
        baseline = self._from_git(template, place) if template.kind == "git" else None
        if baseline is None:
            baseline = self._from_archive(template, place)
        self._baselines[template.id] = baseline
        return baseline

    def _from_archive(self, template: Template, place: Path) -> Baseline:
        if not isinstance(template.data, bytes):
            raise PoolError(f"template {template.id} carries no archive")
        tree, git_dir = place / "tree", place / "git"
        baseline = Baseline(template.data, tree, git_dir, "")
        baseline.materialize(tree)
        env = git_env(git_dir, tree)
        _git(["init", "-q"], env, tree)
        _git(["add", "-A", "--", "."], env, tree)
        _git(["commit", "-q", "--allow-empty", "--no-verify", "-m", "template"], env, tree)
        commit = _git(["rev-parse", "HEAD"], env, tree).strip()
        return Baseline(template.data, tree, git_dir, commit)

    def _from_git(self, template: Template, place: Path) -> Baseline:
        tree = place / "tree"
        place.mkdir(parents=True)
        env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
        env.update(GIT_TERMINAL_PROMPT="0")
        url = str(template.url)
        _git(["clone", "-q", "--no-checkout", "--", url, str(tree)], env, place)
        git_dir = tree / ".git"
        local = git_env(git_dir, tree)
        _git(["checkout", "-q", "--detach", str(template.revision or "HEAD")], local, tree)
        commit = _git(["rev-parse", "HEAD"], local, tree).strip()
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
            archive.add(str(tree), arcname=".", recursive=True)
        return Baseline(buffer.getvalue(), tree, git_dir, commit)
