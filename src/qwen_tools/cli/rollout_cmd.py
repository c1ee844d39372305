"""``qwen-tools rollout``: the agent on every task of a JSONL file, one record per task.

Tasks run with ``--concurrency`` at a time, locally (sessions in this process) or, with
``--ray ADDRESS``, on a :class:`~qwen_tools.pool.SessionPool` of ``--workers`` actors on that
cluster (``auto``: the running one; ``local``: start one here). The model is the one ``run``
would use (``OPENAI_*``, settings of ``--cwd``, ``--model``). On a terminal, a progress bar
with the rate and the time left is drawn on stderr; otherwise one summary line is printed.
Tasks already in ``--output`` are skipped, so rerunning the command resumes a stopped run.
Exit code 0 once every task has a record (failed tasks included: see their ``status``); 3
(one line on stderr, at once) when the model is not configured or no Ray cluster answers at
``--ray``'s address.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from qwen_tools.cli.exit_codes import EXIT_CONFIG, EXIT_OK, EXIT_USAGE

if TYPE_CHECKING:
    from qwen_tools.model.model_config import ModelConfig
    from qwen_tools.rollout.backends import Backend

__all__ = ["add_rollout_parser", "run_rollout"]


def add_rollout_parser(sub: Any, approval_modes: tuple[str, ...]) -> None:
    """The ``rollout`` sub-command's arguments."""
    rollout = sub.add_parser(
        "rollout",
        help="run the agent on each task of a JSONL file (locally or on Ray)",
        description=__doc__.split("\n\n", 1)[1] if __doc__ else None,
    )
    rollout.add_argument("tasks", metavar="TASKS.jsonl", help="one task per line")
    rollout.add_argument("--output", "-o", required=True, metavar="OUT.jsonl")
    rollout.add_argument("--concurrency", "-c", type=int, default=8, metavar="N")
    rollout.add_argument(
        "--ray",
        metavar="ADDRESS",
        help="run on a Ray cluster (HOST:PORT, ray://HOST:PORT, 'auto' or 'local')",
    )
    rollout.add_argument(
        "--workers", type=int, default=2, metavar="N", help="pool worker actors (default: 2)"
    )
    rollout.add_argument(
        "--max-turns", type=int, default=50, metavar="N", help="per task (default: 50)"
    )
    rollout.add_argument(
        "--timeout", type=float, default=600.0, metavar="SECONDS", help="per task (default: 600)"
    )
    rollout.add_argument(
        "--approval-mode", choices=approval_modes, default="yolo", help="default: yolo"
    )
    rollout.add_argument("-m", "--model", help="model name (overrides OPENAI_MODEL, model.name)")
    rollout.add_argument("--cwd", metavar="DIR", help="where the model settings are read")
    rollout.add_argument("--no-progress", action="store_true", help="no progress bar")


def _model(args: argparse.Namespace) -> ModelConfig | str:
    from qwen_tools.config.config import Config
    from qwen_tools.config.model_settings import resolve_model_config
    from qwen_tools.config.settings import SettingsError
    from qwen_tools.model.model_config import ModelNotConfigured

    try:
        config = Config.load(args.cwd)
        return resolve_model_config(config.loaded_settings, cli_model=args.model)
    except (SettingsError, ModelNotConfigured) as exc:
        return str(exc)


WORKER_CPUS = 0.5
"""CPUs reserved on the cluster per pool worker."""


def _ray_backend(args: argparse.Namespace) -> Backend:
    """A pool on the joined cluster, started before the event loop runs: its start blocks
    (until every worker is placed) and Ctrl-C must reach it."""
    from qwen_tools.rollout.backends import RayBackend
    from qwen_tools.rollout.cluster import cpu_shortfall, start_pool

    waiting = cpu_shortfall(args.workers, WORKER_CPUS)
    if waiting is not None:
        print(f"qwen-tools rollout: {waiting}", file=sys.stderr, flush=True)
    with _stops_as_exit():
        pool = start_pool(args.workers, WORKER_CPUS)
    return RayBackend(pool, owned=True)


@contextlib.contextmanager
def _stops_as_exit() -> Iterator[None]:
    """``SIGTERM``/``SIGHUP`` as ``SystemExit(128 + signal)`` while Ray blocks in ``ray.get``:
    the only exceptions its signal check lets through are that and ``KeyboardInterrupt`` (the
    CLI's own ``Terminated`` would be dropped, and the wait go on). Ray re-raises it as
    ``SystemExit(1)``: it leaves as ``Terminated`` again (exit 143 or 129)."""
    import signal

    from qwen_tools.cli.interrupts import Terminated

    received: list[int] = []

    def stop(signum: int, _frame: object) -> None:
        received.append(signum)
        raise SystemExit(128 + signum)

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.signal(signum, stop) for signum in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    except SystemExit:
        if received:
            raise Terminated(received[0]) from None
        raise
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


async def _run(
    args: argparse.Namespace, model: ModelConfig, tasks: list[Any], backend: Backend | None
) -> Any:
    from qwen_tools.rollout.backends import LocalBackend
    from qwen_tools.rollout.runner import RolloutRunner
    from qwen_tools.rollout.tasks import written_ids

    progress = _Progress(len(tasks) - len(written_ids(args.output)), not args.no_progress)
    backend = backend if backend is not None else LocalBackend()
    try:
        runner = RolloutRunner(
            model,
            backend,
            concurrency=args.concurrency,
            max_turns=args.max_turns,
            timeout_s=args.timeout,
            approval_mode=args.approval_mode,
            on_record=progress.advance,
        )
        with progress:
            return await runner.run(tasks, args.output)
    finally:
        await backend.aclose()


class _Progress:
    """A rich progress bar on a terminal (done/total, tasks per minute, time left), else quiet."""

    def __init__(self, total: int, wanted: bool) -> None:
        from rich.console import Console

        self.console = Console(stderr=True)
        self.enabled = wanted and self.console.is_terminal
        self.total = max(0, total)
        self.started = time.monotonic()
        self.failed = 0
        self._bar: Any = None
        self._task: Any = None

    def __enter__(self) -> _Progress:
        if self.enabled:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self._bar = Progress(
                TextColumn("rollout"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[rate]} tasks/min · {task.fields[failed]} failed"),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                console=self.console,
            )
            self._bar.__enter__()
            self._task = self._bar.add_task("rollout", total=self.total, rate="-", failed=0)
        return self

    def advance(self, record: dict[str, Any]) -> None:
        if record.get("status") == "failed":
            self.failed += 1
        if self._bar is not None:
            done = self._bar.tasks[0].completed + 1
            minutes = max(time.monotonic() - self.started, 1e-9) / 60
            rate = f"{done / minutes:.1f}"
            self._bar.update(self._task, advance=1, rate=rate, failed=self.failed)

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)


def run_rollout(args: argparse.Namespace) -> int:
    """Entry point of ``qwen-tools rollout``."""
    from qwen_tools.rollout.tasks import load_tasks

    if args.concurrency < 1 or args.workers < 1:
        print("qwen-tools rollout: --concurrency and --workers must be >= 1", file=sys.stderr)
        return EXIT_USAGE
    try:
        tasks = load_tasks(args.tasks)
    except (OSError, ValueError) as exc:
        print(f"qwen-tools rollout: {args.tasks}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    model = _model(args)
    if isinstance(model, str):
        print(model, file=sys.stderr)
        return EXIT_CONFIG
    import asyncio

    from qwen_tools.rollout.cluster import ClusterUnavailable, join_cluster

    try:
        backend = None
        if args.ray:
            join_cluster(args.ray)
            backend = _ray_backend(args)
        summary = asyncio.run(_run(args, model, tasks, backend))
    except ClusterUnavailable as exc:
        print(f"qwen-tools rollout: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    finally:
        if args.ray and "ray" in sys.modules:  # joined (or tried to): leave the cluster
            sys.modules["ray"].shutdown()
    per_status = ", ".join(
        f"{count} {status}" for status, count in sorted(summary.statuses.items())
    )
    rate = summary.written / max(summary.seconds, 1e-9) * 60
    print(
        f"rollout: {summary.written} written ({per_status or 'none'}), {summary.skipped} already "
        f"in {args.output}, {summary.seconds:.1f} s, {rate:.1f} tasks/min",
        file=sys.stderr,
    )
    return EXIT_OK
