"""``qwen-tools chat`` turns in a real pseudo-terminal: streaming, tools, approvals, cancelling.

Against the scripted OpenAI server on 127.0.0.1. The harness types into the terminal like a
person (keys, Enter, Ctrl-C, Ctrl-D) and reads what the program draws; it answers the terminal's cursor-position requests as a terminal
emulator would. Expectations wait for text to appear (the deadline is only a safety net).
"""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path
from typing import Any

import pytest

from support.chat_terminal import user_texts
from support.fake_openai import FakeOpenAI, Reply, call


def test_streamed_text_appears_as_it_arrives_and_quit_exits_0(chat: Any) -> None:
    hold = threading.Event()
    answer = Reply(content="Streaming works: **bold** and `code`.", hold=hold, split=2)
    with FakeOpenAI([answer]) as server:
        term = chat(server)
        term.expect("qwen-tools chat")
        term.prompt()
        term.send("hello there\r")
        term.expect("Streaming works:")  # the first half, while the server holds the rest
        assert "and code" not in term.text
        hold.set()
        term.expect(r"✦ Streaming works: bold and code\.")  # the final Markdown rendering
        term.prompt()
        term.send("/quit\r")
        assert term.finish() == 0
    assert "Bye." in term.text
    assert user_texts(server.requests[0]) == ["hello there"]
    assert server.requests[0]["stream"] is True


def test_tool_calls_confirmation_and_diff(chat: Any, ws: Path) -> None:
    target = ws / "greet.py"
    target.write_text("def greet():\n    return 'hello'\n")
    edit = {"file_path": str(target), "old_string": "'hello'", "new_string": "'hello, world'"}
    script = [
        Reply(content="Reading it.", tool_calls=[call("read_file", {"file_path": str(target)})]),
        Reply(content="Now the edit.", tool_calls=[call("edit", edit)]),
        Reply(content="Changed the greeting."),
    ]
    with FakeOpenAI(script) as server:
        term = chat(server)
        term.prompt()
        term.send("make it greet the world\r")
        term.expect(r"✓ ReadFile greet\.py")
        term.expect(r"\? Edit greet\.py")
        term.expect(r"-\s+return 'hello'")
        term.expect(r"\+\s+return 'hello, world'")
        term.expect("Apply this change?")
        term.expect(r"1\. Yes, allow once")
        term.expect(r"n\. No, suggest changes \(esc\)")
        assert target.read_text() == "def greet():\n    return 'hello'\n"  # still asking
        term.send("1")
        term.expect(r"✓ Edit greet\.py")
        shown = term.expect(r"(?s).*Changed the greeting\.")[0]
        assert re.search(r"2 \+\s+return 'hello, world'", shown)
        assert "\x1b[32m+    return 'hello, world'" in term.raw.decode()  # added lines are green
        term.prompt()
        term.send("\x04")  # Ctrl-D
        assert term.finish() == 0
    assert target.read_text() == "def greet():\n    return 'hello, world'\n"
    tool_messages = [m for m in server.requests[2]["messages"] if m["role"] == "tool"]
    assert len(tool_messages) == 2
    assert "has been updated" in json.dumps(tool_messages[1])


@pytest.mark.parametrize("refusal", ["n", "\x1b"], ids=["n", "esc"])
def test_refusing_an_edit_ends_the_turn(chat: Any, ws: Path, refusal: str) -> None:
    target = ws / "keep.txt"
    target.write_text("original\n")
    edit = {"file_path": str(target), "old_string": "original", "new_string": "changed"}
    script = [
        Reply(tool_calls=[call("read_file", {"file_path": str(target)})]),
        Reply(tool_calls=[call("edit", edit)]),
        Reply(content="Understood."),
    ]
    with FakeOpenAI(script) as server:
        term = chat(server)
        term.prompt()
        term.send("change it\r")
        term.expect("Apply this change?")
        term.send(refusal)
        term.expect(r"- Edit keep\.txt")  # the cancelled glyph
        term.prompt()  # the prompt is back: the model was not asked again
        assert len(server.requests) == 2
        term.send("leave it as it is\r")
        term.expect("Understood.")
        term.prompt()
        term.send("/quit\r")
        assert term.finish() == 0
    assert target.read_text() == "original\n"
    sent = server.requests[2]["messages"]
    refused = [m for m in sent if m["role"] == "tool"][-1]
    assert "User did not allow tool call" in json.dumps(refused)
    assert user_texts(server.requests[2]) == ["change it", "leave it as it is"]


def test_esc_cancels_the_stream_and_never_refuses_a_later_dialog(chat: Any, ws: Path) -> None:
    hold = threading.Event()
    script = [
        Reply(content="Partial answer, then the rest.", hold=hold),
        Reply(tool_calls=[call("run_shell_command", {"command": "touch made.txt"})]),
        Reply(content="Made it."),
    ]
    with FakeOpenAI(script) as server:
        term = chat(server)
        term.prompt()
        term.send("talk slowly\r")
        term.expect("Partial answer")
        term.send("\x1b")  # Esc
        term.expect("Request cancelled.")
        term.prompt()
        hold.set()
        term.send("make a file\r")
        term.expect("Allow execution of: 'touch'?")
        assert not (ws / "made.txt").exists()
        term.send("1")
        term.expect("Made it.")
        term.prompt()
        term.send("/quit\r")
        assert term.finish() == 0
    assert "then the rest" not in term.text
    assert (ws / "made.txt").exists()


def test_text_typed_during_a_turn_waits_in_the_next_prompt(chat: Any) -> None:
    hold = threading.Event()
    script = [Reply(content="Slow answer.", hold=hold, split=2), Reply(content="Second.")]
    with FakeOpenAI(script) as server:
        term = chat(server)
        term.prompt()
        term.send("first\r")
        term.expect("Slow a")  # the first half, while the server holds the rest
        term.send("typed ahead")
        hold.set()
        term.expect(r"> typed ahead(?!  \()")  # shown under the spinner, then in the prompt
        term.send("\r")
        term.expect("Second.")
        term.prompt()
        term.send("/quit\r")
        assert term.finish() == 0
    assert user_texts(server.requests[1]) == ["first", "typed ahead"]


def test_esc_cancels_a_running_tool(chat: Any) -> None:
    command = "echo started-$((6*7)); sleep 60; echo finished-$((5*5))"
    script = [
        Reply(tool_calls=[call("run_shell_command", {"command": command})]),
        Reply(content="Still here."),
    ]
    with FakeOpenAI(script) as server:
        term = chat(server, "--approval-mode", "yolo")
        term.prompt()
        term.send("run the slow thing\r")
        term.expect("started-42")
        term.send("\x1b")
        term.expect(r"- Shell")
        term.expect("Request cancelled.")
        term.prompt()
        assert len(server.requests) == 1
        term.send("are you there?\r")
        term.expect("Still here.")
        term.prompt()
        term.send("\x04")
        assert term.finish() == 0
    assert "finished-25" not in term.text


def test_ctrl_c_cancels_a_long_shell_command_and_the_session_goes_on(chat: Any) -> None:
    command = "echo started-$((6*7)); sleep 60; echo finished-$((5*5))"
    script = [
        Reply(tool_calls=[call("run_shell_command", {"command": command})]),
        Reply(content="Still here."),
    ]
    with FakeOpenAI(script) as server:
        term = chat(server, "--approval-mode", "yolo")
        term.prompt()
        term.send("run the slow thing\r")
        term.expect(r"⊷ Shell")
        term.expect("started-42")  # live output while it runs
        term.send("\x03")  # Ctrl-C
        term.expect(r"- Shell")
        term.expect("Request cancelled.")
        term.prompt()
        assert len(server.requests) == 1  # the cancelled turn asked the model nothing more
        term.send("are you there?\r")
        term.expect("Still here.")
        term.prompt()
        term.send("\x04")
        assert term.finish() == 0
    assert "finished-25" not in term.text
    second = server.requests[1]["messages"]
    assert user_texts(server.requests[1]) == ["run the slow thing", "are you there?"]
    cancelled = next(m for m in second if m["role"] == "tool")
    assert "cancel" in json.dumps(cancelled).lower()


def test_ctrl_c_cancels_the_model_stream(chat: Any) -> None:
    hold = threading.Event()
    script = [Reply(content="Partial answer, then the rest.", hold=hold), Reply(content="Next.")]
    with FakeOpenAI(script) as server:
        term = chat(server)
        term.prompt()
        term.send("talk slowly\r")
        term.expect("Partial answer")
        term.send("\x03")
        term.expect("Request cancelled.")
        term.expect(r"(?m)^│ ?> talk slowly")  # the cancelled prompt is back (as Qwen Code)
        hold.set()
        term.send(" again\r")
        term.expect("Next.")
        term.prompt()
        term.send("/quit\r")
        assert term.finish() == 0
    assert "then the rest" not in term.text
    assert user_texts(server.requests[1]) == ["talk slowly", "talk slowly again"]


def test_ctrl_c_in_the_dialog_cancels_the_turn(chat: Any, ws: Path) -> None:
    script = [Reply(tool_calls=[call("run_shell_command", {"command": "touch made.txt"})])]
    with FakeOpenAI(script) as server:
        term = chat(server)
        term.prompt()
        term.send("make a file\r")
        term.expect("Allow execution of: 'touch'?")
        term.send("\x03")
        term.expect(r"- Shell touch made\.txt")
        term.expect("Request cancelled.")
        term.prompt()
        term.send("/quit\r")
        assert term.finish() == 0
    assert len(server.requests) == 1
    assert not (ws / "made.txt").exists()


def test_modify_with_external_editor(chat: Any, ws: Path, tmp_path: Path) -> None:
    editor = tmp_path / "editor.sh"
    editor.write_text('#!/bin/sh\nfor last; do :; done\nprintf "from the editor\\n" > "$last"\n')
    editor.chmod(0o755)
    target = ws / "story.txt"
    script = [
        Reply(tool_calls=[call("write_file", {"file_path": str(target), "content": "model\n"})]),
        Reply(content="Written."),
    ]
    with FakeOpenAI(script) as server:
        term = chat(server, env={"EDITOR": str(editor)})
        term.prompt()
        term.send("write a story\r")
        term.expect(r"3\. Modify with external editor")
        term.send("3")
        term.expect(r"\+from the editor")  # asked again, with the user's version
        term.expect("Apply this change?")
        term.send("1")
        term.expect("Written.")
        term.prompt()
        term.send("/quit\r")
        assert term.finish() == 0
    assert target.read_text() == "from the editor\n"
    assert "User modified the `content`" in json.dumps(server.requests[1]["messages"][-1])
