"""OpenAI Agents SDK: our tools as ``FunctionTool``s under the SDK's ``ScriptedModel``.

The scripted model makes the calls each test names, one per turn, and ends with a message; what
the tools returned is read from the run's items. Approvals go through the run's interruptions
and ``RunState.approve``/``reject``, as an application would do them.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("agents")

from agents import Agent, Runner
from agents.items import ToolCallOutputItem
from agents.testing import ScriptedModel, assistant_message, function_call

from qwen_tools import InlineDataPart, Session, tool
from qwen_tools.integrations.openai_agents import QwenTools, function_tools

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n fake").decode()


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / ".qwen").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("QWEN_HOME", str(home / ".qwen"))
    monkeypatch.setenv("QWEN_CODE_SYSTEM_SETTINGS_PATH", str(tmp_path / "system.json"))
    monkeypatch.setenv("QWEN_CODE_SYSTEM_DEFAULTS_PATH", str(tmp_path / "defaults.json"))
    monkeypatch.setenv("OPENAI_AGENTS_DISABLE_TRACING", "1")
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("alpha\n")
    return root


def model(*calls: tuple[str, dict[str, Any]]) -> ScriptedModel:
    steps: list[Any] = [
        {"output": [function_call(name, args, call_id=f"c{i}")]}
        for i, (name, args) in enumerate(calls)
    ]
    steps.append({"output": [assistant_message("done")]})
    return ScriptedModel(steps)


def outputs(result: Any) -> list[Any]:
    return [item.output for item in result.new_items if isinstance(item, ToolCallOutputItem)]


async def test_read_and_error_text_with_strict_schemas(ws: Path) -> None:
    async with QwenTools(ws) as qwen:
        tools = {t.name: t for t in qwen.tools}
        read = tools["read_file"]
        assert read.strict_json_schema is True
        assert set(read.params_json_schema["required"]) == set(
            read.params_json_schema["properties"]
        )
        # a strict call sends every property; null stands for "not given"
        args = {"absolute_path": str(ws / "a.txt"), "offset": None, "limit": None}
        missing = {"absolute_path": str(ws / "nope.txt"), "offset": None, "limit": None}
        agent = Agent(name="t", model=model(("read_file", args), ("read_file", missing)))
        agent.tools = qwen.tools
        result = await Runner.run(agent, "read")
    assert result.final_output == "done"
    first, second = outputs(result)
    assert "alpha" in first
    assert "File not found" in second


async def test_approval_interrupts_and_always_carries_over(ws: Path) -> None:
    calls = (
        ("run_shell_command", {"command": "touch one.txt"}),
        ("run_shell_command", {"command": "touch two.txt"}),
    )
    async with Session(ws) as session:
        qwen = QwenTools(session, strict=False)
        agent = Agent(name="t", model=model(*calls), tools=qwen.tools)
        result = await Runner.run(agent, "touch")
        (item,) = result.interruptions
        prompt = qwen.approval_request(item)
        assert prompt is not None and prompt.confirmation["rootCommands"] == ["touch"]
        assert not (ws / "one.txt").exists()
        state = result.to_state()
        state.approve(item, always_approve=True)
        result = await Runner.run(agent, state)
        assert not result.interruptions and result.final_output == "done"
        assert "touch" in session.state.always_allowed_shell_roots  # ours recorded the answer
    assert (ws / "one.txt").exists() and (ws / "two.txt").exists()


async def test_a_rejected_call_does_not_run(ws: Path) -> None:
    args = {"file_path": str(ws / "new.txt"), "content": "x"}
    async with Session(ws) as session:
        qwen = QwenTools(session)
        agent = Agent(name="t", model=model(("write_file", args)), tools=qwen.tools)
        result = await Runner.run(agent, "write")
        (item,) = result.interruptions
        prompt = qwen.approval_request(item)
        assert prompt is not None and prompt.confirmation["type"] == "edit"
        state = result.to_state()
        state.reject(item, rejection_message="not now")
        result = await Runner.run(agent, state)
    assert result.final_output == "done"
    assert outputs(result) == ["not now"]
    assert not (ws / "new.txt").exists()


async def test_once_runs_that_call_only(ws: Path) -> None:
    calls = (
        ("write_file", {"file_path": str(ws / "one.txt"), "content": "1"}),
        ("write_file", {"file_path": str(ws / "two.txt"), "content": "2"}),
    )
    async with Session(ws) as session:
        agent = Agent(name="t", model=model(*calls), tools=function_tools(session, strict=False))
        result = await Runner.run(agent, "write")
        state = result.to_state()
        state.approve(result.interruptions[0])
        result = await Runner.run(agent, state)
        assert (ws / "one.txt").read_text() == "1"
        assert len(result.interruptions) == 1  # the next edit is asked about again
        assert not (ws / "two.txt").exists()


async def test_images_as_sdk_image_output_and_live_output(ws: Path) -> None:
    @tool
    def picture(update_output: Any) -> list[Any]:
        """A picture."""
        update_output("developing")
        return ["caption", InlineDataPart("image/png", PNG)]

    live: list[tuple[str, str, str]] = []

    def on_output(name: str, call_id: str, text: str) -> None:
        live.append((name, call_id, text))

    async with QwenTools(ws, tools=[picture], on_output=on_output) as qwen:
        agent = Agent(name="t", model=model(("picture", {})), tools=qwen.tools)
        result = await Runner.run(agent, "look")
    assert live == [("picture", "c0", "developing")]
    (output,) = outputs(result)
    dumped = json.dumps(output, default=lambda o: o.model_dump())
    assert f"data:image/png;base64,{PNG}" in dumped and "caption" in dumped
