"""``SessionPool`` on a two-node local Ray cluster: workers spread over the nodes, and a killed
worker loses its own sessions (``SessionLost``) and no other worker's."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from qwen_tools.pool import SessionLost, Template
from qwen_tools.pool.pool import SessionPool
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


def test_a_killed_worker_loses_only_its_sessions(cluster: Any, tmp_path: Path) -> None:
    pool = SessionPool(workers=2, base_dir=str(tmp_path))
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
        pid = infos[0]["pid"]
        os.kill(pid, signal.SIGKILL)
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
        fresh = pool.open(template)  # the pool goes on (Ray restarts the dead worker)
        assert pool.call(fresh, "glob", {"pattern": "*.txt"}).status == "success"
        for sid in doomed:
            pool.close(sid)  # closing a lost session is a no-op
    finally:
        pool.shutdown()
