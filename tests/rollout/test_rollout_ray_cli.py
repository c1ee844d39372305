"""``qwen-tools rollout --ray ADDRESS`` end to end, as a user runs it: a Ray head started with
``ray start --head --block`` in a temp dir (once for the module), the command as a subprocess
pointed at ``127.0.0.1:PORT``, the fake model server of the tests. Records equal to the local
run's on the same tasks, a run stopped by Ctrl-C resumed, the progress bar on a terminal, more
workers than the cluster holds (a warning, then SIGTERM), no pool worker left after a command,
and every Ray process the module started ended at its end (by the head's pid: ``ray stop``
would end other runs' Ray too). A bad address is one line on stderr and exit 3, at once."""

from __future__ import annotations

import json
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from qwen_tools.process import procfs
from support.fake_openai import FakeOpenAI, Reply
from support.leftovers import die_with_parent
from support.pty_terminal import PtyTerminal
from support.rollout_cli import EXE, comparable, records, rollout, rollout_env, write_tasks
from support.rollout_model import TEMPLATE_FILES, expected_diff_line, scripted_model

pytest.importorskip("ray")
pytestmark = pytest.mark.xdist_group("ray")

RAY = Path(sys.executable).with_name("ray")
TASKS: list[dict[str, Any]] = [
    {"id": "read", "prompt": "KIND=read TAG=r1", "template": "repo"},
    {"id": "edit", "prompt": "KIND=edit TAG=e1", "template": "repo"},
    {"id": "shell", "prompt": "KIND=shell TAG=s1", "template": {"files": TEMPLATE_FILES}},
]


def _ours(head: int) -> set[int]:
    """The head's process and every process below it, in its group or in its session."""
    table = procfs.snapshot()
    return {
        stat.pid
        for stat in table.values()
        if not stat.zombie
        and (
            stat.pid == head
            or head in (stat.pgid, stat.sid)
            or procfs.descends_from(stat, head, table)
        )
    }


def _wait_gone(pids: set[int], seconds: float) -> set[int]:
    deadline = time.monotonic() + seconds
    alive = set(pids)
    while alive and time.monotonic() < deadline:
        alive = {pid for pid in alive if procfs.is_alive(pid)}
        time.sleep(0.1)
    return {pid for pid in alive if procfs.is_alive(pid)}


class Head(NamedTuple):
    address: str
    """``127.0.0.1:PORT``, as a user would give it."""
    pid: int
    """``ray start --block``'s: every Ray process of this head is below it."""


def pool_workers(head: Head) -> set[int]:
    """The head's processes that are pool worker actors."""
    return {pid for pid in _ours(head.pid) if _command(pid).startswith("ray::PoolWorker")}


def _command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def no_pool_worker_left(head: Head) -> None:
    """A rollout's pool is gone once its command has ended (a bounded wait)."""
    deadline = time.monotonic() + 60
    while pool_workers(head) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not pool_workers(head), [_command(pid) for pid in pool_workers(head)]


@pytest.fixture(scope="module")
def ray_head() -> Iterator[Head]:
    """A 2-CPU Ray head started for this module as a user would, then stopped."""
    root = Path(tempfile.mkdtemp(prefix="qt-ray-"))  # short: Ray's socket paths must be short
    env = {**os.environ, "RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}
    argv = [str(RAY), "start", "--head", "--port", "0", "--num-cpus", "2"]
    argv += ["--include-dashboard", "false", "--disable-usage-stats"]
    argv += ["--temp-dir", str(root / "ray"), "--block"]
    log = (root / "head.log").open("wb")
    head = subprocess.Popen(
        argv,
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
        start_new_session=True,
        preexec_fn=die_with_parent,
    )
    try:
        address_file = root / "ray" / "ray_current_cluster"
        deadline = time.monotonic() + 180
        while not address_file.is_file() or not address_file.read_text().strip():
            assert head.poll() is None, (root / "head.log").read_text()
            assert time.monotonic() < deadline, "the Ray head never wrote its address"
            time.sleep(0.2)
        port = address_file.read_text().strip().rsplit(":", 1)[1]
        yield Head(f"127.0.0.1:{port}", head.pid)
    finally:
        started = _ours(head.pid)
        assert len(started) > 3, started  # the head, its GCS, raylet, ... were found
        head.send_signal(signal.SIGTERM)  # `ray start --block` ends what it started
        head.wait(120)
        log.close()
        left = _wait_gone(started, 60)
        for pid in left:  # only processes of this head (its group, session or descendants)
            os.kill(pid, signal.SIGKILL)
        shutil.rmtree(root, ignore_errors=True)
        assert not left, f"Ray processes left running after the head stopped: {left}"


def _tasks(tmp_path: Path, tasks: list[dict[str, Any]]) -> None:
    template = tmp_path / "repo"
    template.mkdir(exist_ok=True)
    for name, content in TEMPLATE_FILES.items():
        (template / name).write_text(content)
    write_tasks(tmp_path, tasks)


def test_rollout_on_ray_equals_the_local_run(ray_head: Head, tmp_path: Path) -> None:
    _tasks(tmp_path, TASKS)
    with FakeOpenAI(scripted_model) as server:
        on_ray = rollout(
            tmp_path, server.url, "-c", "2", "--ray", ray_head.address, output="ray.jsonl"
        )
        assert on_ray.returncode == 0, on_ray.stderr
        assert "Traceback" not in on_ray.stderr, on_ray.stderr
        assert "rollout: 3 written (3 ok)" in on_ray.stderr
        local = rollout(tmp_path, server.url, "-c", "2", output="local.jsonl")
        assert local.returncode == 0, local.stderr
        found, alone = records(tmp_path, "ray.jsonl"), records(tmp_path, "local.jsonl")

        assert set(found) == {"read", "edit", "shell"}
        for record in found.values():
            assert (record["status"], record["finish_reason"]) == ("ok", "GOAL"), record
        assert [c["name"] for c in found["read"]["tool_calls"]] == ["read_file", "grep_search"]
        assert found["read"]["diff"] == ""
        edit = found["edit"]
        assert [c["name"] for c in edit["tool_calls"]] == ["read_file", "edit"]
        assert edit["tool_calls"][0]["response"] == TEMPLATE_FILES["app.py"]
        assert edit["tool_calls"][1]["status"] == "success"
        assert expected_diff_line("edit", "e1") in edit["diff"]
        assert edit["turns"] == 3 and edit["final_text"] == "Finished e1."
        roles = [m["role"] for m in edit["messages"]]
        assert roles.count("tool") == 2 and roles[-1] == "assistant"
        shell = found["shell"]["tool_calls"]
        assert [c["name"] for c in shell] == ["run_shell_command"]
        assert shell[0]["status"] == "success" and "2 app.py" in shell[0]["response"]
        assert expected_diff_line("shell", "s1") in found["shell"]["diff"]
        for name in found:
            assert comparable(found[name]) == comparable(alone[name]), name


def test_progress_bar_on_a_terminal_with_ray(ray_head: Head, tmp_path: Path) -> None:
    _tasks(tmp_path, TASKS)
    with FakeOpenAI(scripted_model) as server:
        argv = [str(EXE), "rollout", "tasks.jsonl", "-o", "out.jsonl", "--ray", ray_head.address]
        terminal = PtyTerminal(argv, rollout_env(tmp_path, server.url, TERM="xterm"), tmp_path)
        try:
            code = terminal.finish(timeout=180)
            screen = terminal.text
        finally:
            terminal.close()
    assert code == 0, screen
    assert "Traceback" not in screen, screen
    assert terminal_bar(screen), screen
    assert "rollout: 3 written (3 ok)" in screen
    assert len(records(tmp_path)) == 3


def terminal_bar(screen: str) -> bool:
    """The bar's last state: all done, a rate, nothing failed, an ETA column."""
    return re.search(r"rollout .*3/3 +\d+\.\d tasks/min · 0 failed .*ETA", screen) is not None


HOLD = threading.Event()


def held_model(body: dict[str, Any]) -> Reply:
    """The scripted model, plus ``KIND=hang``: a reply that stops half-way until ``HOLD``."""
    if "KIND=hang" in json.dumps(body["messages"]):
        return Reply(content="thinking about it", hold=HOLD)
    return scripted_model(body)


def _until(done: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 120
    while not done():
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.1)


def test_an_interrupted_run_on_ray_resumes(ray_head: Head, tmp_path: Path) -> None:
    _tasks(tmp_path, [*TASKS, {"id": "hang", "prompt": "KIND=hang TAG=h1", "template": "repo"}])
    out = tmp_path / "out.jsonl"
    argv = [str(EXE), "rollout", "tasks.jsonl", "-o", "out.jsonl", "-c", "4"]
    with FakeOpenAI(held_model) as server:
        env = rollout_env(tmp_path, server.url)
        try:
            running = subprocess.Popen(
                [*argv, "--ray", ray_head.address],
                cwd=tmp_path,
                env=env,
                stderr=subprocess.PIPE,
                text=True,
            )
            try:
                _until(lambda: out.is_file() and out.read_text().count("\n") == 3, "3 records")
                _until(lambda: "KIND=hang" in json.dumps(server.requests), "the hang request")
                running.send_signal(signal.SIGINT)
                _, stderr = running.communicate(timeout=120)
            finally:
                if running.poll() is None:
                    running.kill()
                    running.wait()
        finally:
            HOLD.set()
        assert running.returncode == 130, stderr
        assert "Traceback" not in stderr and "Interrupted." in stderr, stderr
        assert set(records(tmp_path)) == {"read", "edit", "shell"}
        no_pool_worker_left(ray_head)

        kept = out.read_text()
        asked_before = len(server.requests)
        again = rollout(tmp_path, server.url, "--ray", ray_head.address)
        assert again.returncode == 0, again.stderr
        assert "rollout: 1 written (1 ok), 3 already in out.jsonl" in again.stderr
        assert out.read_text().startswith(kept)
        assert records(tmp_path)["hang"]["final_text"] == "thinking about it"
        asked = [json.dumps(body["messages"]) for body in server.requests[asked_before:]]
        assert asked and all("KIND=hang" in text for text in asked)


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_more_workers_than_the_cluster_holds_wait_with_a_warning(
    stop: signal.Signals, ray_head: Head, tmp_path: Path
) -> None:
    """Before: no word while the pool waited for CPUs forever; SIGTERM then ended the command
    with exit 1 and a stack dump from Ray's core, and Ctrl-C once did nothing (the pool
    started inside the event loop, whose SIGINT handler only cancels a task)."""
    _tasks(tmp_path, TASKS[:1])
    argv = [str(EXE), "rollout", "tasks.jsonl", "-o", "out.jsonl", "--ray", ray_head.address]
    running = subprocess.Popen(
        [*argv, "--workers", "5"],
        cwd=tmp_path,
        env=rollout_env(tmp_path, "http://127.0.0.1:9/v1"),
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert running.stderr is not None
        ready, _, _ = select.select([running.stderr], [], [], 120)
        first = running.stderr.readline() if ready else ""
        assert first == (
            "qwen-tools rollout: 5 workers need 2.5 CPUs (0.5 each) and the Ray cluster has 2: "
            "waiting for more (use fewer --workers, or add nodes)\n"
        ), first
        _until(lambda: len(pool_workers(ray_head)) == 4, "the 4 workers that fit")
        running.send_signal(stop)
        _, rest = running.communicate(timeout=120)
    finally:
        if running.poll() is None:
            running.kill()
            running.wait()
    assert running.returncode == 128 + stop, rest
    assert "Traceback" not in rest and "received at time" not in rest, rest  # Ray's dump
    assert not (tmp_path / "out.jsonl").exists()
    no_pool_worker_left(ray_head)


def test_workers_that_cannot_start_on_the_cluster_are_one_line(
    ray_head: Head, tmp_path: Path
) -> None:
    """A runtime env the nodes cannot set up, as a job submitted with one gets it (before: a
    traceback from the pool's start)."""
    _tasks(tmp_path, TASKS[:1])
    broken = json.dumps({"runtime_env": {"conda": "qwen-tools-no-such-env"}})
    done = rollout(
        tmp_path,
        "http://127.0.0.1:9/v1",
        "--ray",
        ray_head.address,
        RAY_JOB_CONFIG_JSON_ENV_VAR=broken,
    )
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 3, done.stderr
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[0].startswith(
        "qwen-tools rollout: the pool's workers did not start on the Ray cluster: "
    ), lines
    assert not (tmp_path / "out.jsonl").exists()
    no_pool_worker_left(ray_head)


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize("address", ["closed", "auto", "not-an-address", "127.0.0.1:99999"])
def test_a_bad_ray_address_is_one_line_and_a_non_zero_exit(address: str, tmp_path: Path) -> None:
    """Before: a closed port was 13 minutes of retries, then a traceback (80 s for an unknown
    host); a malformed address a traceback."""
    closed = f"127.0.0.1:{_closed_port()}"
    address = closed if address == "closed" else address
    _tasks(tmp_path, TASKS[:1])
    done = rollout(tmp_path, "http://127.0.0.1:9/v1", "--ray", address, RAY_ADDRESS=closed)
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 3, done.stderr
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[0].startswith("qwen-tools rollout: ") and address in lines[0], lines
    port = closed.rsplit(":", 1)[1]
    if address == closed:
        assert lines[0].endswith(f"at {closed}: Connection refused"), lines
    elif address == "auto":  # RAY_ADDRESS names the cluster, as ray.init reads it
        assert lines[0].startswith("qwen-tools rollout: no Ray cluster at auto ("), lines
        assert lines[0].endswith(f":{port}): Connection refused"), lines
    assert not (tmp_path / "out.jsonl").exists()
