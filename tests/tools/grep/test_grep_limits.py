"""A runaway regular expression costs only its own call: it is stopped, and others go on.

``^(a+)+(?=b)`` on a line of 34 ``a`` takes exponential time in Python's ``re`` (ripgrep rejects
the look-ahead, so the Python engine runs it). The search runs in a worker process: an abort or
a cancellation kills it, the time limit ends it with a clear message, and other calls on the
same event loop complete meanwhile. The checks are on events and processes, never on times.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from qwen_tools import Config, ToolCallRequest, ToolRegistry
from qwen_tools.contract.abort import AbortController, AbortSignal
from qwen_tools.execution import messages
from qwen_tools.execution.scheduler import ToolScheduler
from qwen_tools.tools.grep.ripgrep import timeout_message
from qwen_tools.tools.grep.tool import GrepTool
from qwen_tools.tools.grep.worker import busy_worker_pids
from qwen_tools.tools.read_file import ReadFileTool

RUNAWAY = "^(a+)+(?=b)"


@pytest.fixture
def slow_ws(ws: Path) -> Path:
    (ws / "a.txt").write_text("a" * 34 + "\n")
    (ws / "ok.txt").write_text("hello\n")
    return ws


async def busy_worker(before: set[int]) -> int:
    """The worker that started searching (bounded wait: fails only if none ever does)."""
    for _ in range(3000):
        started = set(busy_worker_pids()) - before
        if started:
            return started.pop()
        await asyncio.sleep(0.01)
    raise AssertionError("no search worker started")


def worker_alive(pid: int) -> bool:
    """Whether ``pid`` is still a grep worker (not gone, not a zombie, not reused)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return b"_grep_worker" in fh.read()
    except OSError:
        return False


def scheduler_for(root: Path) -> ToolScheduler:
    config = Config(root)
    return ToolScheduler(ToolRegistry([GrepTool(config), ReadFileTool(config)]), config)


async def test_abort_kills_the_search_and_other_calls_complete_meanwhile(slow_ws: Path) -> None:
    controller = AbortController()
    request = ToolCallRequest("grep_search", {"pattern": RUNAWAY}, "runaway")
    before = set(busy_worker_pids())
    runaway = asyncio.ensure_future(scheduler_for(slow_ws).schedule([request], controller.signal))
    pid = await busy_worker(before)
    read = ToolCallRequest("read_file", {"absolute_path": str(slow_ws / "ok.txt")}, "other")
    (other,) = await scheduler_for(slow_ws).schedule([read])
    assert other.status == "success"
    assert not runaway.done()  # the other call finished while the search was still running
    controller.abort()
    (stopped,) = await asyncio.wait_for(runaway, 60)
    assert stopped.status == "cancelled"
    reason = f"[Operation Cancelled] Reason: {messages.CANCELLED_DURING_EXECUTION}"
    assert stopped.response.response == {"error": reason}  # while running, not "had completed"
    assert not worker_alive(pid)


async def test_cancelling_the_call_kills_the_worker(slow_ws: Path) -> None:
    invocation = GrepTool(Config(slow_ws), engine="python").build({"pattern": RUNAWAY})
    before = set(busy_worker_pids())
    task = asyncio.ensure_future(invocation.execute(AbortSignal()))
    pid = await busy_worker(before)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    for _ in range(3000):  # the search's thread reaps the killed worker
        if not worker_alive(pid):
            break
        await asyncio.sleep(0.01)
    assert not worker_alive(pid)


async def test_the_time_limit_ends_a_runaway_search(slow_ws: Path) -> None:
    tool = GrepTool(Config(slow_ws), time_limit=0.2)
    before = set(busy_worker_pids())
    result = await tool.build({"pattern": RUNAWAY}).execute(AbortSignal())
    assert result.llm_content == f"Error during grep search operation: {timeout_message(0.2)}"
    assert timeout_message(0.2).startswith("Search timed out after 0.2 s: the pattern may be")
    assert not set(busy_worker_pids()) - before


async def test_a_worker_serves_the_next_search(slow_ws: Path) -> None:
    tool = GrepTool(Config(slow_ws), engine="python")
    for _ in range(3):
        result = await tool.build({"pattern": "hel+o"}).execute(AbortSignal())
        assert result.llm_content == (
            'Found 1 match for pattern "hel+o" in the workspace directory:\n---\n'
            f"{slow_ws}/ok.txt:1:hello"
        )
