"""Sessions at scale: idle memory and open time, pool vs local throughput, 1 vs 2 workers, rollouts.

Measured in one run on this machine (ratios are what matter; absolute figures depend on load):

1. Idle sessions: open ``--sessions`` (1,000) sessions of a 3-file template in one process
   (:class:`SessionHost`, what a pool worker runs) and in a 1-worker :class:`SessionPool`;
   resident memory per idle session beyond the process (RSS after minus RSS after a warm-up of
   10 sessions, divided by the count; target < 2 MB) and the time to open each.
2. Small calls (``read_file`` of a 3-line file) from ``--clients`` (and 64) concurrent callers
   on 16 sessions: local sessions in one process vs the same calls through a 2-worker pool on a
   local Ray with 2 CPUs (target: pool >= 0.7 x local); 3 alternated runs each, the ratio of
   the bests and every run's rate printed (the spread says how loaded the machine was).
   The driver runs on the workers' node, so its calls go through their sockets
   (:mod:`qwen_tools.pool.channel`); ``--no-channel`` sends them as Ray tasks instead.
3. The same calls through a pool of 1 and of 2 workers on a two-node local cluster
   (``ray.cluster_utils.Cluster``, 1 CPU per node; a worker on the driver's node is reached
   through its socket, the other as Ray tasks: the routes are printed).
4. Rollouts against an instant fake OpenAI-compatible model (a separate process): tasks per
   minute locally and on the 2-worker pool (a mix of reads, edits, shell commands and writes);
   and the loop's cost per turn at turns 1-5 vs 36-40 of 40-turn trajectories (flat: ratio ~1).

Run: ``.venv/bin/python bench/scale.py`` (needs the ``ray`` extra; about 3 minutes).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from qwen_tools.model.model_config import ModelConfig
from qwen_tools.pool import SessionHost, Template
from qwen_tools.rollout import RolloutRunner, RolloutTask
from qwen_tools.rollout.backends import LocalBackend, RayBackend

FILES: dict[str, str | bytes] = {
    "app.py": "def answer():\n    return 41\n",
    "README.md": "# demo\n",
    "notes.txt": "alpha\nbeta\ngamma\n",
}
QUIET = {"include_dashboard": False, "log_to_driver": False, "configure_logging": False}


def rss_kb() -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


# -- 1. idle sessions ----------------------------------------------------------------------------


async def idle_local(count: int) -> dict[str, float]:
    host = SessionHost()
    template = Template.from_files(FILES)
    try:
        for _ in range(10):
            await host.open(template)
        gc.collect()
        before = rss_kb()
        started = time.perf_counter()
        for _ in range(count):
            await host.open(template)
        seconds = time.perf_counter() - started
        gc.collect()
        after = rss_kb()
    finally:
        await host.aclose()
    return {"kb_per_session": (after - before) / count, "ms_per_open": seconds / count * 1000}


async def idle_pool(count: int) -> dict[str, float]:
    from qwen_tools.pool.pool import SessionPool

    pool = SessionPool(workers=1)
    template = Template.from_files(FILES)
    try:
        await asyncio.gather(*(pool.open_async(template) for _ in range(10)))
        before = pool.info()[0]["rss_kb"]
        started = time.perf_counter()
        for chunk in range(0, count, 100):
            size = min(100, count - chunk)
            await asyncio.gather(*(pool.open_async(template) for _ in range(size)))
        seconds = time.perf_counter() - started
        after = pool.info()[0]["rss_kb"]
    finally:
        pool.shutdown()
    return {"kb_per_session": (after - before) / count, "ms_per_open": seconds / count * 1000}


# -- 2./3. small calls ---------------------------------------------------------------------------


async def drive(call: Any, sessions: list[tuple[str, str]], total: int, clients: int) -> float:
    """Calls per second of ``total`` read_file calls from ``clients`` concurrent callers."""
    left = total

    async def client(index: int) -> None:
        nonlocal left
        sid, ws = sessions[index % len(sessions)]
        while left > 0:
            left -= 1
            done = await call(sid, "read_file", {"absolute_path": f"{ws}/notes.txt"})
            assert done.status == "success", done.response_text

    started = time.perf_counter()
    await asyncio.gather(*(client(i) for i in range(clients)))
    return total / (time.perf_counter() - started)


async def calls_local(total: int, clients: int) -> float:
    host = SessionHost()
    template = Template.from_files(FILES)
    try:
        sids = [await host.open(template) for _ in range(16)]
        sessions = [(sid, str(host.workspace(sid))) for sid in sids]
        await drive(host.call, sessions, 200, clients)  # warm-up
        return await drive(host.call, sessions, total, clients)
    finally:
        await host.aclose()


CHANNEL = True
ROUTES: list[str] = []


async def calls_pool(workers: int, total: int, clients: int) -> float:
    from qwen_tools.pool.pool import SessionPool

    pool = SessionPool(workers=workers, num_cpus=0.5, channel=CHANNEL)
    ROUTES[:] = ["socket" if path else "ray" for path in pool._channels.paths]
    template = Template.from_files(FILES)
    try:
        sids = [await pool.open_async(template) for _ in range(16)]
        sessions = []
        for sid in sids:
            done = await pool.call_async(sid, "run_shell_command", {"command": "pwd"})
            ws = done.response_text.split("\nOutput: ", 1)[1].split("\n", 1)[0]
            sessions.append((sid, ws))
        await drive(pool.call_async, sessions, 200, clients)
        return await drive(pool.call_async, sessions, total, clients)
    finally:
        pool.shutdown()


# -- 4. rollouts ---------------------------------------------------------------------------------


def _serve(port_queue: Any) -> None:
    from support.fake_openai import FakeOpenAI
    from support.rollout_model import scripted_model

    server = FakeOpenAI(scripted_model).start()
    port_queue.put(server.url)
    time.sleep(10**6)


def rollout_tasks(count: int, kinds: tuple[str, ...], max_turns: int) -> list[RolloutTask]:
    return [
        RolloutTask(f"t{i}", f"KIND={kinds[i % len(kinds)]} TAG=t{i}", {"files": FILES}, max_turns)
        for i in range(count)
    ]


async def rollout_rate(backend: Any, url: str, tasks: list[RolloutTask], concurrency: int) -> Any:
    model = ModelConfig(model="fake", api_key="k", base_url=url)
    with tempfile.TemporaryDirectory() as tmp:
        runner = RolloutRunner(model, backend, concurrency=concurrency)
        summary = await runner.run(tasks, Path(tmp) / "out.jsonl")
        lines = (Path(tmp) / "out.jsonl").read_text().splitlines()
    import json

    records = [json.loads(line) for line in lines]
    return summary.written / summary.seconds * 60, records


def flatness(records: list[dict[str, Any]]) -> tuple[float, float]:
    early = [ms for r in records for ms in r["timings"]["turn_ms"][:5]]
    late = [ms for r in records for ms in r["timings"]["turn_ms"][35:40]]
    return statistics.median(early), statistics.median(late)


async def rollouts(count: int) -> None:
    """Part 4: rollouts against the instant fake model, locally and on a 2-worker pool."""
    queue: Any = multiprocessing.get_context("spawn").Queue()
    server = multiprocessing.get_context("spawn").Process(target=_serve, args=(queue,))
    server.start()
    try:
        url = queue.get(timeout=60)
        mix = ("read", "edit", "shell", "write")
        tasks = rollout_tasks(count, mix, 10)
        backend = LocalBackend()
        rate_local, _ = await rollout_rate(backend, url, tasks, 8)
        await backend.aclose()
        from qwen_tools.pool.pool import SessionPool

        pool = SessionPool(workers=2)
        rate_ray, _ = await rollout_rate(RayBackend(pool), url, tasks, 16)
        long_tasks = rollout_tasks(16, ("loop",), 40)
        _, records = await rollout_rate(RayBackend(pool), url, long_tasks, 8)
        pool.shutdown()
        early, late = flatness(records)
        print(
            f"4. rollout ({count} tasks: read/edit/shell/write): local "
            f"{rate_local:.0f} tasks/min (8 at a time), 2-worker pool {rate_ray:.0f} "
            f"tasks/min (16 at a time)"
        )
        print(
            f"   per turn (glob + model round trip), 40-turn trajectories: turns 1-5 "
            f"{early:.1f} ms, turns 36-40 {late:.1f} ms, ratio {late / early:.2f}"
        )
    finally:
        server.kill()
        server.join()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--tasks", type=int, default=200)
    parser.add_argument("--no-channel", action="store_true", help="pool calls as Ray tasks")
    parser.add_argument("--calls-only", action="store_true", help="parts 2 and 3 only")
    options = parser.parse_args()
    global CHANNEL
    CHANNEL = not options.no_channel
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    import ray

    print(f"machine: {os.cpu_count()} CPUs, Python {sys.version.split()[0]}, ray {ray.__version__}")
    if not options.calls_only:
        idle = await idle_local(options.sessions)
        print(
            f"1. {options.sessions} idle sessions, one process: "
            f"{idle['kb_per_session']:.0f} kB each, {idle['ms_per_open']:.1f} ms per open"
        )
    ray.init(address="local", num_cpus=2, **QUIET)
    try:
        if not options.calls_only:
            pooled = await idle_pool(options.sessions)
            print(
                f"   {options.sessions} idle sessions, 1-worker pool: "
                f"{pooled['kb_per_session']:.0f} kB each (worker RSS), "
                f"{pooled['ms_per_open']:.1f} ms per open (100 at a time)"
            )
        for clients in sorted({options.clients, 64}):
            locals_, pools = [], []
            for _ in range(3):  # alternated, best of 3: the machine may be shared
                locals_.append(await calls_local(options.calls, clients))
                pools.append(await calls_pool(2, options.calls, clients))
            print(
                f"2. read_file calls, {clients} clients: local {max(locals_):.0f}/s, "
                f"2-worker pool ({'+'.join(ROUTES)}) {max(pools):.0f}/s, ratio of the bests "
                f"{max(pools) / max(locals_):.2f} (runs: local {_rates(locals_)}, "
                f"pool {_rates(pools)}; per-round ratios {_ratios(pools, locals_)})"
            )
        if not options.calls_only:
            await rollouts(options.tasks)
    finally:
        ray.shutdown()
    from support.ray_cluster import two_node_cluster

    with two_node_cluster():
        ones, twos, routes = [], [], {}
        for _ in range(3):
            ones.append(await calls_pool(1, options.calls, options.clients))
            routes[1] = "+".join(ROUTES)
            twos.append(await calls_pool(2, options.calls, options.clients))
            routes[2] = "+".join(ROUTES)
    print(
        f"3. two-node cluster, read_file calls, {options.clients} clients: 1 worker "
        f"({routes[1]}) {max(ones):.0f}/s, 2 workers ({routes[2]}) {max(twos):.0f}/s, ratio of "
        f"the bests {max(twos) / max(ones):.2f} (runs: {_rates(ones)} and {_rates(twos)})"
    )


def _rates(rates: list[float]) -> str:
    return "/".join(f"{rate:.0f}" for rate in rates)


def _ratios(pools: list[float], locals_: list[float]) -> str:
    return "/".join(f"{p / q:.2f}" for p, q in zip(pools, locals_, strict=True))


if __name__ == "__main__":
    asyncio.run(main())
