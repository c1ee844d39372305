"""Ignore-file handling (``_config.file_service.FileDiscoveryService``) on real trees and repos."""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path

import pytest

from qwen_tools.config.file_service import (
    FileDiscoveryService,
    FileFilteringOptions,
    FilterReport,
)
from support.ignore_trees import git, make

requires_git = pytest.mark.skipif(
    shutil.which("git") is None and not os.environ.get("CI"), reason="git is not installed"
)

NO_GIT = FileFilteringOptions(respect_git_ignore=False)
NO_QWEN = FileFilteringOptions(respect_qwen_ignore=False)


# -- git rules ----------------------------------------------------------------------------


def test_gitignore_is_ignored_outside_a_git_repository(plain: Path) -> None:
    make(plain, ["a.log", "build/x.txt"], **{".gitignore": "*.log\nbuild/\n"})
    svc = FileDiscoveryService(plain)
    assert not svc.is_git_repository()
    assert not svc.should_git_ignore_file("a.log")
    assert not svc.should_git_ignore_file("build/x.txt")
    assert not svc.should_ignore_file("a.log")


def test_root_gitignore_and_negation(repo: Path) -> None:
    make(
        repo, ["a.log", "keep.log", "src/b.log", "src/c.py"], **{".gitignore": "*.log\n!keep.log\n"}
    )
    svc = FileDiscoveryService(repo)
    assert svc.is_git_repository()
    assert svc.should_git_ignore_file("a.log")
    assert svc.should_git_ignore_file("src/b.log")
    assert svc.should_git_ignore_file(repo / "src" / "b.log")  # absolute works too
    assert not svc.should_git_ignore_file("keep.log")
    assert not svc.should_git_ignore_file("src/c.py")


def test_nested_gitignore_applies_relative_to_its_directory(repo: Path) -> None:
    make(
        repo,
        ["top.tmp", "pkg/a.tmp", "pkg/deep/b.tmp", "pkg/only.txt", "only.txt", "pkg/deep/only.txt"],
        **{"pkg__.gitignore": "*.tmp\n/only.txt\n"},
    )
    svc = FileDiscoveryService(repo)
    assert not svc.should_git_ignore_file("top.tmp")  # outside pkg/
    assert svc.should_git_ignore_file("pkg/a.tmp")
    assert svc.should_git_ignore_file("pkg/deep/b.tmp")
    assert svc.should_git_ignore_file("pkg/only.txt")  # anchored to pkg/
    assert not svc.should_git_ignore_file("only.txt")
    assert not svc.should_git_ignore_file("pkg/deep/only.txt")


def test_deeper_gitignore_overrides_shallower(repo: Path) -> None:
    make(
        repo,
        ["a.log", "sub/a.log", "sub/x/a.log", "sub/b.txt"],
        **{".gitignore": "*.log\n", "sub__.gitignore": "!*.log\n", "sub__x__.gitignore": "*.log\n"},
    )
    svc = FileDiscoveryService(repo)
    assert svc.should_git_ignore_file("a.log")
    assert not svc.should_git_ignore_file("sub/a.log")
    assert svc.should_git_ignore_file("sub/x/a.log")


def test_contents_of_an_ignored_directory_cannot_be_negated(repo: Path) -> None:
    make(
        repo,
        ["build/keep.txt", "build/x.o", "out/keep.txt"],
        **{".gitignore": "build/\n!build/keep.txt\nout/*\n!out/keep.txt\n"},
    )
    svc = FileDiscoveryService(repo)
    assert svc.should_git_ignore_file("build/keep.txt")  # git: parent excluded
    assert not svc.should_git_ignore_file("out/keep.txt")  # "out/*" leaves out/ itself alone
    assert not svc.should_git_ignore_file("out")


def test_directory_only_patterns_and_is_dir(repo: Path) -> None:
    make(
        repo,
        ["build/", "build/a.txt", "logs", "cache/f"],
        **{".gitignore": "build/\nlogs/\ncache\n"},
    )
    svc = FileDiscoveryService(repo)
    # is_dir=None stats the path.
    assert svc.should_git_ignore_file("build")
    assert svc.should_git_ignore_file(repo / "build")
    assert not svc.should_git_ignore_file("logs")  # a file: "logs/" does not match it
    # A trailing slash marks a directory (glob's convention).
    assert svc.should_git_ignore_file("build/")
    assert svc.should_git_ignore_file("logs/", is_dir=None)
    # is_dir=False tests a directory as a file (list_directory's quirk) ...
    assert not svc.should_git_ignore_file("build", is_dir=False)
    assert not svc.should_ignore_file("build", is_dir=False)
    # ... but its contents remain ignored, and patterns without "/" still match it.
    assert svc.should_git_ignore_file("build/a.txt", is_dir=False)
    assert svc.should_git_ignore_file("cache", is_dir=False)
    assert svc.should_git_ignore_file("logs", is_dir=True)
    assert svc.should_git_ignore_file("missing-dir/x", is_dir=False) is False


def test_info_exclude(repo: Path) -> None:
    make(repo, ["secret.key", "pkg/also.key", "pkg/ok.py"])
    (repo / ".git" / "info").mkdir(exist_ok=True)
    (repo / ".git" / "info" / "exclude").write_text("# comment\n*.key\n")
    svc = FileDiscoveryService(repo)
    assert svc.should_git_ignore_file("secret.key")
    assert svc.should_git_ignore_file("pkg/also.key")
    assert not svc.should_git_ignore_file("pkg/ok.py")


def test_gitignore_overrides_info_exclude(repo: Path) -> None:
    make(repo, ["a.key"], **{".gitignore": "!a.key\n"})
    (repo / ".git" / "info").mkdir(exist_ok=True)
    (repo / ".git" / "info" / "exclude").write_text("*.key\n")
    assert not FileDiscoveryService(repo).should_git_ignore_file("a.key")


def test_dot_git_is_always_ignored(repo: Path) -> None:
    make(repo, ["sub/.git", "src/a.py"], **{".gitignore": "!.git\n!.git/\n"})
    svc = FileDiscoveryService(repo)
    assert svc.should_git_ignore_file(".git")
    assert svc.should_git_ignore_file(".git/config")
    assert svc.should_git_ignore_file(repo / ".git" / "HEAD")
    assert svc.should_git_ignore_file("sub/.git")  # nested repository / submodule marker
    assert not svc.should_git_ignore_file("src/a.py")
    assert not svc.should_git_ignore_file(".gitignore")
    assert not svc.should_git_ignore_file(".github/workflows/ci.yml")
    # .git is git's business: the qwen side does not hide it on its own.
    assert not svc.should_ignore_file(".git/config", NO_GIT)


def test_project_root_below_the_repository_top(repo: Path) -> None:
    make(
        repo,
        ["pkg/node_modules/m.js", "pkg/src/a.py", "pkg/a.log"],
        **{".gitignore": "node_modules/\n", "pkg__.gitignore": "*.log\n"},
    )
    svc = FileDiscoveryService(repo / "pkg")
    assert svc.is_git_repository()
    assert svc.should_git_ignore_file("node_modules/m.js")
    assert svc.should_git_ignore_file("a.log")
    assert not svc.should_git_ignore_file("src/a.py")


@requires_git
def test_worktree_uses_the_common_info_exclude(repo: Path, tmp_path: Path) -> None:
    git(
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@t",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "init",
        cwd=repo,
    )
    worktree = Path(os.path.realpath(tmp_path)) / "wt"
    git("worktree", "add", "-q", str(worktree), cwd=repo)
    (repo / ".git" / "info").mkdir(exist_ok=True)
    (repo / ".git" / "info" / "exclude").write_text("*.secret\n")
    make(worktree, ["x.secret", "y.txt"])
    svc = FileDiscoveryService(worktree)
    assert (worktree / ".git").is_file()
    assert svc.is_git_repository()
    assert svc.should_git_ignore_file("x.secret")
    assert svc.should_git_ignore_file(".git")
    assert not svc.should_git_ignore_file("y.txt")


def test_clear_cache_rereads_ignore_files(repo: Path) -> None:
    make(repo, ["a.txt"])
    svc = FileDiscoveryService(repo)
    assert not svc.should_git_ignore_file("a.txt")
    (repo / ".gitignore").write_text("a.txt\n")
    assert not svc.should_git_ignore_file("a.txt")  # parsed once
    svc.clear_cache()
    assert svc.should_git_ignore_file("a.txt")


def test_invalid_pattern_lines_are_dropped(repo: Path, caplog: pytest.LogCaptureFixture) -> None:
    make(repo, ["a.log", "b.txt"], **{".gitignore": "[z-a]\r\n*.log\r\n"})
    with caplog.at_level(logging.WARNING, logger="qwen_tools.config.file_service"):
        svc = FileDiscoveryService(repo)
        assert svc.should_git_ignore_file("a.log")  # CRLF file still works
    assert not svc.should_git_ignore_file("b.txt")
    assert any("[z-a]" in r.getMessage() for r in caplog.records)


# -- paths that are never ignored -------------------------------------------------------------


def test_root_outside_and_nul_are_never_ignored(repo: Path) -> None:
    make(repo, ["x"], **{".gitignore": "*\n", ".qwenignore": "*\n"})
    svc = FileDiscoveryService(repo)
    assert svc.should_ignore_file("x")
    for path in (
        "",
        ".",
        "./",
        str(repo),
        f"{repo}/",
        "..",
        "../x",
        "/etc/passwd",
        f"{repo}-evil/x",
        "x\0",
        f"{repo}/../x",
    ):
        assert not svc.should_ignore_file(path), path
        assert svc.qwen_ignore_source(path) is None, path


def test_root_given_through_a_symlink(repo: Path, tmp_path: Path) -> None:
    make(repo, ["a.log"], **{".gitignore": "*.log\n"})
    alias = Path(os.path.realpath(tmp_path)) / "alias"
    alias.symlink_to(repo, target_is_directory=True)
    svc = FileDiscoveryService(alias)
    assert svc.project_root == repo
    assert svc.should_git_ignore_file(alias / "a.log")
    assert svc.should_git_ignore_file(repo / "a.log")
    assert svc.should_git_ignore_file("a.log")


# -- qwen rules -------------------------------------------------------------------------------


def test_qwenignore_applies_without_git(plain: Path) -> None:
    make(
        plain,
        ["secret.env", "docs/", "docs/a.md", "src/secret.env", "src/a.py"],
        **{".qwenignore": "*.env\ndocs/\n"},
    )
    svc = FileDiscoveryService(plain)
    assert svc.should_qwen_ignore_file("secret.env")
    assert svc.should_qwen_ignore_file("src/secret.env")
    assert svc.should_qwen_ignore_file("docs")
    assert svc.should_qwen_ignore_file("docs/a.md")
    assert not svc.should_qwen_ignore_file("docs", is_dir=False)
    assert not svc.should_qwen_ignore_file("src/a.py")
    assert svc.should_ignore_file("secret.env")
    assert not svc.should_ignore_file("secret.env", NO_QWEN)
    assert svc.qwen_ignore_source("secret.env") == ".qwenignore"


def test_custom_ignore_files_and_source_names(plain: Path) -> None:
    make(
        plain,
        ["a.key", "b.pem", "c.txt", "conf/"],
        **{
            ".qwenignore": "*.key\n",
            ".aiignore": "*.pem\n*.key\n",
            "conf__.agentignore": "c.txt\n",
        },
    )
    svc = FileDiscoveryService(plain, [".aiignore", "conf/.agentignore"])
    assert svc.qwen_ignore_file_names() == [".qwenignore", ".aiignore", "conf/.agentignore"]
    assert svc.qwen_ignore_source("a.key") == ".qwenignore"  # first file that matches
    assert svc.qwen_ignore_source("b.pem") == ".aiignore"
    assert svc.qwen_ignore_source("c.txt") == "conf/.agentignore"  # read at the root path given
    assert svc.qwen_ignore_source(plain / "x.py") is None
    message = f"File path 'b.pem' is ignored by {svc.qwen_ignore_source('b.pem')} pattern(s)."
    assert message == "File path 'b.pem' is ignored by .aiignore pattern(s)."


def test_default_custom_ignore_files(plain: Path) -> None:
    make(plain, ["a.bin", "b.bin"], **{".agentignore": "a.bin\n", ".aiignore": "b.bin\n"})
    svc = FileDiscoveryService(plain)
    assert svc.qwen_ignore_file_names() == [".qwenignore", ".agentignore", ".aiignore"]
    assert svc.qwen_ignore_source("a.bin") == ".agentignore"
    assert svc.qwen_ignore_source("b.bin") == ".aiignore"
    assert FileDiscoveryService(plain, ()).qwen_ignore_source("a.bin") is None


def test_qwen_files_are_read_only_at_the_root(plain: Path) -> None:
    make(plain, ["sub/a.txt", "a.txt"], **{"sub__.qwenignore": "a.txt\n", "sub__.aiignore": "*\n"})
    svc = FileDiscoveryService(plain)
    assert not svc.should_qwen_ignore_file("sub/a.txt")
    assert not svc.should_qwen_ignore_file("a.txt")


def test_invalid_custom_names_are_rejected(plain: Path, caplog: pytest.LogCaptureFixture) -> None:
    make(plain, ["x"], **{".qwenignore": "nothing\n"})
    bad = [
        "",
        "   ",
        "/etc/ignore",
        "a\0b",
        "../up",
        "sub/../../up",
        ".qwenignore",
        " .qwenignore ",
    ]
    with caplog.at_level(logging.WARNING, logger="qwen_tools.config.file_service"):
        svc = FileDiscoveryService(plain, [*bad, ".ok", ".ok", "dir\\.win"])
    assert svc.qwen_ignore_file_names() == [".qwenignore", ".ok", "dir/.win"]
    assert len(caplog.records) == len(bad)


def test_outside_file_named_by_custom_entry_is_not_read(tmp_path: Path) -> None:
    base = Path(os.path.realpath(tmp_path))
    (base / "root").mkdir()
    (base / "evil").write_text("*\n")
    (base / "root" / "a.txt").touch()
    svc = FileDiscoveryService(base / "root", ["../evil"])
    assert not svc.should_qwen_ignore_file("a.txt")


# -- combined ---------------------------------------------------------------------------------


def test_filter_files_with_report_counts(repo: Path) -> None:
    make(
        repo,
        ["a.log", "b.env", "both.log", "c.py", "build/x.py"],
        **{".gitignore": "*.log\nbuild/\n", ".qwenignore": "*.env\nboth.log\n"},
    )
    svc = FileDiscoveryService(repo)
    paths = ["a.log", "b.env", "both.log", "c.py", "build/x.py", str(repo / "c.py")]
    assert svc.filter_files_with_report(paths) == FilterReport(["c.py", str(repo / "c.py")], 3, 1)
    assert svc.filter_files_with_report(paths, NO_GIT) == FilterReport(
        ["a.log", "c.py", "build/x.py", str(repo / "c.py")], 0, 2
    )
    assert svc.filter_files_with_report(paths, NO_QWEN) == FilterReport(
        ["b.env", "c.py", str(repo / "c.py")], 3, 0
    )
    both_off = FileFilteringOptions(respect_git_ignore=False, respect_qwen_ignore=False)
    assert svc.filter_files_with_report(paths, both_off) == FilterReport(paths, 0, 0)


def test_should_ignore_file_honours_options(repo: Path) -> None:
    make(repo, ["a.log", "b.env"], **{".gitignore": "*.log\n", ".qwenignore": "*.env\n"})
    svc = FileDiscoveryService(repo)
    assert svc.should_ignore_file("a.log")
    assert not svc.should_ignore_file("a.log", NO_GIT)
    assert svc.should_ignore_file("b.env", NO_GIT)
    assert not svc.should_ignore_file("b.env", NO_QWEN)
