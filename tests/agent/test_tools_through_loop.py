"""The model-backed tools end to end: the real loop, client, fake model server and local web server.

``task`` runs a real nested loop, ``web_fetch`` makes its second model call through the session's
client, ``save_memory`` reaches the next session's system prompt and ``exit_plan_mode`` changes
the mode the following calls run under.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from qwen_tools import (
    ApprovalMode,
    Config,
    ToolCallConfirmationDetails,
    ToolCallRequest,
    ToolConfirmationOutcome,
    build_registry,
)
from qwen_tools.agent.events import StopReason
from qwen_tools.agent.session import AgentSession
from qwen_tools.config.tool_settings import ToolSettings
from qwen_tools.config.web_settings import WebFetchSettings, WebSettings
from support.fake_openai import FakeOpenAI, Reply, call
from support.web_server import LocalServer, Reply as WebReply, local_server

from .conftest import FAST, model_for

PAGE = (
    "<html><head><title>Doc</title><script>evil()</script></head>"
    "<body><h1>Release notes</h1><p>Version <b>2.0</b> adds streaming.</p></body></html>"
)


@pytest.fixture
def web() -> Iterator[LocalServer]:
    with local_server() as server:
        yield server


def tool_texts(request: dict[str, Any]) -> list[str]:
    """The text of every ``tool`` message in one recorded model request."""
    texts: list[str] = []
    for message in request["messages"]:
        if message["role"] == "tool":
            content = message["content"]
            texts.append(content if isinstance(content, str) else content[0]["text"])
    return texts


def session(server: FakeOpenAI, config: Config, **options: Any) -> AgentSession:
    return AgentSession(config, build_registry(config), model_for(server), policy=FAST, **options)


async def test_task_runs_a_real_subagent(server: FakeOpenAI, config: Config, ws: Path) -> None:
    server.script = [
        Reply(
            tool_calls=[
                call(
                    "task",
                    {
                        "description": "Count lines",
                        "prompt": "How many lines has notes.txt?",
                        "subagent_type": "general-purpose",
                    },
                    "t1",
                )
            ]
        ),
        # the subagent's own turns
        Reply(tool_calls=[call("read_file", {"file_path": f"{ws}/notes.txt"}, "s1")]),
        Reply(content="notes.txt has 3 lines."),
        # back in the parent
        Reply(content="The file has three lines."),
    ]
    async with session(server, config) as agent:
        finished = await agent.new_loop().send("Ask a subagent")
    assert (finished.reason, finished.text) == (StopReason.GOAL, "The file has three lines.")
    parent_first, sub_first, sub_second, parent_second = server.requests
    offered = {t["function"]["name"] for t in sub_first["tools"]}
    assert "read_file" in offered and "task" not in offered
    assert sub_first["messages"][1]["content"][-1]["text"] == "How many lines has notes.txt?"
    assert "alpha" in tool_texts(sub_second)[0]
    (report,) = tool_texts(parent_second)
    assert "notes.txt has 3 lines." in report
    assert "task" in {t["function"]["name"] for t in parent_first["tools"]}


async def test_web_fetch_asks_the_session_model(
    server: FakeOpenAI, ws: Path, tmp_path: Path, web: LocalServer
) -> None:
    web.routes["/notes"] = WebReply(200, PAGE, {"Content-Type": "text/html; charset=utf-8"})
    web.routes["/hop"] = WebReply(302, b"", {"Location": "http://10.1.2.3/admin"})
    allow_loopback = WebFetchSettings(allowed_networks=("127.0.0.1/32",))
    config = Config(
        ws,
        settings=ToolSettings(web=WebSettings(fetch=allow_loopback)),
        approval_mode=ApprovalMode.YOLO,
        home_dir=tmp_path / "home",
    )
    server.script = [
        Reply(
            tool_calls=[
                call("web_fetch", {"url": web.url("/notes"), "prompt": "What is new?"}, "w1"),
            ]
        ),
        Reply(content="Version 2.0 adds streaming."),  # web_fetch's own model call
        Reply(tool_calls=[call("web_fetch", {"url": web.url("/hop"), "prompt": "Any?"}, "w2")]),
        Reply(content="Summary: streaming arrived in 2.0."),
    ]
    async with session(server, config) as agent:
        finished = await agent.new_loop().send("Read the release notes")
    assert finished.text == "Summary: streaming arrived in 2.0."
    _, processing, after_fetch, after_hop = server.requests
    assert "tools" not in processing
    sent = json.dumps(processing["messages"])
    assert "Release notes" in sent and "What is new?" in sent and "evil()" not in sent
    (fetched,) = tool_texts(after_fetch)
    assert fetched.startswith(f"URL: {web.url('/notes')}")
    assert "Version 2.0 adds streaming." in fetched
    refused = tool_texts(after_hop)[-1]
    assert "10.1.2.3" in refused
    assert [r.path for r in web.requests] == ["/notes", "/hop"]


async def test_saved_memory_is_in_the_next_sessions_prompt(
    server: FakeOpenAI, config: Config
) -> None:
    fact = "The user's favourite editor is Helix."
    server.script = [
        Reply(tool_calls=[call("save_memory", {"fact": fact, "scope": "global"}, "m1")]),
        Reply(content="Noted."),
        Reply(content="Helix."),
    ]
    async with session(server, config) as agent:
        assert fact not in agent.system_prompt()
        await agent.new_loop().send("Remember my editor")
    memory = (config.home_dir / "QWEN.md").read_text()
    assert "## Qwen Added Memories" in memory and f"- {fact}" in memory
    fresh = Config(config.target_dir, approval_mode=ApprovalMode.YOLO, home_dir=config.home_dir)
    async with session(server, fresh) as agent:
        await agent.new_loop().send("Which editor?")
    assert fact in server.requests[-1]["messages"][0]["content"]


async def test_exit_plan_mode_approval_unblocks_the_edit(
    server: FakeOpenAI, ws: Path, tmp_path: Path
) -> None:
    config = Config(ws, approval_mode=ApprovalMode.PLAN, home_dir=tmp_path / "home")
    asked: list[str] = []

    async def confirm(
        request: ToolCallRequest, details: ToolCallConfirmationDetails
    ) -> tuple[ToolConfirmationOutcome, None]:
        asked.append(details.type)
        return ToolConfirmationOutcome.PROCEED_ALWAYS, None

    target = ws / "plan.txt"
    write = call("write_file", {"file_path": str(target), "content": "done\n"}, "w")
    server.script = [
        Reply(tool_calls=[write]),
        Reply(tool_calls=[call("exit_plan_mode", {"plan": "1. write plan.txt"}, "p")]),
        Reply(tool_calls=[write]),
        Reply(content="Written."),
    ]
    async with session(server, config, confirm=confirm) as agent:
        finished = await agent.new_loop().send("Plan, then write")
    assert finished.text == "Written."
    blocked = tool_texts(server.requests[1])[0]
    assert "plan mode" in blocked.lower()
    assert asked[0] == "plan"
    assert config.approval_mode is ApprovalMode.AUTO_EDIT
    assert target.read_text() == "done\n"
