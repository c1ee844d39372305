"""Our gitignore pattern engine against ``git check-ignore`` itself, pattern set by pattern set."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from qwen_tools.config.file_service import (
    FileDiscoveryService,
)
from support.ignore_trees import make

requires_git = pytest.mark.skipif(
    shutil.which("git") is None and not os.environ.get("CI"), reason="git is not installed"
)


# -- the pattern engine against git itself ---------------------------------------------------

# fmt: off
TREE = [
    "a.txt", "b.txt", "ab.txt", "[x].txt", "!bang", "#hash", "sp ace", "trail ", "a1", "a-",
    "Q.md", "q.md", "d1/a.txt", "d1/d2/a.txt", "d1/d2/d3/b.txt", "foo/bar/baz", "foo/baz",
    "x/foo/bar", "lib/x.so", "lib/sub/x.so", "abc/def", "digits/1", "m/n/o/p.txt", ".hidden",
    "sub/.hidden", "star*", "pkg/node_modules/m.js",
]
# fmt: on
PATTERN_CASES = [
    ["*", "!*/", "!*.txt"],
    ["[ab].txt", "[!a].txt"],
    ["\\[x\\].txt", "\\!bang", "\\#hash"],
    ["sp ace", "trail\\ ", "a?", "!a1"],
    ["[[:digit:]]", "[[:alpha:]]-", "[[:bogus:]]", "[abc"],
    ["d1/**/a.txt", "**/d3"],
    ["d1/*", "!d1/d2"],
    ["foo/**/baz", "!x/**", "m/**/p.txt"],
    ["*.so", "!lib/*.so", "[Qq].md"],
    [".*", "!.hidden", "star\\*"],
    ["**/*.txt", "!**/d2/**"],
    ["d1/**", "abc/", "!abc/def"],
    ["*/", "!d1/", "node_modules/"],
]


@requires_git
@pytest.mark.parametrize("patterns", PATTERN_CASES, ids=lambda p: " ".join(p))
def test_matches_git_check_ignore(repo: Path, patterns: list[str]) -> None:
    make(repo, TREE, **{".gitignore": "\n".join(patterns) + "\n"})
    entries = sorted(
        str(Path(dirpath, name).relative_to(repo))
        for dirpath, dirs, files in os.walk(repo)
        if ".git" not in Path(dirpath).relative_to(repo).parts
        for name in dirs + files
        if name not in (".git", ".gitignore")
    )
    result = subprocess.run(
        ["git", "check-ignore", "--no-index", "--stdin", "-z"],
        cwd=repo,
        input="\0".join(entries) + "\0",
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode in (0, 1), result.stderr
    direct = set(filter(None, result.stdout.split("\0")))
    assert direct  # every case ignores something
    svc = FileDiscoveryService(repo)
    for entry in entries:
        parts = entry.split("/")
        expected = any("/".join(parts[:i]) in direct for i in range(1, len(parts) + 1))
        assert svc.should_git_ignore_file(entry) is expected, entry
