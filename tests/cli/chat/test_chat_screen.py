"""What ``qwen-tools chat`` shows that Qwen Code 0.24.4 shows too, at 80×24 in a real pty.

Found side by side in tmux (notes: tmux-compare): links with their address, numbered items
``1.``, a long command's title read whole (wrapped), an error's message (not "File not
found."), the refusal labelled "(esc)", the pinned "Current tasks" (todo items not done yet)
while a turn runs, the spinner's tokens and "esc to cancel", and what is typed ahead shown (and
editable with Backspace) during the turn.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from support.chat_terminal import user_texts
from support.fake_openai import FakeOpenAI, Reply, call

ANSWER = "See [the guide](https://example.com/guide) first.\n\n1. Read it\n2. Try it"
LONG = "The check ran:\n\n" + "\n".join(f"- step {n}" for n in range(1, 51))
"""Streamed in two halves: the first is taller than the room left above the tasks' box."""
TODOS = [
    {"id": "1", "content": "Read the guide", "status": "completed"},
    {"id": "2", "content": "Change the greeting", "status": "in_progress"},
    {"id": "3", "content": "Run the check", "status": "pending"},
]


def test_a_turn_on_screen_as_in_qwen_code(chat: Any, ws: Path) -> None:
    command = "while [ ! -e go ]; do sleep 0.05; done; echo finished-the-check # waits for go"
    missing = {"file_path": str(ws / "gone.txt")}
    hold = threading.Event()
    script = [
        Reply(content=ANSWER),
        Reply(tool_calls=[call("todo_write", {"todos": TODOS}), call("read_file", missing)]),
        Reply(tool_calls=[call("run_shell_command", {"command": command})]),
        Reply(content=LONG, hold=hold),
    ]
    with FakeOpenAI(script) as server:
        term = chat(server, size=(24, 80))
        term.prompt()
        term.send("how do I start?\r")
        term.expect(r"See the guide \(https://example\.com/guide\) first\.")  # the address shown
        term.expect(r" 1\. Read it\s+2\. Try it")
        term.prompt()
        term.send("plan and check\r")
        term.expect(r"x ReadFile gone\.txt")
        term.expect(r"File not found:[\s│]+/")  # the error's message, a path (it may wrap anywhere)
        term.expect(r"\? Shell while \[ ! -e go \]; do sleep 0\.05; done; echo finished-the-check")
        term.expect(r"│\s+(# )?waits for go\s+│")  # the title wraps: its end is not cut off
        term.expect("Allow execution of:")
        term.expect(r"n\. No, suggest changes \(esc\)")
        term.send("1")
        term.expect("Current tasks")  # pinned while the turn runs: the items not done yet
        term.expect(r"2\. ◐ Change the greeting")
        term.expect(r"3\. ○ Run the check")
        term.expect(r"Running… \(\d+s · ↓ 20 tokens · esc to cancel\)")  # two answers, 10 each
        term.send("next stepz\x7fs")  # Backspace edits the text typed ahead
        term.expect(r"> next steps  \(enter to steer · ctrl\+q to queue\)")
        (ws / "go").touch()
        term.expect(r"✓ Shell")
        term.expect(r"• step \d+")  # half of it streamed, then held: cropped to its tail, so
        term.expect(r"Responding… \(")  # the spinner and the typed text still fit on screen
        term.expect(r"> next steps  \(enter to steer · ctrl\+q to queue\)")
        hold.set()
        term.expect(r"step 50")
        term.expect(r"> next steps(?!  \()")  # now in the prompt
        term.send("\r")
        shown = term.expect(r"(?s).*Done\.")[0]
        assert "Current tasks" not in shown  # the next prompt's turn wrote no todos: none pinned
        term.prompt()
        term.send("/quit\r")
        assert term.finish() == 0
    assert "Read the guide" not in term.text.split("Current tasks")[1]  # done: not pinned
    assert user_texts(server.requests[-1])[-1] == "next steps"
