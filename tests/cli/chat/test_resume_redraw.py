"""A resumed chat is redrawn as it was shown, in a real 80×24 pseudo-terminal.

``chat --resume`` and ``/resume N`` print the old conversation before giving the prompt back:
the prompts as typed, a ``!command`` and its output, the answers as Markdown and each tool box
with its status and diff; nothing the model alone was sent (system reminders). A long chat
shows its last part after one line saying how many earlier messages are not shown.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

from support.fake_openai import FakeOpenAI, Reply, call

SIZE = (24, 80)


def _saved_chat(tmp_path: Path) -> Path:
    [saved] = (tmp_path / "home" / ".qwen" / "tmp").glob("*/chats/*.json")
    return saved


def test_chat_resume_redraws_the_conversation(chat: Any, ws: Path) -> None:
    script = [
        Reply(
            content="Writing the notes.",
            tool_calls=[
                call(
                    "write_file", {"file_path": str(ws / "notes.md"), "content": "apples\npears\n"}
                )
            ],
        ),
        Reply(content="Wrote **two** notes:\n\n- apples\n- pears"),
        Reply(content="Still here."),
    ]
    with FakeOpenAI(script) as server:
        first = chat(server, "--approval-mode", "yolo", size=SIZE)
        first.prompt()
        first.send("!echo shell-$((6*7))\r")
        first.expect("shell-42")  # the output (not the echo of what was typed)
        first.prompt()
        first.send("write the notes\r")
        first.expect("pears")
        first.prompt()
        first.send("/quit\r")
        assert first.finish() == 0

        second = chat(server, "--resume", size=SIZE)
        redrawn = second.expect(r"(?s)Enter sends.*?Resumed chat \S+ \(4 messages\)")[0]
        second.prompt()
        second.send("still there?\r")
        second.expect("Still here.")
        second.prompt()
        second.send("/quit\r")
        assert second.finish() == 0
    shown = [
        "! echo shell-$((6*7))",
        "shell-42",
        "> write the notes",
        "✦ Writing the notes.",
        "✓ WriteFile",
        "notes.md",
        "1 +apples",
        "2 +pears",
        "✦ Wrote two notes:",
        "• apples",
        "• pears",
    ]
    positions = [redrawn.find(text) for text in shown]
    assert -1 not in positions and positions == sorted(positions), redrawn
    assert "system-reminder" not in redrawn and "I ran the following" not in redrawn
    assert all(len(line) <= SIZE[1] for line in redrawn.splitlines())
    assert len(server.requests) == 3  # the resumed chat went on with its history
    assert "write the notes" in json.dumps(server.requests[2]["messages"])


def test_resume_of_a_long_chat_shows_its_last_part(chat: Any, tmp_path: Path) -> None:
    with FakeOpenAI([Reply(content="answer 0")]) as server:
        first = chat(server, size=SIZE)
        first.prompt()
        first.send("question 0\r")
        first.expect("answer 0")
        first.prompt()
        first.send("/quit\r")
        assert first.finish() == 0
        saved = _saved_chat(tmp_path)
        record = json.loads(saved.read_text())
        record.pop("shown", None)  # as saved before the screen was recorded: prompts known by shape
        for number in range(1, 40):  # the chat grows to 40 prompts and 40 answers
            record["messages"] += [
                {"role": "user", "content": [{"type": "text", "text": f"question {number}"}]},
                {"role": "assistant", "content": f"answer {number}"},
            ]
        saved.write_text(json.dumps(record))

        second = chat(server, size=SIZE)
        second.prompt()
        second.send("/resume 1\r")
        redrawn = second.expect(r"(?s)… (\d+) earlier messages not shown ….*?Resumed chat")
        second.prompt()
        second.send("/quit\r")
        assert second.finish() == 0
    hidden = int(redrawn[1])
    questions = re.findall(r"(?m)^> question (\d+)", redrawn[0])
    answers = re.findall(r"(?m)^✦ answer (\d+)", redrawn[0])
    assert answers[-1] == questions[-1] == "39"
    assert hidden > 0 and hidden + len(questions) + len(answers) == 80
    assert [int(n) for n in answers] == list(range(40 - len(answers), 40))
    assert len(redrawn[0].splitlines()) < 3 * SIZE[0]  # about two screens, not the whole chat


def test_a_compressed_chat_and_its_calls_are_redrawn_from_what_was_saved(tmp_path: Path) -> None:
    from rich.console import Console

    from qwen_tools.agent.compression_texts import ACKNOWLEDGEMENT, summary_text
    from qwen_tools.cli.chat.saved_chats import SavedChat, Shown, display_json
    from qwen_tools.cli.chat.transcript import redraw
    from qwen_tools.contract.display import TodoItem, TodoListDisplay
    from qwen_tools.registry.registry import ToolRegistry

    todos = TodoListDisplay(todos=(TodoItem("1", "write tests", "completed"),))
    todo_call = {"id": "c1", "type": "function", "function": {"name": "todo_write"}}
    shell_call = {"id": "c2", "type": "function", "function": {"name": "run_shell_command"}}
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": [{"type": "text", "text": summary_text("<state/>")}]},
        {"role": "assistant", "content": ACKNOWLEDGEMENT},
        {"role": "user", "content": [{"type": "text", "text": "go on"}]},
        {"role": "assistant", "content": None, "tool_calls": [todo_call, shell_call]},
        {"role": "tool", "tool_call_id": "c1", "content": "Todos updated."},
        {"role": "tool", "tool_call_id": "c2", "content": "Command failed: exit 3"},
    ]
    shown = Shown(prompts=["go on"])
    shown.calls["c1"] = {"status": "success", "display": display_json(todos)}
    shown.calls["c2"] = {"status": "error", "display": "Command failed: exit 3"}
    saved = SavedChat("id", tmp_path / "id.json", 0.0, messages, shown)
    screen = io.StringIO()
    redraw(Console(file=screen, width=80, height=24, color_system=None), saved, ToolRegistry())
    lines = [line.strip(" │") for line in screen.getvalue().splitlines()]
    assert lines[0] == "✦ Earlier messages were compressed into a summary for the model."
    assert lines[1:4] == ["", "> go on", "╭" + "─" * 78 + "╮"]
    assert lines[4].startswith("✓ todo_write") and lines[5] == "● write tests"
    assert lines[8].startswith("x run_shell_command") and lines[9] == "Command failed: exit 3"
    assert ACKNOWLEDGEMENT not in screen.getvalue()
