"""Batches through the scheduler: ordering, parallel reads, approvals, cancellation, events."""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path
from typing import Any, Literal

import pytest

from qwen_tools import (
    AbortController,
    AbortSignal,
    ApprovalMode,
    BaseDeclarativeTool,
    BaseToolInvocation,
    Config,
    EditConfirmationDetails,
    Kind,
    ToolCallConfirmationDetails,
    ToolCallRequest,
    ToolConfirmationOutcome,
    ToolConfirmationPayload,
    ToolErrorType,
    ToolInvocation,
    ToolRegistry,
    ToolResult,
    UpdateOutput,
)
from qwen_tools._execution.scheduler import ToolCallEvent, ToolCallStatus, ToolScheduler

SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "ms": {"type": "integer"}},
    "required": ["name"],
}


class Journal:
    """Records when each call started and ended (monotonic), to check overlap and order."""

    def __init__(self) -> None:
        self.spans: dict[str, tuple[float, float]] = {}

    def overlap(self, a: str, b: str) -> bool:
        (s1, e1), (s2, e2) = self.spans[a], self.spans[b]
        return s1 < e2 and s2 < e1

    def before(self, a: str, b: str) -> bool:
        return self.spans[a][1] <= self.spans[b][0]


class StepInvocation(BaseToolInvocation[dict[str, Any]]):
    def __init__(self, tool: StepTool, params: dict[str, Any]) -> None:
        super().__init__(params)
        self.tool = tool

    def get_description(self) -> str:
        return self.params["name"]

    async def should_confirm_execute(
        self, signal: AbortSignal
    ) -> ToolCallConfirmationDetails | Literal[False]:
        if self.tool.kind is not Kind.EDIT:
            return False
        return EditConfirmationDetails(
            title=f"Confirm {self.params['name']}",
            file_name="f",
            file_path="/f",
            file_diff="",
            original_content=None,
            new_content="",
        )

    async def execute(
        self, signal: AbortSignal, update_output: UpdateOutput | None = None
    ) -> ToolResult:
        start = time.monotonic()
        if update_output is not None:
            update_output(f"working on {self.params['name']}")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(signal.wait(), self.params.get("ms", 0) / 1000)
        self.tool.journal.spans[self.params["name"]] = (start, time.monotonic())
        if self.params["name"].startswith("boom"):
            raise RuntimeError("exploded")
        return ToolResult(llm_content=f"done {self.params['name']}")


class StepTool(BaseDeclarativeTool[dict[str, Any]]):
    def __init__(self, name: str, kind: Kind, journal: Journal) -> None:
        super().__init__(name, name.title(), f"{name} step", kind, SCHEMA, can_update_output=True)
        self.journal = journal

    def create_invocation(self, params: dict[str, Any]) -> ToolInvocation[dict[str, Any]]:
        return StepInvocation(self, params)


@pytest.fixture
def journal() -> Journal:
    return Journal()


@pytest.fixture
def registry(journal: Journal) -> ToolRegistry:
    return ToolRegistry(
        [StepTool("look", Kind.READ, journal), StepTool("change", Kind.EDIT, journal)]
    )


@pytest.fixture
def config(tmp_path: Path) -> Config:
    return Config(tmp_path, approval_mode=ApprovalMode.YOLO)


def call(tool: str, name: str, ms: int = 0) -> ToolCallRequest:
    return ToolCallRequest(tool, {"name": name, "ms": ms}, f"id-{name}")


async def test_reads_run_in_parallel_and_edits_in_order(
    registry: ToolRegistry, config: Config, journal: Journal
) -> None:
    batch = [
        call("look", "r1", 150),
        call("look", "r2", 150),
        call("change", "e", 20),
        call("look", "r3", 10),
    ]
    results = await ToolScheduler(registry, config).schedule(batch)
    assert [r.request.call_id for r in results] == ["id-r1", "id-r2", "id-e", "id-r3"]
    assert all(r.status == "success" for r in results)
    assert journal.overlap("r1", "r2")
    assert journal.before("r1", "e") and journal.before("r2", "e")
    assert journal.before("e", "r3")


async def test_concurrency_is_bounded(
    registry: ToolRegistry, config: Config, journal: Journal
) -> None:
    batch = [call("look", f"r{i}", 100) for i in range(4)]
    await ToolScheduler(registry, config, max_concurrency=2).schedule(batch)
    overlapping = sum(journal.overlap(f"r{i}", f"r{j}") for i in range(4) for j in range(i + 1, 4))
    assert overlapping <= 2


async def test_waiting_for_approval_does_not_hold_back_earlier_reads(
    registry: ToolRegistry, tmp_path: Path, journal: Journal
) -> None:
    config = Config(tmp_path)
    seen_when_asked: list[set[str]] = []

    async def confirm(
        request: ToolCallRequest, details: ToolCallConfirmationDetails
    ) -> tuple[ToolConfirmationOutcome, ToolConfirmationPayload | None]:
        await asyncio.sleep(0.3)  # the user takes a while; the reads must finish meanwhile
        seen_when_asked.append(set(journal.spans))
        return ToolConfirmationOutcome.PROCEED_ONCE, None

    batch = [call("look", "r1", 50), call("look", "r2", 50), call("change", "e")]
    results = await ToolScheduler(registry, config, confirm=confirm).schedule(batch)
    assert [r.status for r in results] == ["success"] * 3
    assert seen_when_asked == [{"r1", "r2"}]


async def test_errors_become_responses(registry: ToolRegistry, config: Config) -> None:
    batch = [
        ToolCallRequest("nope", {}, "a"),
        ToolCallRequest("look", {"ms": 1}, "b"),
        call("look", "boom", 0),
        call("look", "fine", 0),
    ]
    results = await ToolScheduler(registry, config).schedule(batch)
    assert [r.status for r in results] == ["error", "error", "error", "success"]
    assert results[0].error_type is ToolErrorType.TOOL_NOT_REGISTERED
    assert results[1].response_text == "params must have required property 'name'"
    assert results[2].error_type is ToolErrorType.UNHANDLED_EXCEPTION
    assert results[2].response_text == "exploded"


async def test_duplicate_call_ids_run_once(registry: ToolRegistry, config: Config) -> None:
    results = await ToolScheduler(registry, config).schedule([call("look", "x"), call("look", "x")])
    assert len(results) == 1


async def test_cancel_mid_execution_answers_every_call(
    registry: ToolRegistry, config: Config
) -> None:
    controller = AbortController()
    asyncio.get_running_loop().call_later(0.1, controller.abort)
    batch = [call("change", "slow", 5000), call("look", "later", 0)]
    started = time.monotonic()
    results = await ToolScheduler(registry, config).schedule(batch, controller.signal)
    assert time.monotonic() - started < 3
    assert [r.status for r in results] == ["cancelled", "cancelled"]
    assert results[0].response_text.startswith(
        "[Operation Cancelled] Reason: The tool had already completed"
    )
    assert (
        results[1].response_text
        == "[Operation Cancelled] Reason: Tool call cancelled before execution."
    )


async def test_cancel_while_awaiting_approval(registry: ToolRegistry, tmp_path: Path) -> None:
    config = Config(tmp_path)
    controller = AbortController()

    async def never_answers(
        request: ToolCallRequest, details: ToolCallConfirmationDetails
    ) -> tuple[ToolConfirmationOutcome, ToolConfirmationPayload | None]:
        await asyncio.sleep(3600)
        raise AssertionError("unreachable")

    asyncio.get_running_loop().call_later(0.1, controller.abort)
    results = await ToolScheduler(registry, config, confirm=never_answers).schedule(
        [call("change", "e"), call("look", "r")], controller.signal
    )
    assert results[0].response_text == "[Operation Cancelled] Reason: Tool call cancelled by user."
    assert results[1].status == "cancelled"


async def test_user_cancel_and_approval_modes(registry: ToolRegistry, tmp_path: Path) -> None:
    config = Config(tmp_path)

    async def deny(
        request: ToolCallRequest, details: ToolCallConfirmationDetails
    ) -> tuple[ToolConfirmationOutcome, ToolConfirmationPayload | None]:
        return ToolConfirmationOutcome.CANCEL, None

    scheduler = ToolScheduler(registry, config, confirm=deny)
    denied = await scheduler.schedule([call("change", "e"), call("look", "r")])
    assert denied[0].response_text == "[Operation Cancelled] Reason: User did not allow tool call"
    assert denied[1].status == "success"
    config.approval_mode = ApprovalMode.PLAN
    planned = await scheduler.schedule([call("change", "e2")])
    assert planned[0].error_type is ToolErrorType.EXECUTION_DENIED
    config.approval_mode = ApprovalMode.AUTO_EDIT
    assert (await scheduler.schedule([call("change", "e3")]))[0].status == "success"
    no_user = ToolScheduler(registry, Config(tmp_path))
    assert (await no_user.schedule([call("change", "e4")]))[
        0
    ].error_type is ToolErrorType.EXECUTION_DENIED


async def test_events_follow_the_lifecycle(registry: ToolRegistry, tmp_path: Path) -> None:
    config = Config(tmp_path)
    events: list[ToolCallEvent] = []

    async def approve(
        request: ToolCallRequest, details: ToolCallConfirmationDetails
    ) -> tuple[ToolConfirmationOutcome, ToolConfirmationPayload | None]:
        return ToolConfirmationOutcome.PROCEED_ONCE, None

    scheduler = ToolScheduler(registry, config, confirm=approve)
    unsubscribe = scheduler.subscribe(events.append)
    await scheduler.schedule([call("change", "e", 10)])
    statuses = [e.status for e in events if e.output is None]
    assert statuses == [
        ToolCallStatus.VALIDATING,
        ToolCallStatus.AWAITING_APPROVAL,
        ToolCallStatus.SCHEDULED,
        ToolCallStatus.EXECUTING,
        ToolCallStatus.SUCCESS,
    ]
    assert [e.output for e in events if e.output is not None] == ["working on e"]
    assert events[1].confirmation is not None
    assert events[-1].completed is not None and events[-1].completed.duration_ms >= 0
    unsubscribe()
    await scheduler.schedule([call("change", "e2")])
    assert len(events) == 6


async def test_completion_hook_sees_every_call(registry: ToolRegistry, config: Config) -> None:
    finished: list[str] = []
    scheduler = ToolScheduler(
        registry, config, on_complete=lambda c: finished.append(c.request.call_id)
    )
    await scheduler.schedule(
        [call("look", "a"), ToolCallRequest("missing", {}, "b"), call("change", "c")]
    )
    assert finished == ["b", "id-a", "id-c"]


class BigTool(BaseDeclarativeTool[dict[str, Any]]):
    """Returns about 1 MB of text."""

    def __init__(self) -> None:
        super().__init__(
            "big", "Big", "Prints a lot.", Kind.READ, {"type": "object", "properties": {}}
        )

    def create_invocation(self, params: dict[str, Any]) -> ToolInvocation[dict[str, Any]]:
        tool = self

        class Big(BaseToolInvocation[dict[str, Any]]):
            def get_description(self) -> str:
                return tool.name

            async def execute(
                self, signal: AbortSignal, update_output: UpdateOutput | None = None
            ) -> ToolResult:
                return ToolResult(llm_content="".join(f"line {i:07d}\n" for i in range(80_000)))

        return Big(params)


async def test_a_1mb_output_is_truncated_and_saved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QWEN_RUNTIME_DIR", str(tmp_path / "runtime"))
    (tmp_path / "ws").mkdir()
    config = Config(tmp_path / "ws", approval_mode=ApprovalMode.YOLO)
    (done,) = await ToolScheduler(ToolRegistry([BigTool()]), config).schedule(
        [ToolCallRequest("big", {}, "c1")]
    )
    text = done.response_text
    assert len(text) < 40_000
    assert text.startswith("<persisted-output>\nOutput too large (1016 KB). Full output saved to: ")
    saved = Path(text.splitlines()[1].rsplit(": ", 1)[1])
    assert saved.is_file() and saved.stat().st_mode & 0o777 == 0o600
    assert saved.read_text() == "".join(f"line {i:07d}\n" for i in range(80_000))
    assert str(config.get_project_temp_dir()) in str(saved)
