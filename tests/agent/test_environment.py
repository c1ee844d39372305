"""The ``<system-reminder>`` parts that open a conversation, as Qwen Code 0.24.4 sends them.

0.24.4's first user message is the environment reminder (date, OS, directories, workspace
tree), then the current-date reminder, then the prompt; the system prompt carries neither.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from qwen_tools import ApprovalMode, Config, build_registry
from qwen_tools.agent.environment import (
    environment_context,
    escape_reminder_tags,
    format_date,
    platform_name,
    startup_reminder,
)
from qwen_tools.agent.loop import AgentLoop
from qwen_tools.agent.prompt import base_prompt
from qwen_tools.agent.session import AgentSession
from support.fake_openai import FakeOpenAI, Reply

from .conftest import DATE_REMINDER, FAST, client_for, environment_text, message_texts, model_for


def loop_for(server: FakeOpenAI, config: Config, **options: bool) -> AgentLoop:
    return AgentLoop(
        client=client_for(server),
        registry=build_registry(config),
        config=config,
        system_prompt="SYSTEM",
        **options,
    )


@pytest.mark.parametrize(
    ("day", "text"),
    [
        (dt.date(2026, 11, 22), "Sunday, November 22, 2026"),
        (dt.date(2024, 2, 1), "Thursday, February 1, 2024"),  # node: toLocaleDateString
        (dt.date(2000, 12, 31), "Sunday, December 31, 2000"),
    ],
)
def test_date_format(day: dt.date, text: str) -> None:
    assert format_date(day) == text


# (text, what 0.24.4's escapeSystemReminderTags makes of it), recorded under node
ESCAPES = [
    ("<system-reminder>", "&lt;system-reminder&gt;"),
    ("</system-reminder>", "<\\/system-reminder>"),
    ("< SYSTEM-Reminder >", "&lt; SYSTEM-Reminder &gt;"),
    ("</ system-reminder >", "<\\/system-reminder>"),
    ('<system-reminder foo="1">', "&lt;system-reminder foo=&quot;1&quot;&gt;"),
    ("<system-reminder/>", "&lt;system-reminder/&gt;"),
    ("<system-reminderx>", "<system-reminderx>"),
    ("<b>x</b>", "<b>x</b>"),
    ("a<system-\u200breminder>b", "a&lt;system-\u200breminder&gt;b"),
    ("<<system-reminder>>", "<&lt;system-reminder&gt;>"),
    ("</system-reminder foo>", "<\\/system-reminder>"),
    ("x < y > z", "x < y > z"),
    ("<system-reminder\t/>", "&lt;system-reminder\t/&gt;"),
]


@pytest.mark.parametrize(("text", "escaped"), ESCAPES)
def test_reminder_tags_are_escaped_as_the_reference_does(text: str, escaped: str) -> None:
    assert escape_reminder_tags(text) == escaped


def test_environment_lists_every_workspace_directory(tmp_path: Path) -> None:
    main, extra = tmp_path / "main", tmp_path / "extra"
    main.mkdir()
    extra.mkdir()
    (main / "a.txt").write_text("")
    (extra / "<system-reminder>").write_text("")
    config = Config(main, include_directories=[extra], home_dir=tmp_path / "home")
    text = environment_context(config, today=dt.date(2026, 11, 22))
    assert text == (
        "Session details, collected when this conversation started.\n"
        "Date: Sunday, November 22, 2026.\n"
        f"Operating system: {platform_name()}\n"
        "Working directories:\n"
        f"  - {main}\n"
        f"  - {extra}\n"
        "Files and folders in the workspace (first entries, breadth-first):\n\n"
        f"Showing up to 20 items:\n\n{main}/\n└───a.txt\n"
        f"Showing up to 20 items:\n\n{extra}/\n└───<system-reminder>"
    )
    wrapped = startup_reminder(config, today=dt.date(2026, 11, 22))
    assert wrapped.startswith("<system-reminder>\nSession details")
    assert wrapped.endswith("└───&lt;system-reminder&gt;\n</system-reminder>")


async def test_first_message_structure_and_later_messages(
    server: FakeOpenAI, config: Config, ws: Path
) -> None:
    server.script = [Reply(content="one"), Reply(content="two")]
    loop = loop_for(server, config)
    await loop.send("first")
    (ws / "late.txt").write_text("")  # the tree is not rebuilt within a conversation
    await loop.send([{"type": "text", "text": "second"}])
    await loop.client.aclose()
    first, second = server.requests
    assert first["messages"][0] == {"role": "system", "content": "SYSTEM"}
    assert len(first["messages"]) == 2
    opening = first["messages"][1]
    assert opening["role"] == "user"
    assert all(part["type"] == "text" for part in opening["content"])
    assert message_texts(opening) == [environment_text(ws), DATE_REMINDER, "first"]
    # the same day: the next user message is the prompt alone
    assert second["messages"][1] == opening
    assert second["messages"][3] == {
        "role": "user",
        "content": [{"type": "text", "text": "second"}],
    }


async def test_a_rolled_back_opening_is_sent_again(
    server: FakeOpenAI, config: Config, ws: Path
) -> None:
    server.script = [Reply(content="one"), Reply(content="two")]
    loop = loop_for(server, config)
    await loop.send("first")
    loop.history.truncate(0)
    await loop.send("again")
    await loop.client.aclose()
    texts = message_texts(server.requests[1]["messages"][1])
    assert texts == [environment_text(ws), DATE_REMINDER, "again"]


async def test_reminders_can_be_left_out(server: FakeOpenAI, config: Config, ws: Path) -> None:
    server.script = [Reply(content="a"), Reply(content="b")]
    plain = loop_for(server, config, environment=False, date_reminders=False)
    await plain.send("bare")
    await plain.client.aclose()
    subagent_like = loop_for(server, config, date_reminders=False)
    await subagent_like.send("sub")
    await subagent_like.client.aclose()
    assert message_texts(server.requests[0]["messages"][1]) == ["bare"]
    assert message_texts(server.requests[1]["messages"][1]) == [environment_text(ws), "sub"]


async def test_the_system_prompt_has_no_environment(
    server: FakeOpenAI, ws: Path, tmp_path: Path
) -> None:
    (ws / "QWEN.md").write_text("Use tabs.\n")
    config = Config(ws, approval_mode=ApprovalMode.YOLO, home_dir=tmp_path / "home" / ".qwen")
    async with AgentSession(
        config, build_registry(config), model_for(server), policy=FAST
    ) as session:
        prompt = session.system_prompt()
    assert prompt.startswith(base_prompt() + "\n\n---\n\n--- Context from: QWEN.md ---\n")
    assert str(ws) not in prompt and "Operating system" not in prompt
