"""``Session``: the library's one entry point, assembled once and closed once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qwen_tools import (
    ApprovalMode,
    Session,
    ToolCallEvent,
    ToolCallRequest,
    ToolConfirmationOutcome,
    ToolContext,
    tool,
)


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / ".qwen").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("QWEN_HOME", str(home / ".qwen"))
    monkeypatch.setenv("QWEN_CODE_SYSTEM_SETTINGS_PATH", str(tmp_path / "system.json"))
    monkeypatch.setenv("QWEN_CODE_SYSTEM_DEFAULTS_PATH", str(tmp_path / "defaults.json"))
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("one\ntwo\n")
    return root


async def test_call_read_then_edit_in_one_session(ws: Path) -> None:
    async with Session(ws, approval_mode="yolo") as session:
        done = await session.call("read_file", {"absolute_path": str(ws / "a.txt")})
        assert done.status == "success" and "one" in done.response_text
        args = {"file_path": str(ws / "a.txt"), "old_string": "two", "new_string": "deux"}
        done = await session.call("edit", args)
        assert done.status == "success", done.response_text
    assert (ws / "a.txt").read_text() == "one\ndeux\n"
    async with Session(ws, approval_mode="yolo") as other:  # a new session has read nothing
        args = {"file_path": str(ws / "a.txt"), "old_string": "one", "new_string": "1"}
        done = await other.call("edit", args)
        assert done.status == "error" and "has not been read" in done.response_text


async def test_batch_with_events_and_declarations(ws: Path) -> None:
    events: list[ToolCallEvent] = []
    async with Session(ws) as session:
        assert "read_file" in {d["function"]["name"] for d in session.declarations("openai")}
        assert "read_file" in {d["name"] for d in session.declarations("anthropic")}
        requests = [
            ToolCallRequest("glob", {"pattern": "*.txt"}, "c1"),
            ToolCallRequest("list_directory", {"path": str(ws)}, "c2"),
        ]
        done = await session.run_batch(requests, on_event=events.append)
        assert [d.status for d in done] == ["success", "success"]
        streamed = [event async for event in session.events(requests)]
    assert {e.request.call_id for e in events if e.completed is not None} == {"c1", "c2"}
    assert {e.request.call_id for e in streamed if e.completed is not None} == {"c1", "c2"}


async def test_approval_mode_and_confirmation_handler(ws: Path) -> None:
    asked: list[str] = []

    async def confirm(request: ToolCallRequest, details: object) -> tuple[object, None]:
        asked.append(request.name)
        return ToolConfirmationOutcome.PROCEED_ALWAYS, None

    async with Session(ws, confirm=confirm) as session:  # type: ignore[arg-type]
        assert session.approval_mode is ApprovalMode.DEFAULT
        args = {"file_path": str(ws / "new.txt"), "content": "x"}
        assert (await session.call("write_file", args)).status == "success"
        args = {"file_path": str(ws / "new2.txt"), "content": "y"}
        assert (await session.call("write_file", args)).status == "success"
        assert asked == ["write_file"]  # "always" answered once, for the session
        session.approval_mode = "plan"
        assert session.approval_mode is ApprovalMode.PLAN


async def test_tool_receives_the_session_context(ws: Path) -> None:
    @tool
    def where(ctx: ToolContext, suffix: str) -> str:
        """Name the workspace.

        Args:
            suffix: appended to the answer.
        """
        return json.dumps([str(ctx.target_dir), ctx.session_id, suffix])

    assert "ctx" not in where.schema.parameters_json_schema["properties"]
    async with Session(ws, tools=[where]) as session:
        declared = {d["name"]: d for d in session.declarations("anthropic")}["where"]
        assert set(declared["input_schema"]["properties"]) == {"suffix"}
        done = await session.call("where", {"suffix": "!"})
        assert json.loads(done.response_text) == [str(ws.resolve()), session.config.session_id, "!"]
    assert where.context is None  # the session bound a copy, not the shared tool


async def test_context_tool_outside_a_session_fails_clearly(ws: Path) -> None:
    from qwen_tools import Config, ToolRegistry
    from qwen_tools.execution.scheduler import ToolScheduler

    @tool
    def needs(ctx: ToolContext) -> str:
        return "never"

    config = Config(ws)
    scheduler = ToolScheduler(ToolRegistry([needs]), config)
    (done,) = await scheduler.schedule([ToolCallRequest("needs", {}, "c1")])
    assert done.status == "error" and "needs a session context" in done.response_text


async def test_close_stops_background_shells(ws: Path) -> None:
    async with Session(ws, approval_mode="yolo") as session:
        args = {"command": "sleep 60", "is_background": True}
        done = await session.call("run_shell_command", args)
        assert done.status == "success", done.response_text
        shells = session.state.background_shells
        assert [e.status for e in shells.list()] == ["running"]
    assert [e.status for e in shells.list()] != ["running"]


def test_registry_needs_an_open_session(ws: Path) -> None:
    session = Session(ws)
    with pytest.raises(RuntimeError, match="not open"):
        _ = session.registry
    session.close_sync()
