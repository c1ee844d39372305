"""``SessionPool`` on a real local Ray (2 CPUs, one instance for the module): results equal to a
local ``Session``, isolation between sessions on one worker and across workers, lost sessions,
and a rollout of 200 tasks against the fake model server."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from qwen_tools import Session
from qwen_tools.model.model_config import ModelConfig
from qwen_tools.pool import SessionLost, Template, WorkerUnavailable
from qwen_tools.pool.pool import SessionPool
from qwen_tools.rollout import RolloutRunner, RolloutTask
from qwen_tools.rollout.backends import RayBackend
from qwen_tools.shell.sandbox import bwrap_path
from support.fake_openai import FakeOpenAI
from support.pool_cases import TEMPLATE, calls, local_env, normalized
from support.ray_cluster import local_ray
from support.rollout_model import KINDS, TEMPLATE_FILES, expected_diff_line, scripted_model

pytest.importorskip("ray")
pytestmark = pytest.mark.xdist_group("ray")


@pytest.fixture(scope="module")
def pool(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SessionPool]:
    with local_ray(num_cpus=2):
        base = tmp_path_factory.mktemp("pool")
        pool = SessionPool(workers=2, base_dir=str(base))
        try:
            yield pool
        finally:
            pool.shutdown()


def test_results_equal_a_local_session(pool: SessionPool, tmp_path: Path) -> None:
    template_dir = tmp_path / "template"
    for name, content in TEMPLATE.items():
        (template_dir / name).parent.mkdir(parents=True, exist_ok=True)
        (template_dir / name).write_bytes(content.encode() if isinstance(content, str) else content)
    template = Template.from_directory(template_dir)
    sandboxed = all(info["sandboxed"] for info in pool.info())
    settings = {"tools": {"sandbox": "bwrap"}} if sandboxed else {}
    import asyncio

    for mode in ("default", "yolo"):
        sid = pool.open(template, approval_mode=mode)
        ws = pool.call(sid, "run_shell_command", {"command": "pwd"}).response_text
        ws = ws.split("\nOutput: ", 1)[1].split("\n", 1)[0]
        local_dir = tmp_path / f"local-{mode}"
        subprocess.run(["cp", "-a", str(template_dir), str(local_dir)], check=True)
        env = local_env(tmp_path / f"env-{mode}", settings)
        pooled = [normalized(pool.call(sid, name, args), ws) for name, args in calls(ws)]

        async def alone(local_dir: Path, env: dict[str, str], mode: str) -> list[object]:
            async with Session(local_dir, approval_mode=mode, env=env) as local:
                found = []
                for name, args in calls(str(local_dir)):
                    found.append(normalized(await local.call(name, args), str(local_dir)))
                return found

        assert pooled == asyncio.run(alone(local_dir, env, mode)), mode
        diff = pool.diff(sid)
        assert "+    return 42" in diff or mode == "default"
        pool.close(sid)


@pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap cannot run here")
def test_sessions_cannot_see_each_other_on_one_worker_or_across_workers(
    pool: SessionPool,
) -> None:
    template = Template.from_files({"a.txt": "a\n"})
    sids = [pool.open(template, approval_mode="yolo") for _ in range(4)]
    assert {pool.worker_of(sid) for sid in sids} == {0, 1}
    places = {}
    for sid in sids:
        done = pool.call(sid, "run_shell_command", {"command": f"echo {sid} > mine.txt; pwd"})
        places[sid] = done.response_text.split("\nOutput: ", 1)[1].split("\n", 1)[0]
    for sid in sids:
        others = " ".join(f"{places[o]}/mine.txt" for o in sids if o != sid)
        done = pool.call(sid, "run_shell_command", {"command": f"cat mine.txt {others}"})
        output = done.response_text.split("\nOutput: ", 1)[1]
        assert f"{sid}\n" in output
        assert [o for o in sids if o != sid and f"{o}\n" in output] == []
    for sid in sids:
        pool.close(sid)


def test_a_closed_session_is_lost(pool: SessionPool) -> None:
    sid = pool.open(Template.from_files({"a.txt": "a\n"}))
    pool.close(sid)
    with pytest.raises(SessionLost):
        pool.call(sid, "glob", {"pattern": "*"})


async def test_a_rollout_of_200_tasks(pool: SessionPool, tmp_path: Path) -> None:
    tasks = [
        RolloutTask(
            f"t{i}",
            f"KIND={KINDS[i % len(KINDS)]} TAG=tag{i}",
            {"files": TEMPLATE_FILES},
            max_turns=3,
        )
        for i in range(200)
    ]
    out = tmp_path / "out.jsonl"
    with FakeOpenAI(scripted_model) as server:
        model = ModelConfig(model="fake-model", api_key="k", base_url=server.url)
        runner = RolloutRunner(model, RayBackend(pool), concurrency=16)
        summary = await runner.run(tasks, out)
    import json

    records = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert summary.written == 200 and len(records) == 200
    for i, task in enumerate(tasks):
        record, kind, tag = records[task.id], KINDS[i % len(KINDS)], f"tag{i}"
        expected = {"error": "failed", "loop": "limit"}.get(kind, "ok")
        assert record["status"] == expected, record
        assert all(call["status"] == "success" for call in record["tool_calls"]), record
        line = expected_diff_line(kind, tag)
        assert (line in record["diff"]) if line else record["diff"] == "", record
        assert record["messages"][0]["role"] == "user"
        if kind == "loop":
            assert record["turns"] == 3 and record["finish_reason"] == "MAX_TURNS"
    assert all(info["sessions"] == 0 for info in pool.info())


@pytest.mark.parametrize("route", ["channel", "ray"])
async def test_concurrent_calls_are_answered_one_by_one(pool: SessionPool, route: str) -> None:
    """Through the workers' sockets, and as coalesced Ray tasks (the route to a worker on
    another node)."""

    paths = list(pool._channels.paths)
    assert all(paths)  # the driver runs on the workers' node
    if route == "ray":
        pool._channels.paths = [None] * len(paths)
    try:
        await _concurrent_calls(pool)
    finally:
        pool._channels.paths = paths


async def _concurrent_calls(pool: SessionPool) -> None:
    import asyncio

    template = Template.from_files({"a.txt": "a\n"})
    sids = [await pool.open_async(template) for _ in range(6)]
    gone = sids.pop()
    await pool.close_async(gone)
    pool._placement[gone] = 0  # as if the pool had not seen the close: the worker must say it
    calls = [pool.call_async(sid, "glob", {"pattern": "*.txt"}, call_id=sid) for sid in sids]
    calls.append(pool.call_async(gone, "glob", {"pattern": "*.txt"}))
    calls += [pool.call_async(sid, "no_such_tool", {}) for sid in sids]
    outcomes = await asyncio.gather(*calls, return_exceptions=True)
    found = outcomes[: len(sids)]
    assert [done.request.call_id for done in found] == sids  # type: ignore[union-attr]
    assert all(done.status == "success" for done in found)  # type: ignore[union-attr]
    lost = outcomes[len(sids)]
    assert isinstance(lost, SessionLost) and lost.session_id == gone
    assert all(done.status == "error" for done in outcomes[len(sids) + 1 :])  # type: ignore[union-attr]
    for sid in sids:
        await pool.close_async(sid)


@pytest.mark.parametrize("error", ["ActorUnavailableError", "ActorDiedError", "GetTimeoutError"])
async def test_a_ray_error_raised_inside_a_worker_keeps_its_sessions(
    pool: SessionPool, error: str
) -> None:
    """A Ray error that a call raises (here, code run on the worker raising it, as code that
    talks to another actor may) says nothing about this worker: the call fails with it, and
    the worker's sessions live on."""
    import ray.exceptions

    template = Template.from_files({"a.txt": "a\n"})
    sid = await pool.open_async(template)
    neighbour = await pool.open_async(template)
    while pool.worker_of(neighbour) != pool.worker_of(sid):
        neighbour = await pool.open_async(template)

    async def fail(session: object, workspace: object, name: str) -> None:
        import ray.exceptions

        made = {
            "ActorUnavailableError": lambda: ray.exceptions.ActorUnavailableError("boom", None),
            "ActorDiedError": ray.exceptions.ActorDiedError,
            "GetTimeoutError": lambda: ray.exceptions.GetTimeoutError("boom"),
        }
        raise made[name]()

    with pytest.raises(getattr(ray.exceptions, error)):
        await pool.run_async(sid, fail, error)
    for one in (sid, neighbour):
        assert (await pool.call_async(one, "glob", {"pattern": "*.txt"})).status == "success"
        assert pool.call(one, "glob", {"pattern": "*.txt"}).status == "success"
        await pool.close_async(one)


async def test_a_broken_channel_fails_the_call_in_flight_and_keeps_the_session(
    pool: SessionPool,
) -> None:
    """The driver's socket to a worker breaks under a call: that call gets WorkerUnavailable
    (Ray confirms the worker lives), the session stays, the next call reconnects; the socket
    is its user's alone."""
    import asyncio
    import stat

    sid = await pool.open_async(Template.from_files({"a.txt": "a\n"}), approval_mode="yolo")
    assert (await pool.call_async(sid, "glob", {"pattern": "*.txt"})).status == "success"
    path = pool._channels.paths[pool.worker_of(sid)]
    assert path is not None and stat.S_IMODE(os.stat(os.path.dirname(path)).st_mode) == 0o700
    args = {"command": "sleep 1 # intentional-sleep: a call in flight"}
    call = asyncio.ensure_future(pool.call_async(sid, "run_shell_command", args))
    await asyncio.sleep(0)
    pool._channels.close()
    with pytest.raises(WorkerUnavailable) as unavailable:
        await call
    assert unavailable.value.session_id == sid and "ChannelBroken" in str(unavailable.value)
    assert (await pool.call_async(sid, "glob", {"pattern": "*.txt"})).status == "success"
    await pool.close_async(sid)


class _Unreadable:
    """Pickles fine; unpickling it fails (in the worker)."""

    def __reduce__(self) -> tuple[object, tuple[int, int]]:
        import operator

        return (operator.truediv, (1, 0))


@pytest.mark.parametrize("route", ["channel", "ray"])
async def test_an_argument_the_worker_cannot_read_fails_its_call_only(
    pool: SessionPool, route: str
) -> None:
    import asyncio

    sid = await pool.open_async(Template.from_files({"a.txt": "a\n"}))

    async def echo(session: object, workspace: object, value: object) -> object:
        return value

    paths = list(pool._channels.paths)
    if route == "ray":
        pool._channels.paths = [None] * len(paths)
    try:
        outcomes = await asyncio.gather(
            pool.run_async(sid, echo, _Unreadable()),
            pool.run_async(sid, echo, "fine"),
            return_exceptions=True,
        )
        assert isinstance(outcomes[0], Exception) and "ZeroDivisionError" in repr(outcomes[0])
        assert not isinstance(outcomes[0], SessionLost | WorkerUnavailable)
        assert outcomes[1] == "fine"
        assert (await pool.call_async(sid, "glob", {"pattern": "*.txt"})).status == "success"
    finally:
        pool._channels.paths = paths
        await pool.close_async(sid)


async def test_a_socket_that_cannot_be_reached_sends_the_calls_by_ray(
    pool: SessionPool, tmp_path: Path
) -> None:
    """A worker on the driver's node whose socket the driver cannot reach (another mount
    namespace, say): its calls go as Ray tasks, until an open says where the socket is."""
    sid = await pool.open_async(Template.from_files({"a.txt": "a\n"}))
    index, opened = pool.worker_of(sid), [sid]
    paths = list(pool._channels.paths)
    pool._channels.close()
    pool._channels.paths[index] = str(tmp_path / "nowhere" / "sock")
    try:
        assert (await pool.call_async(sid, "glob", {"pattern": "*.txt"})).status == "success"
        assert pool._channels.paths[index] is None
        while pool.worker_of(opened[-1]) != index or len(opened) == 1:
            opened.append(await pool.open_async(Template.from_files({"a.txt": "a\n"})))
        assert pool._channels.paths[index] == paths[index]
    finally:
        pool._channels.paths = paths
    for one in opened:
        await pool.close_async(one)


@pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap cannot run here")
def test_a_sandboxed_command_cannot_reach_the_workers_socket(pool: SessionPool) -> None:
    """The socket takes pickles (code, for the worker): a session's shell must not reach it,
    its own worker's or another's."""
    sid = pool.open(Template.from_files({"a.txt": "a\n"}), approval_mode="yolo")
    assert all(info["sandboxed"] for info in pool.info())
    for path in pool._channels.paths:
        assert path is not None and os.path.exists(path)
        probe = (
            "import socket,sys; s=socket.socket(socket.AF_UNIX); "
            f"s.connect({path!r}); print('CONN' + 'ECTED')"
        )
        done = pool.call(sid, "run_shell_command", {"command": f'python3 -c "{probe}"'})
        assert "CONNECTED" not in done.response_text
        assert "No such file or directory" in done.response_text, done.response_text
    pool.close(sid)
