"""Tests for the workspace boundary (``_config.workspace.WorkspaceContext``).

Everything runs against real directories and real symlinks under ``tmp_path``.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from qwen_tools.config.workspace import WorkspaceContext


@pytest.fixture
def base(tmp_path: Path) -> Path:
    """A realpath-resolved scratch directory (``tmp_path`` itself may sit behind a symlink)."""
    return Path(os.path.realpath(tmp_path))


@pytest.fixture
def ws(base: Path) -> Path:
    """``<base>/ws`` with a file, a sub-directory, and an ``outside`` sibling tree."""
    root = base / "ws"
    (root / "sub").mkdir(parents=True)
    (root / "file.txt").write_text("in")
    (root / "sub" / "inner.txt").write_text("in")
    (base / "outside").mkdir()
    (base / "outside" / "secret.txt").write_text("out")
    return root


# -- construction ---------------------------------------------------------------------------


def test_directories_are_realpath_resolved_and_deduplicated(base: Path, ws: Path) -> None:
    alias = base / "alias"
    alias.symlink_to(ws, target_is_directory=True)
    other = base / "other"
    other.mkdir()
    ctx = WorkspaceContext(alias, [ws, other, base / "other" / ".." / "other", alias])
    assert ctx.directories == (ws, other)
    assert ctx.target_dir == ws


def test_missing_or_non_directory_target_raises(base: Path, ws: Path) -> None:
    with pytest.raises(ValueError, match="does not exist"):
        WorkspaceContext(base / "nope")
    with pytest.raises(ValueError, match="not a directory"):
        WorkspaceContext(ws / "file.txt")
    with pytest.raises(ValueError, match="NUL"):
        WorkspaceContext(str(ws) + "\0")


def test_bad_additional_dirs_are_skipped_with_a_warning(
    base: Path, ws: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="qwen_tools.config.workspace"):
        ctx = WorkspaceContext(ws, [base / "missing", ws / "file.txt", base / "outside"])
    assert ctx.directories == (ws, base / "outside")
    messages = " ".join(r.getMessage() for r in caplog.records)
    assert "missing" in messages
    assert "file.txt" in messages


def test_relative_additional_dir_resolves_against_target(base: Path, ws: Path) -> None:
    ctx = WorkspaceContext(ws, ["../outside"])
    assert ctx.directories == (ws, base / "outside")


def test_add_directory_validates_and_invalidates_cache(base: Path, ws: Path) -> None:
    ctx = WorkspaceContext(ws)
    secret = base / "outside" / "secret.txt"
    assert not ctx.is_path_within_workspace(secret)  # an existing path: cached
    with pytest.raises(ValueError, match="does not exist"):
        ctx.add_directory(base / "missing")
    with pytest.raises(ValueError, match="not a directory"):
        ctx.add_directory(ws / "file.txt")
    ctx.add_directory(base / "outside")
    assert ctx.is_path_within_workspace(secret)
    ctx.add_directory(base / "outside")  # no duplicate
    assert ctx.directories == (ws, base / "outside")


# -- containment ------------------------------------------------------------------------------


def test_plain_paths_inside_and_outside(base: Path, ws: Path) -> None:
    ctx = WorkspaceContext(ws)
    assert ctx.is_path_within_workspace(ws)
    assert ctx.is_path_within_workspace(ws / "file.txt")
    assert ctx.is_path_within_workspace(str(ws / "sub") + "/")
    assert not ctx.is_path_within_workspace(base)
    assert not ctx.is_path_within_workspace(base / "outside" / "secret.txt")
    assert not ctx.is_path_within_workspace("/")


def test_dotdot_traversal(base: Path, ws: Path) -> None:
    ctx = WorkspaceContext(ws)
    assert not ctx.is_path_within_workspace(f"{ws}/../outside/secret.txt")
    assert not ctx.is_path_within_workspace(f"{ws}/sub/../../outside")
    assert not ctx.is_path_within_workspace(f"{ws}/..")
    assert not ctx.is_path_within_workspace("../outside/secret.txt")
    assert not ctx.is_path_within_workspace("sub/../../outside/new.txt")  # missing tail
    assert ctx.is_path_within_workspace(f"{ws}/sub/../file.txt")
    assert ctx.is_path_within_workspace(f"{ws}/../ws/sub/inner.txt")
    assert ctx.resolve(f"{ws}/sub/../file.txt") == ws / "file.txt"


def test_dotdot_after_a_symlink_is_resolved_physically(base: Path, ws: Path) -> None:
    # ws/hop -> outside/deep; "hop/.." is outside/, not ws/.
    (base / "outside" / "deep").mkdir()
    (ws / "hop").symlink_to(base / "outside" / "deep", target_is_directory=True)
    ctx = WorkspaceContext(ws)
    assert ctx.resolve(ws / "hop" / ".." / "secret.txt") == base / "outside" / "secret.txt"
    assert not ctx.is_path_within_workspace(f"{ws}/hop/../file.txt")


def test_sibling_prefix_directory_is_not_inside(base: Path, ws: Path) -> None:
    evil = base / "ws-evil"
    evil.mkdir()
    (evil / "x.txt").write_text("evil")
    ctx = WorkspaceContext(ws)
    assert not ctx.is_path_within_workspace(evil)
    assert not ctx.is_path_within_workspace(evil / "x.txt")
    assert not ctx.is_path_within_workspace(f"{ws}/../ws-evil/x.txt")
    assert not ctx.is_path_within_workspace(f"{ws}-evil/new.txt")
    assert not ctx.is_path_within_workspace(f"{ws}evil")
    assert ctx.get_directory_for(evil / "x.txt") is None


def test_symlink_inside_pointing_outside(base: Path, ws: Path) -> None:
    (ws / "link-file").symlink_to(base / "outside" / "secret.txt")
    (ws / "link-dir").symlink_to(base / "outside", target_is_directory=True)
    ctx = WorkspaceContext(ws)
    assert not ctx.is_path_within_workspace(ws / "link-file")
    assert not ctx.is_path_within_workspace(ws / "link-dir")
    assert not ctx.is_path_within_workspace(ws / "link-dir" / "secret.txt")
    assert not ctx.is_path_within_workspace(ws / "link-dir" / "new" / "deeper.txt")
    assert not ctx.is_path_within_workspace("link-dir/secret.txt")
    assert ctx.resolve(ws / "link-dir" / "new.txt") == base / "outside" / "new.txt"


def test_symlink_outside_pointing_inside(base: Path, ws: Path) -> None:
    (base / "outside" / "to-ws").symlink_to(ws / "sub", target_is_directory=True)
    (base / "outside" / "to-file").symlink_to(ws / "file.txt")
    ctx = WorkspaceContext(ws)
    assert ctx.is_path_within_workspace(base / "outside" / "to-ws" / "inner.txt")
    assert ctx.is_path_within_workspace(base / "outside" / "to-ws" / "missing.txt")
    assert ctx.is_path_within_workspace(base / "outside" / "to-file")


def test_dangling_symlinks_follow_their_target(base: Path, ws: Path) -> None:
    (ws / "dangling-out").symlink_to(base / "outside" / "not-yet.txt")
    (ws / "dangling-in").symlink_to(ws / "sub" / "not-yet.txt")
    (ws / "dangling-dir").symlink_to(base / "outside" / "gone", target_is_directory=True)
    ctx = WorkspaceContext(ws)
    # A write through the link would land outside: it must not count as inside.
    assert not ctx.is_path_within_workspace(ws / "dangling-out")
    assert ctx.resolve(ws / "dangling-out") == base / "outside" / "not-yet.txt"
    assert not ctx.is_path_within_workspace(ws / "dangling-dir" / "child.txt")
    assert ctx.is_path_within_workspace(ws / "dangling-in")
    assert ctx.resolve(ws / "dangling-in") == ws / "sub" / "not-yet.txt"


def test_nonexistent_nested_tail(base: Path, ws: Path) -> None:
    ctx = WorkspaceContext(ws)
    deep = ws / "a" / "b" / "c" / "d.txt"
    assert ctx.is_path_within_workspace(deep)
    assert ctx.resolve(deep) == deep
    assert ctx.is_path_within_workspace(ws / "file.txt" / "child")  # through a regular file
    assert not ctx.is_path_within_workspace(base / "nowhere" / "x" / "y.txt")


def test_nonexistent_tail_through_aliased_workspace(base: Path, ws: Path) -> None:
    alias = base / "alias"
    alias.symlink_to(ws, target_is_directory=True)
    ctx = WorkspaceContext(ws)
    assert ctx.is_path_within_workspace(alias / "new" / "file.txt")
    assert ctx.resolve(alias / "new" / "file.txt") == ws / "new" / "file.txt"


def test_missing_paths_are_not_cached(base: Path, ws: Path) -> None:
    ctx = WorkspaceContext(ws)
    target = ws / "later"
    assert ctx.is_path_within_workspace(target)
    target.symlink_to(base / "outside", target_is_directory=True)
    assert not ctx.is_path_within_workspace(target)


def test_no_verdict_outlives_a_swap(base: Path, ws: Path) -> None:
    """An existing path judged inside, then replaced by an outside symlink, is judged again."""
    ctx = WorkspaceContext(ws)
    node = ws / "node"
    node.write_text("inside")
    assert ctx.is_path_within_workspace(node)
    node.unlink()
    node.symlink_to(base / "outside" / "secret.txt")
    assert not ctx.is_path_within_workspace(node)


def test_home_expansion_outside(base: Path, ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(base / "outside"))
    ctx = WorkspaceContext(ws)
    assert not ctx.is_path_within_workspace("~")
    assert not ctx.is_path_within_workspace("~/secret.txt")
    assert not ctx.is_path_within_workspace("~/new/file.txt")
    assert ctx.resolve("~/secret.txt") == base / "outside" / "secret.txt"
    # Only "~" and "~/..." are expanded; "~name" is an ordinary relative name.
    assert ctx.resolve("~name/x") == ws / "~name" / "x"


def test_home_expansion_inside(base: Path, ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(ws / "sub"))
    ctx = WorkspaceContext(ws)
    assert ctx.is_path_within_workspace("~")
    assert ctx.is_path_within_workspace("~/inner.txt")
    assert ctx.is_path_within_workspace("~/new.txt")
    assert not ctx.is_path_within_workspace("~/../../outside")
    assert ctx.get_directory_for("~/inner.txt") == ws


def test_nul_bytes(ws: Path) -> None:
    ctx = WorkspaceContext(ws)
    assert not ctx.is_path_within_workspace(f"{ws}/file.txt\0")
    assert not ctx.is_path_within_workspace("sub\0/inner.txt")
    assert ctx.get_directory_for("sub\0") is None
    with pytest.raises(ValueError, match="NUL"):
        ctx.resolve("a\0b")


def test_symlink_loop_inside_is_left_to_the_open(ws: Path) -> None:
    """A loop is not "outside": the tool's open reports ELOOP (tests/tools/test_path_errors)."""
    (ws / "loop-a").symlink_to(ws / "loop-b")
    (ws / "loop-b").symlink_to(ws / "loop-a")
    ctx = WorkspaceContext(ws)
    assert ctx.is_path_within_workspace(ws / "loop-a")
    assert ctx.resolve(ws / "loop-a") == ws / "loop-a"
    with pytest.raises(OSError, match=r"Too many levels|loop"):
        os.close(ctx.open(ws / "loop-a"))


def test_relative_paths_resolve_against_target_not_cwd(
    base: Path, ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(base / "outside")
    ctx = WorkspaceContext(ws)
    assert ctx.resolve("file.txt") == ws / "file.txt"
    assert ctx.is_path_within_workspace("secret.txt")  # ws/secret.txt (missing), not cwd's
    assert ctx.is_path_within_workspace(".")
    assert ctx.is_path_within_workspace("sub/inner.txt")
    assert not ctx.is_path_within_workspace("..")


def test_relative_target_resolves_against_cwd(
    base: Path, ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(base)
    assert WorkspaceContext("ws").directories == (ws,)


def test_multiple_workspace_directories(base: Path, ws: Path) -> None:
    extra = base / "extra"
    (extra / "pkg").mkdir(parents=True)
    nested = ws / "sub"
    ctx = WorkspaceContext(ws, [extra, nested])
    assert ctx.directories == (ws, extra, nested)
    assert ctx.is_path_within_workspace(extra / "pkg" / "mod.py")
    assert ctx.is_path_within_workspace(extra)
    assert not ctx.is_path_within_workspace(base / "outside" / "secret.txt")
    assert not ctx.is_path_within_workspace(base / "extra-evil")
    assert ctx.get_directory_for(extra / "pkg" / "new.py") == extra
    assert ctx.get_directory_for(ws / "sub" / "inner.txt") == nested  # deepest wins
    assert ctx.get_directory_for(ws / "file.txt") == ws
    assert ctx.get_directory_for(base / "outside") is None


def test_pathlike_and_str_inputs_agree(ws: Path) -> None:
    ctx = WorkspaceContext(str(ws))
    assert ctx.is_path_within_workspace(ws / "file.txt") is True
    assert ctx.is_path_within_workspace(str(ws / "file.txt")) is True
