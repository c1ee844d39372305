"""The Python ``grep_search`` engine runs in worker processes, so a search can always be stopped.

A regular expression can take exponential time (``^(a+)+(?=b)`` on a line of 34 ``a``); Python's
``re`` holds the GIL and cannot be interrupted, so run in our process it would stall every other
call and ignore Ctrl-C. Here the engine (:func:`~qwen_tools.tools.grep.python_engine.python_search`) runs in a child
process (``python -c``, calling :func:`serve`); the caller waits in a thread of its own
(:mod:`~qwen_tools.tools.grep.search_child`), and an abort, a cancellation or the time limit kill the worker, which
ends the call at once. The worker checks the time limit itself between files and answers with
what it found; only when it does not answer within a short grace after the limit (a runaway
pattern) is it killed, and the search reports :func:`~qwen_tools.tools.grep.ripgrep.timeout_message` without lines.

Workers are kept for the next search (at most :data:`MAX_IDLE` idle ones; a busy one is never
shared), so the interpreter starts once, not per search. A worker reads requests on stdin and
exits at its end, so it never outlives our process while idle; while searching, a CPU-time limit
(``RLIMIT_CPU``: the search's time limit plus a margin) bounds it even if we were killed. Frames
are a 4-byte big-endian length and a pickle; only our own worker is ever unpickled.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import math
import os
import pickle
import selectors
import signal
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

from qwen_tools.contract.abort import AbortSignal
from qwen_tools.tools.grep.rg_sandbox import global_excludes_path
from qwen_tools.tools.grep.ripgrep import (
    ABORTED_MESSAGE,
    GrepMatch,
    SearchOutcome,
    SearchRequest,
    timeout_message,
)
from qwen_tools.tools.grep.search_child import Child, run_blocking

__all__ = ["MAX_IDLE", "busy_worker_pids", "close_idle_workers", "run_python_search"]

MAX_IDLE = 2
GRACE = 0.5
"""Seconds past the time limit a worker may take to answer before it is killed."""
_CPU_MARGIN = 30
_HEADER = struct.Struct("!I")
_WORKER_MAIN = "from qwen_tools.tools.grep.worker import serve; serve()"
_Encoded = tuple[list[tuple[str, int, str]], bool, "str | None", bool, bool]

_lock = threading.Lock()
_idle: list[subprocess.Popen[bytes]] = []
_busy: dict[int, subprocess.Popen[bytes]] = {}


def _encode(outcome: SearchOutcome) -> _Encoded:
    lines = [(m.path, m.line, m.text) for m in outcome.matches]
    return lines, outcome.incomplete, outcome.error, outcome.output_empty, outcome.regex_rejected


def _decode(data: _Encoded) -> SearchOutcome:
    lines, incomplete, error, empty, rejected = data
    return SearchOutcome([GrepMatch(*m) for m in lines], incomplete, error, empty, rejected)


# -- the worker process ------------------------------------------------------------------


def _read_exact(fd: int, size: int) -> bytes | None:
    parts: list[bytes] = []
    while size:
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            return None
        parts.append(chunk)
        size -= len(chunk)
    return b"".join(parts)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _cap_cpu(seconds: float) -> None:
    """Let this process use at most ``seconds`` more CPU time (plus a margin) before SIGXCPU."""
    import resource

    used = resource.getrusage(resource.RUSAGE_SELF)
    spent = used.ru_utime + used.ru_stime
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    soft = math.ceil(spent + seconds) + _CPU_MARGIN
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def serve() -> None:
    """The worker's loop: one request in, one outcome out, until stdin ends."""
    from qwen_tools.tools.grep.python_engine import python_search

    sys.stdout = sys.stderr  # fd 1 carries frames only
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while (header := _read_exact(0, _HEADER.size)) is not None:
        payload = _read_exact(0, _HEADER.unpack(header)[0])
        if payload is None:
            return
        request: SearchRequest
        deadline: float  # on the system-wide monotonic clock, which the caller shares
        request, deadline = pickle.loads(payload)
        _cap_cpu(request.time_limit())
        try:
            outcome = python_search(request, AbortSignal.never(), deadline)
        except Exception as exc:  # an engine bug must not cost the caller its answer
            outcome = SearchOutcome(error=f"{type(exc).__name__}: {exc}", output_empty=True)
        answer = pickle.dumps(_encode(outcome), protocol=pickle.HIGHEST_PROTOCOL)
        _write_all(1, _HEADER.pack(len(answer)) + answer)


# -- the caller's side -------------------------------------------------------------------


def _spawn() -> subprocess.Popen[bytes]:
    package_parent = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_parent, env.get("PYTHONPATH")]))
    return subprocess.Popen(
        [sys.executable, "-c", _WORKER_MAIN],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        env=env, process_group=0, close_fds=True,
    )  # fmt: skip


def _take() -> subprocess.Popen[bytes]:
    with _lock:
        while _idle:
            worker = _idle.pop()
            if worker.poll() is None:
                return worker
            _close(worker)
    return _spawn()


def _close(worker: subprocess.Popen[bytes]) -> None:
    """End an idle worker (EOF on its stdin) or reap a dead one."""
    for stream in (worker.stdin, worker.stdout):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()
    with contextlib.suppress(subprocess.TimeoutExpired):
        worker.wait(timeout=2)
    if worker.returncode is None:
        worker.kill()
        worker.wait()


def _give_back(worker: subprocess.Popen[bytes]) -> None:
    with _lock:
        if len(_idle) < MAX_IDLE:
            _idle.append(worker)
            return
    _close(worker)


@atexit.register
def close_idle_workers() -> None:
    """End the idle workers now (they would end with this process anyway)."""
    with _lock:
        idle, _idle[:] = list(_idle), []
    for worker in idle:
        _close(worker)


def busy_worker_pids() -> list[int]:
    """The process ids of the workers searching right now (tests watch them end)."""
    with _lock:
        return list(_busy)


def _read_answer(worker: subprocess.Popen[bytes], child: Child, deadline: float) -> bytes | None:
    """The worker's answer frame, or ``None`` when it ended first or the deadline passed."""
    assert worker.stdout is not None
    fd = worker.stdout.fileno()
    buffer = bytearray()
    need = _HEADER.size
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while len(buffer) < need:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not selector.select(timeout=remaining):
                return None
            chunk = os.read(fd, max(need - len(buffer), 1 << 16))
            if not chunk or child.killed:
                return None
            buffer += chunk
            if need == _HEADER.size and len(buffer) >= need:
                need += _HEADER.unpack_from(buffer)[0]
    return bytes(buffer[_HEADER.size :])


def _ask(
    worker: subprocess.Popen[bytes], frame: bytes, child: Child, deadline: float
) -> bytes | None:
    assert worker.stdin is not None
    try:
        _write_all(worker.stdin.fileno(), frame)
    except BrokenPipeError:
        return None
    return _read_answer(worker, child, deadline)


def _exchange(request: SearchRequest, child: Child) -> SearchOutcome:
    """One search in a worker (blocking; runs in the search's own thread)."""
    limit = request.time_limit()
    deadline = time.monotonic() + limit + GRACE
    if request.git_excludes is None:  # the worker's environment may be older than ours
        request = dataclasses.replace(request, git_excludes=global_excludes_path())
    payload = pickle.dumps((request, deadline - GRACE), protocol=pickle.HIGHEST_PROTOCOL)
    frame = _HEADER.pack(len(payload)) + payload
    for fresh in (False, True):  # an idle worker may have ended meanwhile: then a fresh one
        worker = _spawn() if fresh else _take()
        child.attach(worker)
        with _lock:
            _busy[worker.pid] = worker
        try:
            answer = _ask(worker, frame, child, deadline)
            if answer is not None and not child.killed:
                child.detach()
                _give_back(worker)
                return _decode(pickle.loads(answer))
            child.kill()
            child.reap()
            _close(worker)
        finally:
            with _lock:
                _busy.pop(worker.pid, None)
        if child.stopped:
            return SearchOutcome(error=ABORTED_MESSAGE, output_empty=True)
        if time.monotonic() >= deadline:
            return SearchOutcome(error=timeout_message(limit), output_empty=True)
    return SearchOutcome(error="The search worker ended unexpectedly", output_empty=True)


async def run_python_search(request: SearchRequest, signal: AbortSignal) -> SearchOutcome:
    """The Python engine's search for ``request`` in a worker; an abort or a cancel kills it."""
    child = Child()
    return await run_blocking(lambda: _exchange(request, child), child, signal)
