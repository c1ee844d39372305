"""``SessionHost`` (what each pool worker runs), without Ray: workspaces made from templates,
isolation between sessions (bwrap shell confined to its own workspace), diffs against the
template, and results equal to a local ``Session``."""

from __future__ import annotations

import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from qwen_tools import Session
from qwen_tools.pool import SessionHost, SessionLost, Template
from qwen_tools.shell.sandbox import bwrap_path
from support.pool_cases import TEMPLATE, calls, local_env, normalized

needs_bwrap = pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap cannot run here")


@pytest.fixture
async def host(tmp_path: Path) -> AsyncIterator[SessionHost]:
    host = SessionHost(tmp_path / "pool")
    try:
        yield host
    finally:
        await host.aclose()


async def shell(host: SessionHost, sid: str, command: str) -> str:
    done = await host.call(sid, "run_shell_command", {"command": command})
    return done.response_text.split("\nOutput: ", 1)[1]  # not the echoed command


@needs_bwrap
async def test_a_session_cannot_read_or_write_another_sessions_files(host: SessionHost) -> None:
    template = Template.from_files(TEMPLATE)
    a = await host.open(template, approval_mode="yolo")
    b = await host.open(template, approval_mode="yolo")
    wa, wb = host.workspace(a), host.workspace(b)
    await shell(host, a, f"echo secret-a > secret.txt; echo shared > /tmp/handoff-{a}.txt")
    assert (wa / "secret.txt").read_text() == "secret-a\n"
    seen = await shell(
        host,
        b,
        f"cat {wa}/secret.txt; cat /tmp/handoff-{a}.txt; ls {host.root}/sessions; "
        f"echo x > {wa}/planted.txt; echo y > {host.root}/planted.txt; echo z > $HOME/planted-{a}",
    )
    assert "secret-a" not in seen and "shared" not in seen
    assert a not in seen.split()  # the other session's directory is not even listed
    assert not (wa / "planted.txt").exists() and not (host.root / "planted.txt").exists()
    assert not (Path.home() / f"planted-{a}").exists()
    assert not Path(f"/tmp/handoff-{a}.txt").exists()  # /tmp is the command's own
    # the file tools are confined to the session's workspace too
    read = await host.call(b, "read_file", {"absolute_path": f"{wa}/secret.txt"})
    assert read.status == "error" and "secret-a" not in read.response_text
    assert str(wb) in read.response_text


async def test_diff_has_edits_new_deleted_and_binary_files(host: SessionHost) -> None:
    sid = await host.open(Template.from_files(TEMPLATE), approval_mode="yolo")
    assert await host.diff(sid) == ""
    ws = host.workspace(sid)
    (ws / "src" / "app.py").write_text("def answer():\n    return 42\n")
    (ws / "notes.txt").unlink()
    (ws / "image.bin").write_bytes(b"\x89PNG\x00\x01")
    (ws / "data.bin").write_bytes(b"\x00\x02")
    # what the session does to a .git of its own does not move the baseline
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    diff = await host.diff(sid)
    assert "+    return 42" in diff and "-    return 41" in diff
    assert "diff --git a/notes.txt b/notes.txt\ndeleted file mode 100644" in diff
    assert "diff --git a/image.bin b/image.bin\nnew file mode 100644" in diff
    assert diff.count("GIT binary patch") == 2
    assert ".git/" not in diff
    # the diff applies to a fresh copy of the template and reproduces the workspace
    other = await host.open(Template.from_files(TEMPLATE))
    copy = host.workspace(other)
    subprocess.run(["git", "apply", "--binary", "-"], input=diff.encode(), cwd=copy, check=True)
    for name in ("src/app.py", "image.bin", "data.bin"):
        assert (copy / name).read_bytes() == (ws / name).read_bytes()
    assert not (copy / "notes.txt").exists()


async def test_results_equal_a_local_session(host: SessionHost, tmp_path: Path) -> None:
    template_dir = tmp_path / "template"
    for name, content in TEMPLATE.items():
        (template_dir / name).parent.mkdir(parents=True, exist_ok=True)
        data = content.encode() if isinstance(content, str) else content
        (template_dir / name).write_bytes(data)
    template = Template.from_directory(template_dir)
    settings = {"tools": {"sandbox": "bwrap"}} if host.sandboxed else {}
    for mode in ("default", "yolo"):
        sid = await host.open(template, approval_mode=mode)
        ws = str(host.workspace(sid))
        local_dir = tmp_path / f"local-{mode}"
        subprocess.run(["cp", "-a", str(template_dir), str(local_dir)], check=True)
        env = local_env(tmp_path / f"env-{mode}", settings)
        async with Session(local_dir, approval_mode=mode, env=env) as local:
            for name, args in calls(ws):
                pooled = await host.call(sid, name, args)
                local_args = {
                    k: v.replace(ws, str(local_dir)) if isinstance(v, str) else v
                    for k, v in args.items()
                }
                alone = await local.call(name, local_args)
                assert normalized(pooled, ws) == normalized(alone, str(local_dir)), (mode, name)
        await host.close(sid)


async def test_git_template_is_checked_out_at_its_revision(
    host: SessionHost, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()

    def git(*args: str) -> str:
        env_args = ["-c", "user.name=t", "-c", "user.email=t@t"]
        done = subprocess.run(["git", *env_args, *args], cwd=repo, check=True, capture_output=True)
        return done.stdout.decode().strip()

    git("init", "-q")
    (repo / "a.txt").write_text("one\n")
    git("add", "-A")
    git("commit", "-q", "-m", "one")
    first = git("rev-parse", "HEAD")
    (repo / "a.txt").write_text("two\n")
    git("commit", "-q", "-am", "two")
    sid = await host.open(Template.from_git(str(repo), first), approval_mode="yolo")
    ws = host.workspace(sid)
    assert (ws / "a.txt").read_text() == "one\n"
    (ws / "a.txt").write_text("three\n")
    diff = await host.diff(sid)
    assert "-one\n+three" in diff


async def test_a_closed_session_is_lost_and_its_directory_gone(host: SessionHost) -> None:
    sid = await host.open(Template.from_files(TEMPLATE))
    directory = host.workspace(sid).parent
    await host.close(sid)
    assert not directory.exists()
    with pytest.raises(SessionLost):
        await host.call(sid, "glob", {"pattern": "*"})
