"""A resumed chat is redrawn as it was shown, in a real 80×24 pseudo-terminal.

``chat --resume`` and ``/resume N`` print the old conversation before giving the prompt back:
the prompts as typed, a ``!command`` and its output, the answers as Markdown and each tool box
with its status and diff; nothing the model alone was sent (system reminders). A long chat
shows its last part after one line saying how many earlier messages are not shown.
"""

from __future__ import annotations

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
