"""``todo_write`` through the real pipeline, with the list stored under a temp Qwen home."""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path
from typing import Any

import pytest

from qwen_tools import (
    Config,
    TodoListDisplay,
    ToolCallRequest,
    ToolErrorType,
    ToolRegistry,
    run_tool_call,
)
from qwen_tools.execution.call_types import CompletedToolCall
from qwen_tools.execution.scheduler import ToolScheduler
from qwen_tools.tools.todo_write.tool import TodoWriteTool, read_todos

MODIFIED = (
    "Todos have been modified successfully. Ensure that you continue to use the todo list to "
    "track your progress. Please proceed with the current tasks if applicable\n\n"
    "<system-reminder>\nYour todo list has changed. DO NOT mention this explicitly to the user. "
    "Here are the latest contents of your todo list:\n\n"
)
MODIFIED_END = ". Continue on with the tasks at hand if applicable.\n</system-reminder>"
UNCHANGED = (
    "Todo list is already up to date. No changes were needed.\n\n<system-reminder>\n"
    "Your todo list was not modified because it is already current. Continue with your "
    "existing tasks.\n</system-reminder>"
)
CLEARED = (
    "Todo list has been cleared.\n\n<system-reminder>\nYour todo list is now empty. DO NOT "
    "mention this explicitly to the user. You have no pending tasks in your todo list.\n"
    "</system-reminder>"
)


@pytest.fixture(autouse=True)
def _no_runtime_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("QWEN_RUNTIME_DIR", raising=False)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return Path(os.path.realpath(tmp_path)) / "qwen-home"


@pytest.fixture
def config(ws: Path, home: Path) -> Config:
    return Config(ws, home_dir=home, session_id="sess-1")


def todo(id: str, status: str = "pending", **extra: Any) -> dict[str, Any]:
    return {"id": id, "content": f"task {id}", "status": status, **extra}


async def write(config: Config, args: object) -> CompletedToolCall:
    registry = ToolRegistry([TodoWriteTool(config)])
    return await run_tool_call(registry, config, ToolCallRequest("todo_write", args))


def stored(home: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((home / "todos" / "sess-1.json").read_text())
    return data


async def test_first_write_stores_the_list_and_echoes_it(config: Config, home: Path) -> None:
    todos = [todo("1", "in_progress"), todo("2", blockedBy=["1"]), todo("3")]
    todos[2]["content"] = "é ✓"
    tool = TodoWriteTool(config)
    registry = ToolRegistry([tool])
    invocation = tool.build({"todos": todos})
    assert invocation.get_description() == "Create todos"
    done = await run_tool_call(registry, config, ToolCallRequest("todo_write", {"todos": todos}))
    assert done.status == "success"
    echoed = (
        '[{"id":"1","content":"task 1","status":"in_progress"},'
        '{"id":"2","content":"task 2","status":"pending","blockedBy":["1"]},'
        '{"id":"3","content":"é ✓","status":"pending"}]'
    )
    assert done.response_text == MODIFIED + echoed + MODIFIED_END
    data = stored(home)
    assert list(data) == ["planId", "todos", "sessionId"]
    assert uuid.UUID(data["planId"]).version == 4
    assert data["todos"] == todos and data["sessionId"] == "sess-1"
    assert (home / "todos" / "sess-1.json").read_text().startswith('{\n  "planId": "')
    assert isinstance(done.display, TodoListDisplay)
    shown = done.display.to_dict()
    assert shown["planId"] == data["planId"]
    assert [t["id"] for t in shown["changes"]["created"]] == ["1", "2", "3"]
    assert shown["todos"][1]["blockedBy"] == ["1"]
    assert read_todos(config) == todos
    again = tool.build({"todos": todos})
    assert again.get_description() == "Update todos"


async def test_same_list_twice_is_a_no_op(config: Config, home: Path) -> None:
    todos = [todo("a"), todo("b", "completed")]
    await write(config, {"todos": todos})
    path = home / "todos" / "sess-1.json"
    before = path.read_bytes()
    done = await write(config, {"todos": todos})
    assert done.response_text == UNCHANGED
    assert path.read_bytes() == before
    assert isinstance(done.display, TodoListDisplay) and done.display.unchanged


async def test_progress_keeps_the_plan_and_reports_completions(config: Config, home: Path) -> None:
    await write(config, {"todos": [todo("a", "in_progress"), todo("b")]})
    plan_id = stored(home)["planId"]
    done = await write(config, {"todos": [todo("a", "completed"), todo("b", "in_progress")]})
    assert stored(home)["planId"] == plan_id
    assert isinstance(done.display, TodoListDisplay)
    assert [t.id for t in done.display.completed] == ["a"]
    assert done.display.created == ()


async def test_a_new_list_after_everything_was_done_starts_a_new_plan(
    config: Config, home: Path
) -> None:
    await write(config, {"todos": [todo("a", "completed")]})
    first = stored(home)["planId"]
    await write(config, {"todos": [todo("z")]})
    assert stored(home)["planId"] != first


async def test_empty_list_clears(config: Config, home: Path) -> None:
    await write(config, {"todos": [todo("a")]})
    done = await write(config, {"todos": []})
    assert done.response_text == CLEARED
    assert stored(home) == {"todos": [], "sessionId": "sess-1"}
    assert read_todos(config) == []


async def test_dependencies_are_kept_while_the_plan_is_active(config: Config, home: Path) -> None:
    await write(config, {"todos": [todo("a"), todo("b", blockedBy=["a"]), todo("c")]})
    await write(config, {"todos": [todo("a", "in_progress"), todo("b"), todo("c")]})
    assert stored(home)["todos"][1] == todo("b", blockedBy=["a"])
    await write(config, {"todos": [todo("a"), todo("b", blockedBy=[]), todo("c")]})
    assert stored(home)["todos"][1] == todo("b", blockedBy=[])


async def test_kept_dependencies_that_would_cycle_are_dropped(config: Config, home: Path) -> None:
    await write(config, {"todos": [todo("a"), todo("b", blockedBy=["a"])]})
    done = await write(config, {"todos": [todo("a", blockedBy=["b"]), todo("b")]})
    assert done.status == "success"
    assert stored(home)["todos"] == [todo("a", blockedBy=["b"]), todo("b")]


@pytest.mark.parametrize(
    ("todos", "message"),
    [
        ("nope", 'Parameter "todos" must be an array.'),
        ([1], "Each todo must be an object."),
        ([{"content": "x", "status": "pending"}], 'Each todo must have a non-empty "id" string '
         "of at most 500 characters."),
        ([todo("x" * 501)], 'Each todo must have a non-empty "id" string of at most 500 characters.'),
        ([{"id": "1", "content": "  ", "status": "pending"}], 'Each todo must have a non-empty '
         '"content" string.'),
        ([todo("1", "done")], 'Each todo must have a valid "status" (pending, in_progress, '
         "completed)."),
        ([todo("1", blockedBy="2")], 'Each todo "blockedBy" value must be an array of non-empty '
         "Todo IDs of at most 500 characters."),
        ([todo("1"), todo("1")], "Todo IDs must be unique within the array."),
        ([todo("1", blockedBy=["2", "2"]), todo("2")], 'Todo "1" must not contain duplicate '
         "blockedBy references."),
        ([todo("1", blockedBy=["1"])], 'Todo "1" must not depend on itself.'),
        ([todo("1", blockedBy=["x"])], 'Todo "1" references unknown dependency "x".'),
        ([todo("1", blockedBy=["2"]), todo("2", blockedBy=["1"])],
         "Todo dependencies must not contain a cycle."),
    ],
)  # fmt: skip
async def test_invalid_lists_get_the_reference_messages(
    config: Config, home: Path, todos: object, message: str
) -> None:
    done = await write(config, {"todos": todos})
    assert done.status == "error"
    assert done.error_type is ToolErrorType.INVALID_TOOL_PARAMS
    assert done.response_text == message
    assert not (home / "todos").exists()


async def test_extra_fields_pass_through_as_the_reference_skips_the_schema(
    config: Config, home: Path
) -> None:
    todos = [todo("1", priority="high", activeForm="Doing 1")]
    done = await write(config, {"todos": todos, "note": 1})
    assert done.status == "success"
    assert stored(home)["todos"] == todos
    assert '"priority":"high","activeForm":"Doing 1"' in done.response_text


async def test_an_unreadable_store_is_reported_in_the_text(config: Config, home: Path) -> None:
    (home / "todos").mkdir(parents=True)
    (home / "todos" / "sess-1.json").write_text("{broken")
    done = await write(config, {"todos": [todo("1")]})
    assert done.status == "success"  # not an error result, as in the reference
    assert isinstance(done.response_text, str)
    assert done.response_text.startswith(
        "Failed to modify todos. An error occurred during the operation.\n\n"
        "<system-reminder>\nTodo list modification failed with error: "
    )
    assert isinstance(done.display, str) and done.display.startswith("Error writing todos: ")
    assert (home / "todos" / "sess-1.json").read_text() == "{broken"


async def test_runtime_dir_and_sessions_are_separate(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime = tmp_path / "runtime"
    monkeypatch.setenv("QWEN_RUNTIME_DIR", str(runtime))
    one = Config(ws, home_dir=tmp_path / "home", session_id="one")
    two = Config(ws, home_dir=tmp_path / "home", session_id="two")
    await write(one, {"todos": [todo("x")]})
    assert (runtime / "todos" / "one.json").is_file()
    assert read_todos(one) == [todo("x")] and read_todos(two) == []


async def test_runs_alone_in_a_batch(config: Config) -> None:
    tool = TodoWriteTool(config)
    assert tool.kind.value == "think"
    assert not tool.is_concurrency_safe({"todos": []})
    batch = [
        ToolCallRequest("todo_write", {"todos": [todo("a")]}, "c1"),
        ToolCallRequest("todo_write", {"todos": [todo("a", "completed")]}, "c2"),
    ]
    results = await ToolScheduler(ToolRegistry([tool]), config, telemetry=None).schedule(batch)
    assert [r.status for r in results] == ["success", "success"]
    assert read_todos(config) == [todo("a", "completed")]
