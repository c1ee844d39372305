"""Scheduler overhead, parallel reads and import time.

Prints, in one run:

* the per-call overhead of the scheduler on a no-op tool (JSON args validated, nothing done),
  one call per batch and 100 calls in one batch (target < 25 µs per call in both), next to the
  floor of "validate the args and call a function";
* 100 parallel ``read_file`` calls in one batch vs the same 100 run one batch at a time;
* ``python -c "import qwen_tools"`` vs ``python -c pass`` (target < 150 ms).

Run: ``.venv/bin/python bench/scheduler.py``.
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from qwen_tools import (
    AbortSignal,
    ApprovalMode,
    BaseDeclarativeTool,
    BaseToolInvocation,
    Config,
    Kind,
    ToolCallRequest,
    ToolInvocation,
    ToolRegistry,
    ToolResult,
    UpdateOutput,
    validate_params,
)
from qwen_tools.execution.scheduler import ToolScheduler

SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}


class NoopInvocation(BaseToolInvocation[dict[str, Any]]):
    def get_description(self) -> str:
        return "noop"

    async def execute(
        self, signal: AbortSignal, update_output: UpdateOutput | None = None
    ) -> ToolResult:
        return ToolResult(llm_content="ok")


class NoopTool(BaseDeclarativeTool[dict[str, Any]]):
    def __init__(self) -> None:
        super().__init__("noop", "Noop", "Does nothing.", Kind.OTHER, SCHEMA)

    def create_invocation(self, params: dict[str, Any]) -> ToolInvocation[dict[str, Any]]:
        return NoopInvocation(params)


def _floor_us(n: int) -> float:
    def call(text: str) -> str:
        return text

    start = time.perf_counter()
    for i in range(n):
        data, error = validate_params(SCHEMA, {"text": str(i)})
        assert error is None
        call(data["text"])
    return (time.perf_counter() - start) / n * 1e6


async def _per_call_us(scheduler: ToolScheduler, batches: int, size: int) -> float:
    requests = [
        [ToolCallRequest("noop", {"text": "x"}, f"c{b}_{i}") for i in range(size)]
        for b in range(batches)
    ]
    start = time.perf_counter()
    for batch in requests:
        await scheduler.schedule(batch)
    return (time.perf_counter() - start) / (batches * size) * 1e6


async def _reads(workdir: Path) -> tuple[float, float]:
    from qwen_tools import build_registry

    for i in range(100):
        (workdir / f"f{i}.txt").write_text("line\n" * 200)
    config = Config(workdir, approval_mode=ApprovalMode.YOLO)
    scheduler = ToolScheduler(build_registry(config), config)
    calls = [
        ToolCallRequest(
            "read_file", {"file_path": str(workdir / f"f{i}.txt"), "offset": 1}, f"r{i}"
        )
        for i in range(100)
    ]
    start = time.perf_counter()
    await scheduler.schedule(calls)
    parallel = time.perf_counter() - start
    start = time.perf_counter()
    for c in calls:
        await scheduler.schedule([c])
    serial = time.perf_counter() - start
    return parallel * 1000, serial * 1000


def _import_ms(code: str, runs: int = 15) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def main() -> None:
    registry = ToolRegistry([NoopTool()])
    with tempfile.TemporaryDirectory() as tmp:
        config = Config(tmp, approval_mode=ApprovalMode.YOLO)
        scheduler = ToolScheduler(registry, config)
        asyncio.run(_per_call_us(scheduler, 200, 1))  # warm up
        one = statistics.median(asyncio.run(_per_call_us(scheduler, 2000, 1)) for _ in range(5))
        hundred = statistics.median(asyncio.run(_per_call_us(scheduler, 20, 100)) for _ in range(5))
        floor = statistics.median(_floor_us(20000) for _ in range(5))
        parallel, serial = asyncio.run(_reads(Path(tmp)))
    base = _import_ms("pass")
    ours = _import_ms("import qwen_tools")
    print(f"validate args + call a function : {floor:6.1f} µs per call")
    print(f"scheduler, 1 call per batch     : {one:6.1f} µs per call  (target < 25)")
    print(f"scheduler, 100 calls per batch  : {hundred:6.1f} µs per call  (target < 25)")
    print(f"100 read_file, one batch        : {parallel:6.1f} ms")
    print(
        f"100 read_file, one per batch    : {serial:6.1f} ms  (parallel speed-up {serial / parallel:.2f}x)"
    )
    print(f"python -c pass                  : {base:6.1f} ms")
    print(
        f"python -c 'import qwen_tools'   : {ours:6.1f} ms  (target < 150; +{ours - base:.1f} ms)"
    )


if __name__ == "__main__":
    main()
