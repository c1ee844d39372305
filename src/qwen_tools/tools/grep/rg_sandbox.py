"""What ``rg`` may read when ``grep_search`` runs it: the workspace, and only what rg needs besides.

ripgrep opens the files it searches itself, after every check our code could make, so the
boundary is enforced by the kernel (:mod:`qwen_tools.sandbox.landlock`): rg runs where only
these can be opened, whatever symlink an outside process swaps in on the way:

* the workspace directories (and the read-only ones): read files, list directories;
* the ``rg`` binary, its ELF loader and the shared libraries the loader maps
  (``<loader> --list rg``, once per binary), and ``/etc/ld.so.cache``: read and execute;
* the ignore files rg reads above each workspace directory: ``.ignore``, ``.rgignore``,
  ``.gitignore`` and ``.git/info/exclude`` of every ancestor (a ``.git`` file's ``gitdir`` and
  ``commondir`` followed), read only. Nothing else of those directories.

git's *global* excludes file is not opened by rg at all: rg would first read ``~/.gitconfig``
(which can hold credentials) to find it. We read it ourselves (:func:`global_excludes_path`,
the same rule as rg's) and give rg a private ``HOME`` and ``XDG_CONFIG_HOME`` holding a copy at
the default place, ``git/ignore``, so its patterns apply as before.

The consequence of the allowances, documented in the README: a swapped symlink can make rg show
lines of one of those ignore files or of a system library, never of any other file.
:func:`confinement_works` runs ``rg --version`` confined once per binary; when Landlock is
unavailable or that fails, ``grep_search`` uses the Python engine instead of an unconfined rg.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import shutil
import stat
import subprocess
import tempfile
import threading
from collections.abc import Iterable

from qwen_tools.sandbox.landlock import (
    LandlockError,
    ReadPolicy,
    abi_version,
    program_files,
    spawn_confined,
)

__all__ = ["confinement_works", "global_excludes_path", "rg_confinement"]

_LOADER_FILES = ("/etc/ld.so.cache", "/etc/ld.so.preload")
_ANCESTOR_NAMES = (".ignore", ".rgignore")
_GIT_NAMES = (".gitignore", ".git/info/exclude")

_HOME_PREFIX = "qwen-tools-rg-home-"
_lock = threading.Lock()
_programs: dict[str, tuple[str, ...] | None] = {}
_works: dict[str, bool] = {}
_home: list[str] = []
_home_excludes: list[bytes | None] = []


def _git_files(directory: str) -> list[str]:
    """What rg reads of a ``.git`` *file* (a worktree): it, ``commondir`` and the exclude file."""
    dot_git = os.path.join(directory, ".git")
    files = [dot_git]
    try:
        with open(dot_git, encoding="utf-8", errors="replace") as fh:
            git_dir = os.path.join(directory, fh.readline().strip().removeprefix("gitdir:").strip())
        files.append(os.path.join(git_dir, "commondir"))
        with open(os.path.join(git_dir, "commondir"), encoding="utf-8") as fh:
            common = os.path.join(git_dir, fh.read().strip())
        files.append(os.path.join(common, "info", "exclude"))
    except OSError:
        pass
    return files


def _ancestor_ignore_files(roots: Iterable[str], respect_git_ignore: bool) -> list[str]:
    found: list[str] = []
    for root in roots:
        directory = os.path.dirname(root)
        while True:
            names = _ANCESTOR_NAMES + (_GIT_NAMES if respect_git_ignore else ())
            found += [os.path.join(directory, name) for name in names]
            if respect_git_ignore and os.path.isfile(os.path.join(directory, ".git")):
                found += _git_files(directory)
            parent = os.path.dirname(directory)
            if parent == directory:
                break
            directory = parent
    return list(dict.fromkeys(p for p in found if os.path.isfile(p)))


def global_excludes_path() -> str:
    """git's global excludes file as rg finds it: ``core.excludesFile``, else the XDG default."""
    home = os.path.expanduser("~")
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    for config in (os.path.join(home, ".gitconfig"), os.path.join(xdg, "git", "config")):
        try:
            with open(config, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
        except OSError:
            continue
        core = re.search(r"(?ims)^\s*\[core\](.*?)(?=^\s*\[|\Z)", text)
        value = core and re.search(r"(?im)^\s*excludesfile\s*=\s*(.+?)\s*$", core.group(1))
        if value:
            return os.path.expanduser(value.group(1).strip('"'))
    return os.path.join(xdg, "git", "ignore")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _remove_stale_homes(base: str) -> None:
    """Private homes left by processes of ours that could not clean up (``kill -9``)."""
    with contextlib.suppress(OSError):
        for name in os.listdir(base):
            owner = name.removeprefix(_HOME_PREFIX).split("-", 1)[0]
            if name == owner or not owner.isdigit() or _alive(int(owner)):
                continue
            path = os.path.join(base, name)
            with contextlib.suppress(OSError):
                info = os.lstat(path)
                if stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid():
                    shutil.rmtree(path, ignore_errors=True)


def _remove_home(home: str, creator: int) -> None:
    if os.getpid() == creator:
        shutil.rmtree(home, ignore_errors=True)


def _make_home() -> str:
    base = tempfile.gettempdir()
    _remove_stale_homes(base)
    home = tempfile.mkdtemp(prefix=f"{_HOME_PREFIX}{os.getpid()}-", dir=base)
    os.makedirs(os.path.join(home, "xdg", "git"), mode=0o700)
    atexit.register(_remove_home, home, os.getpid())
    return home


def _private_home(respect_git_ignore: bool) -> str:
    """Our own ``HOME`` for rg, holding a copy of the global excludes (when they apply).

    One per process, in the temporary directory (mode 0700), removed at exit; one left by a
    killed process is removed by the next process that makes its own.
    """
    content: bytes | None = None
    if respect_git_ignore:
        try:
            with open(global_excludes_path(), "rb") as fh:
                content = fh.read(1 << 20)
        except OSError:
            content = None
    with _lock:
        if not _home or not os.path.isdir(os.path.join(_home[0], "xdg", "git")):
            _home[:] = [_make_home()]  # the first time, or the temporary directory was cleaned
            _home_excludes[:] = [None]
        home = _home[0]
        if content != _home_excludes[0]:
            target = os.path.join(home, "xdg", "git", "ignore")
            if content is None:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(target)
            else:
                spare = f"{target}.{threading.get_ident()}"
                with open(spare, "wb") as fh:
                    fh.write(content)
                os.replace(spare, target)
            _home_excludes[0] = content
    return home


def _programs_of(command: str) -> tuple[str, ...]:
    with _lock:
        if command not in _programs:
            _programs[command] = program_files(command)
        programs = _programs[command]
    if programs is None:
        raise LandlockError(0, f"cannot tell which libraries {command} loads")
    return programs


def rg_confinement(
    command: str, roots: Iterable[str], respect_git_ignore: bool
) -> tuple[ReadPolicy, dict[str, str]]:
    """What ``command`` may open when searching beneath ``roots`` (realpath-resolved), and its
    environment: ours without ``RIPGREP_CONFIG_PATH``, with the private home."""
    programs = _programs_of(command)
    home = _private_home(respect_git_ignore)
    env = {k: v for k, v in os.environ.items() if k != "RIPGREP_CONFIG_PATH"}
    env["HOME"] = home
    env["XDG_CONFIG_HOME"] = os.path.join(home, "xdg")
    trees = tuple(dict.fromkeys(roots))
    policy = ReadPolicy(
        trees=(*trees, home),
        files=(*_LOADER_FILES, *_ancestor_ignore_files(trees, respect_git_ignore)),
        programs=programs,
    )
    return policy, env


def confinement_works(command: str) -> bool:
    """Whether ``command --version`` runs confined (checked once per binary)."""
    if abi_version() <= 0:
        return False
    with _lock:
        known = _works.get(command)
    if known is not None:
        return known
    try:
        probe = spawn_confined(
            [command, "--version"], ReadPolicy((), _LOADER_FILES, _programs_of(command)),
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        out, _ = probe.communicate(timeout=10)
        works = probe.returncode == 0 and out.startswith(b"ripgrep")
    except (OSError, subprocess.SubprocessError):  # LandlockError included
        works = False
    with _lock:
        _works[command] = works
    return works
