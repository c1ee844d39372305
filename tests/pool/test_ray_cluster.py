"""``SessionPool`` on a two-node local Ray cluster: workers spread over the nodes, and a killed
worker loses its own sessions (``SessionLost``, also for the call it was running) and no other
worker's, and takes its background shells with it (daemonised ones too), without bubblewrap."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from qwen_tools.pool import SessionLost, Template
from qwen_tools.pool.pool import SessionPool
from qwen_tools.process import supervisor
from support.ray_cluster import two_node_cluster

pytest.importorskip("ray")
pytestmark = pytest.mark.xdist_group("ray")


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    with two_node_cluster() as cluster:
        yield cluster


def _pid_gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(") ", 1)[1].startswith("Z")
    except FileNotFoundError:
        return True


# Background shells that try to outlive their worker: a plain one, one in a session of its own
# whose parent exits (setsid + double fork) and, where cgroups can hold it, one that also drops
# its environment (env -i: no mark of its tree left on it).
_SHELLS = {
    "plain": "echo $$ > plain.pid; exec sleep 300",
    "daemon": "(setsid sh -c 'echo $$ > daemon.pid; exec sleep 301' &); sleep 302",
    "bare": "(setsid env -i sh -c 'echo $$ > bare.pid; exec sleep 303' &); sleep 304",
}


def _start(pool: SessionPool, sid: str, tracking: str) -> dict[str, int]:
    """Start the background shells in ``sid``, its worker tracking process trees by
    ``tracking`` (``proc``: marks and sessions, ``cgroup``); their pids, once written."""

    async def track(session: object, workspace: object, mode: str) -> None:
        from qwen_tools.process import supervisor

        supervisor.set_tracking(mode)

    asyncio.run(pool.run_async(sid, track, tracking))
    done = pool.call(sid, "run_shell_command", {"command": "pwd"})
    workspace = Path(done.response_text.split("\nOutput: ", 1)[1].split("\n", 1)[0])
    kinds = [k for k in _SHELLS if k != "bare" or tracking == "cgroup"]
    for kind in kinds:
        args = {"command": _SHELLS[kind], "is_background": True}
        done = pool.call(sid, "run_shell_command", args)
        assert done.status == "success", done.response_text
    pids: dict[str, int] = {}
    deadline = time.monotonic() + 30
    while len(pids) < len(kinds) and time.monotonic() < deadline:
        for kind in kinds:
            with contextlib.suppress(FileNotFoundError, ValueError):
                pids[kind] = int((workspace / f"{kind}.pid").read_text())
        time.sleep(0.02)
    assert set(pids) == set(kinds) and not any(_pid_gone(pid) for pid in pids.values())
    return pids


def _all_gone(pids: dict[str, int], timeout: float = 30) -> dict[str, int]:
    """The pids still running after at most ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        left = {kind: pid for kind, pid in pids.items() if not _pid_gone(pid)}
        if not left:
            break
        time.sleep(0.05)
    return left


def test_a_killed_worker_loses_only_its_sessions(cluster: Any, tmp_path: Path) -> None:
    pool = SessionPool(workers=2, base_dir=str(tmp_path), sandbox=False)
    try:
        infos = pool.info()
        nodes = {info["node"] for info in infos}
        assert len(nodes) == 2  # one worker per node
        template = Template.from_files({"a.txt": "a\n"})
        sids = [pool.open(template, approval_mode="yolo") for _ in range(4)]
        doomed = [sid for sid in sids if pool.worker_of(sid) == 0]
        kept = [sid for sid in sids if pool.worker_of(sid) == 1]
        assert len(doomed) == 2 and len(kept) == 2
        for sid in sids:
            pool.call(sid, "run_shell_command", {"command": f"echo {sid} > mine.txt"})
        shells = _start(pool, doomed[0], "proc")
        pid = infos[0]["pid"]

        async def in_flight() -> BaseException | None:
            args = {"command": "sleep 120 # intentional-sleep: a call in flight"}
            call = asyncio.ensure_future(pool.call_async(doomed[1], "run_shell_command", args))
            await asyncio.sleep(0.5)
            os.kill(pid, signal.SIGKILL)
            try:
                await call
            except Exception as exc:
                return exc
            return None

        # the call the worker was running when it died: a lost session (Ray says the worker is
        # unavailable; the pool confirms it restarted), not a transient error
        lost_call = asyncio.run(in_flight())
        assert isinstance(lost_call, SessionLost) and "worker died" in str(lost_call)
        assert _all_gone(shells) == {}  # its background shells died with it
        for sid in doomed:
            with pytest.raises(SessionLost) as lost:
                pool.call(sid, "glob", {"pattern": "*"})
            assert lost.value.session_id == sid and "worker died" in str(lost.value)
            with pytest.raises(SessionLost):
                pool.diff(sid)
        assert _pid_gone(pid)
        for sid in kept:
            done = pool.call(sid, "read_file", {"absolute_path": "mine.txt"})
            assert done.status == "error"  # relative paths are refused, as locally
            assert f"+{sid}" in pool.diff(sid)
        fresh = pool.open(
            template, approval_mode="yolo"
        )  # the pool goes on (Ray restarts the dead worker)
        assert pool.call(fresh, "glob", {"pattern": "*.txt"}).status == "success"
        if supervisor.cgroups_available():  # and the restarted worker's shells die with it too
            assert pool.worker_of(fresh) == 0
            shells = _start(pool, fresh, "cgroup")
            os.kill(pool.info()[0]["pid"], signal.SIGKILL)
            assert _all_gone(shells) == {}
        for sid in doomed:
            pool.close(sid)  # closing a lost session is a no-op
    finally:
        pool.shutdown()
