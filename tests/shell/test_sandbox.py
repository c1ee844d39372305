"""Tests for ``_shell.sandbox``: real bubblewrap processes (skipped when bwrap cannot run here)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from qwen_tools.shell import sandbox
from qwen_tools.shell.sandbox import SandboxPolicy, SandboxUnavailable, bwrap_path, wrap_command

# In CI (CI=true) bubblewrap is installed by scripts/system-deps.sh: never skip there.
needs_bwrap = pytest.mark.skipif(
    bwrap_path() is None and not os.environ.get("CI"), reason="bwrap cannot run here"
)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = Path(os.path.realpath(tmp_path)) / "ws"
    root.mkdir()
    return root


def run(argv: list[str], policy: SandboxPolicy, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        wrap_command(argv, policy, cwd=str(cwd)),
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def py(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_wrap_command_arguments(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox, "bwrap_path", lambda: "/usr/bin/bwrap")
    link = workspace.parent / "link"
    link.symlink_to(workspace)
    policy = SandboxPolicy((str(link), str(workspace), str(workspace / "missing"), "/tmp"))
    argv = wrap_command(["bash", "-c", "ls"], policy, cwd=str(link))
    assert argv[:8] == ["/usr/bin/bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    assert argv[-4:] == ["--", "bash", "-c", "ls"]
    binds = [argv[i + 1] for i, a in enumerate(argv) if a == "--bind"]
    assert binds == [str(workspace), os.path.realpath("/tmp")]
    assert "--unshare-net" in argv and "--unshare-pid" in argv and "--die-with-parent" in argv
    assert argv[argv.index("--cap-drop") + 1] == "ALL"
    assert "--new-session" not in argv
    assert argv[argv.index("--chdir") + 1] == str(workspace)
    open_net = wrap_command(["true"], SandboxPolicy(("/tmp",), allow_network=True))
    assert "--unshare-net" not in open_net and "--chdir" not in open_net


def test_policy_for_workspace(workspace: Path) -> None:
    policy = SandboxPolicy.for_workspace([workspace], project_temp_dir=workspace / "tmp")
    assert policy.writable_dirs[:2] == (str(workspace), str(workspace / "tmp"))
    assert "/tmp" in policy.writable_dirs
    assert policy.allow_network is False


@pytest.fixture
def no_bwrap(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(shutil, "which", lambda _name: None)
    bwrap_path.cache_clear()
    yield
    bwrap_path.cache_clear()


@pytest.mark.usefixtures("no_bwrap")
def test_missing_bwrap_is_reported_with_install_hint() -> None:
    assert bwrap_path() is None
    with pytest.raises(SandboxUnavailable) as info:
        wrap_command(["true"], SandboxPolicy(("/tmp",)))
    message = str(info.value)
    assert message.startswith("The bwrap sandbox cannot run: bwrap was not found on PATH.")
    assert "apt-get install bubblewrap" in message


@needs_bwrap
def test_writes_inside_and_outside(workspace: Path) -> None:
    policy = SandboxPolicy.for_workspace([workspace])
    home = os.path.realpath(os.path.expanduser("~"))
    tmp_file = Path("/tmp") / f"qt-sandbox-{os.getpid()}-{time.monotonic_ns()}"
    code = f"""
import errno, os
def attempt(path):
    try:
        with open(path, "w") as f:
            f.write("x")
    except OSError as e:
        return errno.errorcode[e.errno]
    return "ok"
print(attempt("inside.txt"), attempt("/usr/qt-sandbox-probe"),
      attempt({home + "/qt-sandbox-probe"!r}), attempt({str(tmp_file)!r}))
"""
    try:
        done = run(py(code), policy, workspace)
        assert done.returncode == 0, done.stderr
        inside, usr, home_result, tmp_result = done.stdout.split()
        assert inside == "ok" and (workspace / "inside.txt").read_text() == "x"
        assert usr in ("EROFS", "EACCES")
        if not any(home == d or home.startswith(d + "/") for d in policy.writable_dirs):
            assert home_result in ("EROFS", "EACCES")
        assert tmp_result == "ok" and tmp_file.read_text() == "x"
    finally:
        tmp_file.unlink(missing_ok=True)
    assert not Path("/usr/qt-sandbox-probe").exists()


@needs_bwrap
def test_no_capabilities_so_no_remount(workspace: Path) -> None:
    probe = Path("/usr") / f"qt-remount-probe-{os.getpid()}"
    script = f"grep CapEff /proc/self/status; mount -o remount,rw / ; touch {probe}"
    try:
        done = run(["bash", "-c", script], SandboxPolicy((str(workspace),)), workspace)
        assert "CapEff:\t0000000000000000" in done.stdout
        assert done.returncode != 0
        assert not probe.exists()
    finally:
        probe.unlink(missing_ok=True)


def test_unusable_bwrap_is_reported_with_its_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    bwrap_path.cache_clear()
    try:
        with pytest.raises(SandboxUnavailable) as info:
            wrap_command(["true"], SandboxPolicy(("/tmp",)))
    finally:
        bwrap_path.cache_clear()
    assert str(info.value).startswith(
        f"The bwrap sandbox cannot run: {fake} cannot create its namespaces here "
        "(bwrap: No permissions to create new namespace). Install bubblewrap"
    )


@needs_bwrap
def test_working_directory_and_exit_status(workspace: Path) -> None:
    policy = SandboxPolicy((str(workspace),))
    done = run(["bash", "-c", "pwd; exit 3"], policy, workspace)
    assert (done.stdout.strip(), done.returncode) == (str(workspace), 3)
    killed = run(["bash", "-c", "kill -9 $$"], policy, workspace)
    assert killed.returncode == 128 + signal.SIGKILL


@pytest.fixture
def listener() -> Iterator[int]:
    server = socket.create_server(("127.0.0.1", 0))
    try:
        yield int(server.getsockname()[1])
    finally:
        server.close()


@needs_bwrap
def test_network_is_cut_unless_allowed(workspace: Path, listener: int) -> None:
    connect = py(f"import socket; socket.create_connection(('127.0.0.1', {listener}), timeout=5)")
    closed = run(connect, SandboxPolicy((str(workspace),)), workspace)
    assert closed.returncode != 0
    assert "Error" in closed.stderr
    opened = run(connect, SandboxPolicy((str(workspace),), allow_network=True), workspace)
    assert opened.returncode == 0, opened.stderr


def _sandboxed_sleeps(marker: str) -> list[int]:
    out = subprocess.run(["ps", "-eo", "pid=,args="], capture_output=True, text=True).stdout
    return [
        int(line.split()[0]) for line in out.splitlines() if line.split()[1:] == ["sleep", marker]
    ]


def _start_sleeper(workspace: Path, marker: str) -> tuple[subprocess.Popen[bytes], list[int]]:
    argv = wrap_command(
        ["bash", "-c", f"sleep {marker}; echo done"], SandboxPolicy((str(workspace),))
    )
    proc = subprocess.Popen(argv, start_new_session=True, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while not (pids := _sandboxed_sleeps(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert pids, "the sandboxed sleep never started"
    assert all(os.getpgid(pid) == proc.pid for pid in pids)
    return proc, pids


def _assert_gone(marker: str) -> None:
    deadline = time.monotonic() + 5
    while _sandboxed_sleeps(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _sandboxed_sleeps(marker) == []


@needs_bwrap
def test_killpg_ends_everything_in_the_sandbox(workspace: Path) -> None:
    marker = f"100.{os.getpid()}1"
    proc, _pids = _start_sleeper(workspace, marker)
    os.killpg(proc.pid, signal.SIGTERM)
    assert proc.wait(timeout=10) == -signal.SIGTERM
    _assert_gone(marker)


@needs_bwrap
def test_killing_bwrap_alone_still_ends_the_sandbox(workspace: Path) -> None:
    marker = f"100.{os.getpid()}2"
    proc, _pids = _start_sleeper(workspace, marker)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    _assert_gone(marker)
