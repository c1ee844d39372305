"""Batches through the scheduler: ordering, parallel reads, approvals, cancellation, events."""

from __future__ import annotations

import asyncio
import contextlib
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
from qwen_tools.execution.scheduler import ToolCallEvent, ToolCallStatus, ToolScheduler

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "ms": {"type": "integer"},
        "meet": {"type": "string"},
    },
    "required": ["name"],
}


class Journal:
    """Records the order in which calls started and ended, to check overlap and order.

    Only the order of events counts, never a clock: a call with ``meet`` waits until the call
    it names has started, so two calls that meet can only finish if they ran side by side.
    """

    def __init__(self) -> None:
        self.events: list[tuple[str, str]] = []
        self._started: dict[str, asyncio.Event] = {}

    def started(self, name: str) -> asyncio.Event:
        return self._started.setdefault(name, asyncio.Event())

    def record(self, what: str, name: str) -> None:
        self.events.append((what, name))
        if what == "start":
            self.started(name).set()

    @property
    def finished(self) -> set[str]:
        return {name for what, name in self.events if what == "end"}

    def _at(self, what: str, name: str) -> int:
        return self.events.index((what, name))

    def overlap(self, a: str, b: str) -> bool:
        at = self._at
        return at("start", a) < at("end", b) and at("start", b) < at("end", a)

    def before(self, a: str, b: str) -> bool:
        return self._at("end", a) < self._at("start", b)


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
        journal = self.tool.journal
        journal.record("start", self.params["name"])
        if update_output is not None:
            update_output(f"working on {self.params['name']}")
        if self.params.get("meet"):
            # bounded: fails only if the other call never starts while this one runs
            await asyncio.wait_for(journal.started(self.params["meet"]).wait(), 60)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(signal.wait(), self.params.get("ms", 0) / 1000)
        journal.record("end", self.params["name"])
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


def call(tool: str, name: str, ms: int = 0, meet: str | None = None) -> ToolCallRequest:
    params: dict[str, Any] = {"name": name, "ms": ms}
    if meet is not None:
        params["meet"] = meet
    return ToolCallRequest(tool, params, f"id-{name}")


async def test_reads_run_in_parallel_and_edits_in_order(
    registry: ToolRegistry, config: Config, journal: Journal
) -> None:
    batch = [
        call("look", "r1", meet="r2"),
        call("look", "r2", meet="r1"),
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
        # The user takes a while; the reads must finish meanwhile (bounded: fails only if
        # they wait for the answer).
        for _ in range(6000):
            if {"r1", "r2"} <= journal.finished:
                break
            await asyncio.sleep(0.01)
        seen_when_asked.append(journal.finished)
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
    scheduler = ToolScheduler(registry, config)
    # Abort once "slow" runs (its first output), not after some delay.
    scheduler.subscribe(lambda event: controller.abort() if event.output is not None else None)
    batch = [call("change", "slow", 3_600_000), call("look", "later", 0)]
    # Bounded far below slow's hour: fails only if the abort does not end it.
    results = await asyncio.wait_for(scheduler.schedule(batch, controller.signal), 60)
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
        controller.abort()  # the user cancels while the question is shown
        await asyncio.sleep(3600)
        raise AssertionError("unreachable")

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
