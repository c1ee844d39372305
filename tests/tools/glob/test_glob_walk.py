"""The fast ``glob`` walk: name matching, per-directory ignore tests and walk order."""

from __future__ import annotations

import os
import random
import time
from pathlib import Path

import pytest
from wcmatch import fnmatch

from qwen_tools.config.config import Config
from qwen_tools.config.file_service import FileDiscoveryService, FileFilteringOptions
from qwen_tools.tools import GlobTool
from qwen_tools.tools.common.glob_patterns import (
    GLOB_FLAGS,
    GlobAutomaton,
    NameSegment,
    compile_glob,
)
from support.workspaces import git_init

OLD = 978307200  # 2001-01-01T00:00:00Z
SEGMENTS = ["*.txt", "file0000?.txt", "@(a|b)*.py", "!(foo)", "[a-c]x", ".*", "a\\*b", "+(x)y"]
NAMES = ["a.txt", "A.TXT", "file00001.txt", "file0001.txt", "apy.py", "b.PY", "foo", "fo", "bx"]
NAMES += [".hidden", "a*b", "axb", "xxy", "y", ".txt", "é.txt"]


def names_of(text: object) -> list[str]:
    assert isinstance(text, str)
    return [line for line in text.splitlines() if line.startswith("/")]


async def glob_files(root: Path, pattern: str, config: Config | None = None) -> list[str]:
    tool = GlobTool(config or Config(root))
    result = await tool.build_and_execute({"pattern": pattern})
    return sorted(os.path.relpath(p, root) for p in names_of(result.llm_content))


@pytest.mark.parametrize("segment", SEGMENTS)
def test_name_segments_match_as_wcmatch_does(segment: str) -> None:
    compiled = NameSegment(segment)
    reference = fnmatch.compile(segment, flags=GLOB_FLAGS)
    for name in NAMES:
        assert compiled.match(name) == reference.match(name), name
        assert bool(compiled.fullmatch(name)) == reference.match(name), name


def test_steps_are_cached_per_state_set(tmp_path: Path) -> None:
    [(_base, segments)] = compile_glob("src/**/*.py", str(tmp_path), lambda _: True)
    automaton = GlobAutomaton([segments])
    start = automaton.start()
    step = automaton.step(start)
    assert automaton.step(frozenset(start)) is step
    inside = step.descend("src")
    assert inside == automaton.step(start).descend("src")
    assert not step.descend("lib") and step.final is None
    deeper = automaton.step(inside)
    assert deeper.final is not None and deeper.final("x.PY") and not deeper.final("x.txt")
    assert deeper.descend("any") == inside  # ``**`` swallows directories


def _random_rule(rng: random.Random) -> str:
    atoms = ["a", "b", "*", "?", "[ab]", "**", "*.log", "\\*", "[[:alpha:]]", ".git", "x y"]
    parts = ["".join(rng.choice(atoms) for _ in range(rng.randint(1, 2))) for _ in range(3)]
    rule = "/".join(parts[: rng.randint(1, 3)])
    rule = ("/" if rng.random() < 0.2 else "") + rule + ("/" if rng.random() < 0.25 else "")
    return ("!" if rng.random() < 0.25 else "") + rule


@pytest.mark.parametrize("seed", range(40))
def test_entry_filter_agrees_with_should_ignore_file(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    top = tmp_path / "repo"
    (top / ".git" / "info").mkdir(parents=True)
    root = top / rng.choice(["", "", "a"])
    root.mkdir(parents=True, exist_ok=True)
    for directory in ("", "a", "b", "a/b", "a/a/b"):
        if rng.random() < 0.6:
            (top / directory).mkdir(parents=True, exist_ok=True)
            rules = [_random_rule(rng) for _ in range(rng.randint(1, 5))]
            (top / directory / ".gitignore").write_text("\n".join(rules) + "\n")
    (top / ".git/info/exclude").write_text(_random_rule(rng) + "\n")
    if rng.random() < 0.5:
        (root / ".qwenignore").write_text(f"{_random_rule(rng)}\n{_random_rule(rng)}\n")
    service = FileDiscoveryService(root)
    words = ["a", "b", "ab", "x.log", "*", ".git", "x y", "A"]
    for options in (FileFilteringOptions(), FileFilteringOptions(False, True)):
        for _ in range(60):
            rel = "/".join(rng.choice(words) for _ in range(rng.randint(1, 4)))
            directory, _, name = rel.rpartition("/")
            test = service.entry_filter(directory, options)
            for is_dir in (False, True):
                expected = service.should_ignore_file(rel, options, is_dir)
                assert test(name, is_dir) == expected, (rel, is_dir, options)


async def test_ignore_rules_of_every_shape(tmp_path: Path) -> None:
    top = Path(os.path.realpath(tmp_path)) / "repo"
    top.mkdir()
    git_init(top)
    (top / ".gitignore").write_text("*.log\n!keep.log\nproj/docs/**/gen/\n**/cache\n")
    root = top / "proj"
    files = [
        "a.txt", "a.log", "keep.log", "lib/b.log", "lib/keep.log", "docs/x/gen/g.txt",
        "docs/gen/h.txt", "gen/i.txt", "cache/c.txt", "lib/cache/d.txt", "lib/anchored.txt",
        "anchored.txt", "sub/only/o.txt", "sub/other/o.txt", "q.secret", "lib/q.secret",
    ]  # fmt: skip
    for name in files:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(name)
    (root / "lib" / ".gitignore").write_text("/anchored.txt\n")
    (root / "sub" / ".gitignore").write_text("only/\n")
    (root / ".qwenignore").write_text("*.secret\n!lib/q.secret\n")
    expected = [  # ``**/`` also matches no directory: docs/gen is ignored too
        ".qwenignore", "a.txt", "anchored.txt", "gen/i.txt", "keep.log", "lib/.gitignore",
        "lib/keep.log", "lib/q.secret", "sub/.gitignore", "sub/other/o.txt",
    ]  # fmt: skip
    assert await glob_files(root, "**/*") == expected


def _stamp(path: Path, seconds: float) -> None:
    os.utime(path, (seconds, seconds), follow_symlinks=False)


@pytest.mark.parametrize("with_link", [False, True])
async def test_the_cap_keeps_the_first_matches_in_walk_order(ws: Path, with_link: bool) -> None:
    """Files of a directory (sorted) come before its subdirectories, depth first."""
    now = time.time()
    (ws / "a").mkdir()
    (ws / "b" / "c").mkdir(parents=True)
    for index in range(600):
        for path, stamp in ((ws / "a", OLD), (ws / "b", now - 7200 + index), (ws / "b/c", now)):
            (path / f"f{index:04d}.txt").write_text("")
            _stamp(path / f"f{index:04d}.txt", stamp)  # in b, later names are newer
    if with_link:  # a symlinked directory makes ``b`` take the entry-by-entry path
        os.symlink(ws / "a", ws / "b" / "link")
    result = await GlobTool(Config(ws)).build_and_execute({"pattern": "**/*.txt"})
    shown = names_of(result.llm_content)
    assert str(result.llm_content).startswith("Found at least 1000 file(s)")
    expected = [str(ws / "b" / f"f{index:04d}.txt") for index in range(399, 299, -1)]
    assert shown == expected
