"""``qwen-tools chat`` as Qwen Code 0.24.4 works it from the keyboard, in a real pty.

Enter during a turn steers it (the text joins the conversation at the next request boundary:
after the calls' results, or after an answer), Ctrl+Q queues it as the next prompt; the banner
has the version; ``/help`` lists the keys; ``/stats`` counts calls, agreement and code changes;
the ``/`` menu describes the commands, eight rows at 80×24 (on an emulated screen). A cancelled
prompt coming back into the input is in test_chat_turns.py. Against the scripted OpenAI server
on 127.0.0.1; expectations wait for the output (the deadline is only a safety net).
"""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any

from support.chat_terminal import EXE, ScreenTerminal, base_env, user_texts
from support.fake_openai import FakeOpenAI, Reply, call


def _text(message: dict[str, Any]) -> str:
    content = message["content"]
    return content if isinstance(content, str) else "".join(p["text"] for p in content)


def test_enter_steers_the_running_turn_and_ctrl_q_queues_the_next_prompt(
    chat: Any, ws: Path
) -> None:
    (ws / "style.txt").write_text("indent-with-tabs\n")
    hold = threading.Event()
    wait = "while [ ! -e go ]; do sleep 0.05; done; echo ran-the-check"
    script = [
        Reply(tool_calls=[call("run_shell_command", {"command": wait}, "c1")]),
        Reply(content="Steered."),
        Reply(content="Linting now, wait.", hold=hold, split=2),
        Reply(content="Docs too."),
    ]
    with FakeOpenAI(script) as server:
        term = chat(server, "--approval-mode", "yolo")
        term.prompt()
        term.send("run the check\r")
        term.expect(r"Running… \(")
        term.send("use tabs as @style.txt")
        term.expect(r"> use tabs as @style\.txt  \(enter to steer · ctrl\+q to queue\)")
        term.send("\r")
        term.expect(r"Attached @style\.txt")  # its @path attaches the file, as in a prompt
        term.expect(r"steering: use tabs as @style\.txt")  # waits for the call's result
        term.send("then lint\x11")  # Ctrl+Q
        term.expect(r"queued: then lint")
        assert len(server.requests) == 1  # nothing sent while the call runs
        (ws / "go").touch()
        term.expect("Steered.")
        term.expect(r"> then lint")  # the queued text, sent as the next prompt by itself
        term.expect("Linting")  # the answer streams, held half-way
        term.send("also docs\r")  # steered into a turn that calls no tool
        term.expect(r"steering: also docs")
        term.send("/stats\r")  # a command is never sent to the model: it runs after the turn
        term.expect(r"queued: /stats")
        hold.set()
        term.expect("Docs too.")
        term.expect(r"Tool calls: 1 \( ✓ 1 ✗ 0 \)")
        term.prompt()
        term.send("/quit\r")
        assert term.finish() == 0
    assert len(server.requests) == 4
    steered = server.requests[1]["messages"]
    assert [m["role"] for m in steered[-3:]] == ["assistant", "tool", "user"]
    assert "ran-the-check" in _text(steered[-2])  # the result first, then the steering
    assert _text(steered[-1]).startswith("use tabs as @style.txt")
    assert "indent-with-tabs" in _text(steered[-1])
    assert user_texts(server.requests[2])[-1] == "then lint"
    after_answer = server.requests[3]["messages"]
    assert [m["role"] for m in after_answer[-2:]] == ["assistant", "user"]
    assert _text(after_answer[-2]) == "Linting now, wait."
    assert _text(after_answer[-1]) == "also docs"
    assert "> use tabs as" in term.text and "> also docs" in term.text  # shown when sent


def test_banner_help_keys_and_stats(chat: Any, ws: Path) -> None:
    target = ws / "greet.py"
    target.write_text("print('hi')\n")
    edit = {"file_path": str(target), "old_string": "'hi'", "new_string": "'hello'"}
    script = [
        Reply(
            tool_calls=[
                call("read_file", {"file_path": str(target)}, "r1"),
                call("read_file", {"file_path": str(ws / "gone.txt")}, "r2"),
            ]
        ),
        Reply(tool_calls=[call("edit", edit, "e1")]),
        Reply(content="Changed."),
    ]
    with FakeOpenAI(script) as server:
        term = chat(server)
        term.expect(r"qwen-tools chat \(qwen-tools \d+\.\d+\.\d+")  # the version
        term.prompt()
        term.send("/help\r")
        for keys in ("Enter during a turn", "Ctrl\\+Q during a turn", "Alt-←/→", "Ctrl-L"):
            term.expect(keys)
        term.expect(r"Esc Esc\s+clear the prompt")
        term.prompt()
        term.send("change the greeting\r")
        term.expect("Apply this change?")
        term.send("1")
        term.expect("Changed.")
        term.prompt()
        term.send("/stats\r")
        term.expect(r"Tool calls: 3 \( ✓ 2 ✗ 1 \)")
        term.expect(r"Success rate: 66\.7%")
        term.expect(r"User agreement: 100\.0% \(1 reviewed\)")
        term.expect(r"Code changes: \+1 -1")
        term.expect(r"API time: \d+(ms|\.\ds) \(\d+\.\d%\)  ·  tool time: \d+(ms|\.\ds)")
        term.prompt()
        term.send("/quit\r")
        assert term.finish() == 0


def test_the_command_menu_on_an_80x24_screen(tmp_path: Path, ws: Path) -> None:
    with FakeOpenAI() as server:
        model = {"OPENAI_API_KEY": "k", "OPENAI_MODEL": "fake-model", "OPENAI_BASE_URL": server.url}
        term = ScreenTerminal([str(EXE), "chat"], {**base_env(tmp_path), **model}, ws, (24, 80))
        try:
            term.wait_screen(lambda rows: any("> Type your" in row for row in rows))
            term.send("/")
            rows = term.wait_screen(lambda rows: len(_menu_rows(rows)) >= 8).display
            menu = _menu_rows(rows)
            assert "/help" in menu[0] and "this list" in menu[0]  # name and description
            assert any("/tools" in row and "the tools the model can call" in row for row in menu)
            term.send("quit\r")  # the menu narrows to /quit; Enter sends it
            assert term.finish() == 0
        finally:
            term.close()


def _menu_rows(rows: list[str]) -> list[str]:
    """The completion menu's rows: a ``/command`` and its description on each."""
    return [row for row in rows if re.match(r"│\s+/\S+\s{2,}\S", row)]
