"""``exit_plan_mode`` and ``enter_plan_mode`` through the real pipeline and scheduler."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Literal

import pytest

from qwen_tools import (
    AbortSignal,
    ApprovalMode,
    BaseDeclarativeTool,
    BaseToolInvocation,
    Config,
    EditConfirmationDetails,
    Kind,
    PlanSummaryDisplay,
    ToolCallConfirmationDetails,
    ToolCallRequest,
    ToolConfirmationOutcome,
    ToolConfirmationPayload,
    ToolErrorType,
    ToolInvocation,
    ToolRegistry,
    ToolResult,
    ToolSettings,
    UpdateOutput,
    run_tool_call,
)
from qwen_tools.config.settings import LoadedSettings, load_settings
from qwen_tools.execution.call_types import CompletedToolCall
from qwen_tools.execution.scheduler import ToolScheduler
from qwen_tools.tools.enter_plan_mode import PLAN_MODE_REMINDER, EnterPlanModeTool
from qwen_tools.tools.exit_plan_mode import ExitPlanModeTool, plan_file_path
from qwen_tools.tools.write_file.tool import WriteFileTool

APPROVED = (
    "User approved. You can now start coding. Start with updating your todo list if applicable."
)
PLAN = "# Plan\n\n1. Add `hello.txt`\n2. Test it\n"
Outcome = ToolConfirmationOutcome


class User:
    """Answers confirmations from a script (per confirmation type) and records them."""

    def __init__(self, plan: Outcome = Outcome.PROCEED_ONCE, other: Outcome = Outcome.PROCEED_ONCE):
        self.answers = {"plan": plan}
        self.other = other
        self.shown: list[ToolCallConfirmationDetails] = []

    async def __call__(
        self, request: ToolCallRequest, details: ToolCallConfirmationDetails
    ) -> tuple[Outcome, ToolConfirmationPayload | None]:
        self.shown.append(details)
        return self.answers.get(details.type, self.other), None


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return Path(os.path.realpath(tmp_path)) / "qwen-home"


def make_config(
    ws: Path,
    home: Path,
    mode: ApprovalMode,
    *,
    settings: ToolSettings | None = None,
    loaded_settings: LoadedSettings | None = None,
) -> Config:
    return Config(
        ws,
        home_dir=home,
        approval_mode=mode,
        session_id="s-1",
        settings=settings,
        loaded_settings=loaded_settings,
    )


class NoteInvocation(BaseToolInvocation[dict[str, Any]]):
    """Asks for an edit confirmation without yielding to the event loop first."""

    def __init__(self, params: dict[str, Any], notes: list[str]) -> None:
        super().__init__(params)
        self.notes = notes

    def get_description(self) -> str:
        return "note"

    async def should_confirm_execute(
        self, signal: AbortSignal
    ) -> ToolCallConfirmationDetails | Literal[False]:
        return EditConfirmationDetails(
            title="Confirm note",
            file_name="n",
            file_path="/n",
            file_diff="",
            original_content="",
            new_content=self.params["text"],
        )

    async def execute(
        self, signal: AbortSignal, update_output: UpdateOutput | None = None
    ) -> ToolResult:
        self.notes.append(self.params["text"])
        return ToolResult(llm_content="noted")


class NoteTool(BaseDeclarativeTool[dict[str, Any]]):
    """An edit-kind tool that records its calls in memory."""

    def __init__(self) -> None:
        schema = {"type": "object", "properties": {"text": {"type": "string"}}}
        super().__init__("note", "Note", "Take a note.", Kind.EDIT, schema)
        self.notes: list[str] = []

    def create_invocation(self, params: dict[str, Any]) -> ToolInvocation[dict[str, Any]]:
        return NoteInvocation(params, self.notes)


def registry(
    config: Config, *, interactive: bool = True, note: NoteTool | None = None
) -> ToolRegistry:
    return ToolRegistry(
        [
            ExitPlanModeTool(config),
            EnterPlanModeTool(config, interactive=interactive),
            WriteFileTool(config),
            note or NoteTool(),
        ]
    )


async def call(
    config: Config, name: str, args: object, user: User | None = None
) -> CompletedToolCall:
    return await run_tool_call(registry(config), config, ToolCallRequest(name, args), confirm=user)


# -- exit_plan_mode -------------------------------------------------------------------------


async def test_proceed_once_approves_and_switches_to_default(ws: Path, home: Path) -> None:
    config = make_config(ws, home, ApprovalMode.PLAN)
    user = User(Outcome.PROCEED_ONCE)
    done = await call(config, "exit_plan_mode", {"plan": PLAN}, user)
    assert done.status == "success"
    assert done.response_text == APPROVED
    assert done.display == PlanSummaryDisplay(message="User approved.", plan=PLAN)
    assert config.approval_mode is ApprovalMode.DEFAULT
    (details,) = user.shown
    assert details.type == "plan"
    assert details.to_dict() == {
        "type": "plan",
        "title": "Would you like to proceed?",
        "plan": PLAN,
    }
    assert (home / "plans" / "s-1.md").read_text() == PLAN


async def test_proceed_always_switches_to_auto_edit(ws: Path, home: Path) -> None:
    config = make_config(ws, home, ApprovalMode.PLAN)
    done = await call(config, "exit_plan_mode", {"plan": PLAN}, User(Outcome.PROCEED_ALWAYS))
    assert done.response_text == APPROVED
    assert config.approval_mode is ApprovalMode.AUTO_EDIT
    assert config.session.always_allowed_tools == set()


async def test_cancel_stays_in_plan_mode(ws: Path, home: Path) -> None:
    config = make_config(ws, home, ApprovalMode.PLAN)
    done = await call(config, "exit_plan_mode", {"plan": PLAN}, User(Outcome.CANCEL))
    assert done.status == "cancelled"
    assert done.response_text == "[Operation Cancelled] Reason: User did not allow tool call"
    assert config.approval_mode is ApprovalMode.PLAN
    assert not (home / "plans").exists()


async def test_an_answer_that_picks_no_mode_approves_nothing(ws: Path, home: Path) -> None:
    config = make_config(ws, home, ApprovalMode.PLAN)
    done = await call(config, "exit_plan_mode", {"plan": PLAN}, User(Outcome.PROCEED_ALWAYS_TOOL))
    assert done.status == "success"
    assert done.response_text == "Plan execution was not approved. Remaining in plan mode."
    assert config.approval_mode is ApprovalMode.PLAN


async def test_mode_changed_while_asking_makes_the_approval_stale(ws: Path, home: Path) -> None:
    config = make_config(ws, home, ApprovalMode.PLAN)

    async def switch_then_approve(
        request: ToolCallRequest, details: ToolCallConfirmationDetails
    ) -> tuple[Outcome, ToolConfirmationPayload | None]:
        config.approval_mode = ApprovalMode.YOLO  # the user switched modes meanwhile
        return Outcome.PROCEED_ONCE, None

    done = await run_tool_call(
        registry(config),
        config,
        ToolCallRequest("exit_plan_mode", {"plan": PLAN}),
        confirm=switch_then_approve,
    )
    assert done.response_text == (
        "Plan approval is stale because the approval mode changed. No action was taken."
    )
    assert config.approval_mode is ApprovalMode.YOLO


@pytest.mark.parametrize("mode", [ApprovalMode.DEFAULT, ApprovalMode.AUTO_EDIT, ApprovalMode.YOLO])
async def test_outside_plan_mode_is_an_error(ws: Path, home: Path, mode: ApprovalMode) -> None:
    config = make_config(ws, home, mode)
    user = User()
    done = await call(config, "exit_plan_mode", {"plan": PLAN, "extra": 1}, user)
    assert done.status == "error"
    assert done.error_type is ToolErrorType.EXECUTION_DENIED
    assert done.response_text == (
        f"You are not in plan mode (current mode: {mode.value}). The user may have manually "
        "switched modes via Shift+Tab or /approval-mode. Do not call exit_plan_mode again. "
        "Continue working in the current mode."
    )
    assert user.shown == [] and config.approval_mode is mode


@pytest.mark.parametrize("args", [{"plan": " \n "}, {}, {"plan": 3}])
async def test_empty_plan_is_refused(ws: Path, home: Path, args: object) -> None:
    config = make_config(ws, home, ApprovalMode.PLAN)
    done = await call(config, "exit_plan_mode", args, User())
    assert done.error_type is ToolErrorType.INVALID_TOOL_PARAMS
    assert done.response_text == 'Parameter "plan" must be a non-empty string.'


async def test_nobody_to_ask_means_refused(ws: Path, home: Path) -> None:
    config = make_config(ws, home, ApprovalMode.PLAN)
    done = await call(config, "exit_plan_mode", {"plan": PLAN}, None)
    assert done.status == "error" and done.error_type is ToolErrorType.EXECUTION_DENIED
    assert config.approval_mode is ApprovalMode.PLAN


async def test_plans_are_never_pre_approved(ws: Path, home: Path) -> None:
    settings = ToolSettings(allowed=("exit_plan_mode",))
    config = make_config(ws, home, ApprovalMode.PLAN, settings=settings)
    first = User(Outcome.PROCEED_ALWAYS)
    await call(config, "exit_plan_mode", {"plan": PLAN}, first)
    await call(config, "enter_plan_mode", {}, User())
    second = User(Outcome.PROCEED_ONCE)
    done = await call(config, "exit_plan_mode", {"plan": "again"}, second)
    assert len(first.shown) == 1 and len(second.shown) == 1
    assert done.response_text == APPROVED
    assert config.approval_mode is ApprovalMode.DEFAULT


async def test_later_calls_of_the_same_batch_see_the_new_mode(ws: Path, home: Path) -> None:
    config = make_config(ws, home, ApprovalMode.PLAN)
    user = User(Outcome.PROCEED_ONCE, other=Outcome.PROCEED_ONCE)
    target = ws / "hello.txt"
    note = NoteTool()
    batch = [
        ToolCallRequest("exit_plan_mode", {"plan": PLAN}, "c1"),
        ToolCallRequest("note", {"text": "first"}, "c2"),
        ToolCallRequest("write_file", {"file_path": str(target), "content": "hi\n"}, "c3"),
    ]
    scheduler = ToolScheduler(registry(config, note=note), config, confirm=user, telemetry=None)
    results = await scheduler.schedule(batch)
    assert [r.status for r in results] == ["success", "success", "success"]
    assert [d.type for d in user.shown] == ["plan", "edit", "edit"]  # default mode asks
    assert note.notes == ["first"]
    assert target.read_text() == "hi\n"


async def test_auto_edit_after_the_plan_lets_the_batch_edit_unasked(ws: Path, home: Path) -> None:
    config = make_config(ws, home, ApprovalMode.PLAN)
    user = User(Outcome.PROCEED_ALWAYS, other=Outcome.CANCEL)
    target = ws / "hello.txt"
    batch = [
        ToolCallRequest("exit_plan_mode", {"plan": PLAN}, "c1"),
        ToolCallRequest("write_file", {"file_path": str(target), "content": "hi\n"}, "c2"),
    ]
    results = await ToolScheduler(registry(config), config, confirm=user, telemetry=None).schedule(
        batch
    )
    assert [r.status for r in results] == ["success", "success"]
    assert [d.type for d in user.shown] == ["plan"]
    assert target.read_text() == "hi\n"


async def test_rejected_plan_keeps_blocking_the_batch(ws: Path, home: Path) -> None:
    config = make_config(ws, home, ApprovalMode.PLAN)
    user = User(Outcome.CANCEL)
    target = ws / "hello.txt"
    batch = [
        ToolCallRequest("exit_plan_mode", {"plan": PLAN}, "c1"),
        ToolCallRequest("write_file", {"file_path": str(target), "content": "hi\n"}, "c2"),
    ]
    results = await ToolScheduler(registry(config), config, confirm=user, telemetry=None).schedule(
        batch
    )
    assert [r.status for r in results] == ["cancelled", "error"]
    assert results[1].response_text.startswith('Tool blocked by plan mode: "write_file"')
    assert not target.exists()


def _settings_config(tmp_path: Path, ws: Path, home: Path, plans: str) -> Config:
    (ws / ".qwen").mkdir()
    (ws / ".qwen" / "settings.json").write_text(json.dumps({"plansDirectory": plans}))
    env = {
        "HOME": str(tmp_path),
        "QWEN_CODE_SYSTEM_SETTINGS_PATH": str(tmp_path / "system.json"),
        "QWEN_CODE_SYSTEM_DEFAULTS_PATH": str(tmp_path / "defaults.json"),
        "QWEN_CODE_TRUSTED_FOLDERS_PATH": str(tmp_path / "trusted.json"),
    }
    loaded = load_settings(ws, qwen_home_dir=home, env=env)
    return make_config(ws, home, ApprovalMode.PLAN, loaded_settings=loaded)


async def test_plans_directory_setting(tmp_path: Path, ws: Path, home: Path) -> None:
    config = _settings_config(tmp_path, ws, home, "docs/plans")
    done = await call(config, "exit_plan_mode", {"plan": PLAN}, User())
    assert done.response_text == APPROVED
    assert (ws / "docs" / "plans" / "s-1.md").read_text() == PLAN


async def test_plans_directory_outside_the_project_is_not_used(
    tmp_path: Path, ws: Path, home: Path
) -> None:
    config = _settings_config(tmp_path, ws, home, "../elsewhere")
    assert plan_file_path(config) is None
    done = await call(config, "exit_plan_mode", {"plan": PLAN}, User())
    assert done.response_text == APPROVED  # saving is best effort
    assert not (tmp_path / "elsewhere").exists()


def test_session_ids_become_safe_file_names(ws: Path, home: Path) -> None:
    config = Config(ws, home_dir=home, session_id="../..hidden:id")
    assert plan_file_path(config) == str(home / "plans" / "_hidden_id.md")


# -- enter_plan_mode ------------------------------------------------------------------------


async def test_enter_plan_mode_switches_and_returns_the_reminder(ws: Path, home: Path) -> None:
    config = make_config(ws, home, ApprovalMode.DEFAULT)
    done = await call(config, "enter_plan_mode", {})
    assert done.status == "success"
    assert done.response_text == PLAN_MODE_REMINDER
    assert done.display == "Entered plan mode."
    assert config.approval_mode is ApprovalMode.PLAN
    assert PLAN_MODE_REMINDER.startswith("<system-reminder>\nPlan mode is active. ")
    assert "Present your plan by calling the exit_plan_mode tool" in PLAN_MODE_REMINDER
    blocked = await call(
        config, "write_file", {"file_path": str(ws / "x.txt"), "content": "x"}, User()
    )
    assert blocked.status == "error" and blocked.error_type is ToolErrorType.EXECUTION_DENIED


async def test_yolo_needs_a_user_request(ws: Path, home: Path) -> None:
    config = make_config(ws, home, ApprovalMode.YOLO)
    done = await call(config, "enter_plan_mode", {"userRequested": False})
    assert done.response_text.startswith(
        "Plan mode was not entered: the session is in YOLO mode, which the user explicitly "
        "chose for low-friction execution."
    )
    assert done.display == "Stayed in YOLO mode (plan mode not entered)."
    assert config.approval_mode is ApprovalMode.YOLO
    done = await call(config, "enter_plan_mode", {"userRequested": True})
    assert done.response_text == PLAN_MODE_REMINDER
    assert config.approval_mode is ApprovalMode.PLAN


async def test_non_interactive_sessions_cannot_enter(ws: Path, home: Path) -> None:
    config = make_config(ws, home, ApprovalMode.DEFAULT)
    done = await run_tool_call(
        registry(config, interactive=False), config, ToolCallRequest("enter_plan_mode", {})
    )
    assert done.response_text == (
        "Cannot enter plan mode in non-interactive mode without ACP support. The gate exit "
        "paths require user interaction."
    )
    assert config.approval_mode is ApprovalMode.DEFAULT


async def test_enter_plan_mode_validates_its_schema(ws: Path, home: Path) -> None:
    config = make_config(ws, home, ApprovalMode.DEFAULT)
    done = await call(config, "enter_plan_mode", {"mode": "plan"})
    assert done.error_type is ToolErrorType.INVALID_TOOL_PARAMS
    assert done.response_text == "params must NOT have additional properties"
    assert config.approval_mode is ApprovalMode.DEFAULT
