"""``qwen-tools chat`` commands and screen in a real pseudo-terminal: slash commands, sessions, input.

Against the scripted OpenAI server on 127.0.0.1. The harness types into the terminal like a
person (keys, Enter, Ctrl-C, Ctrl-D) and reads what the program draws; it answers the terminal's cursor-position requests as a terminal
emulator would. Expectations wait for text to appear (the deadline is only a safety net).
"""

from __future__ import annotations

import base64
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from support.chat_terminal import EXE, base_env, input_box, screen, user_texts
from support.fake_openai import FakeOpenAI, Reply, call
from support.pty_terminal import PtyTerminal


def test_slash_commands(chat: Any) -> None:
    with FakeOpenAI([Reply(content="First answer."), Reply(content="Fresh start.")]) as server:
        term = chat(server)
        term.prompt()
        term.send("/help\r")
        term.expect(r"/approval-mode \[MODE\]")
        term.prompt()
        term.send("/tools\r")
        term.expect(r"read_file\s+ReadFile\s+read")
        term.prompt()
        term.send("/mode auto-edit\r")
        term.expect("Approval mode: auto-edit")
        term.prompt()
        term.send("/mode sideways\r")
        term.expect('Invalid approval mode: "sideways"')
        term.prompt()
        term.send("/nope\r")
        term.expect("Unknown command /nope")
        term.prompt()
        term.send("first\r")
        term.expect("First answer.")
        term.prompt()
        term.send("/clear\r")
        term.expect("New conversation.")
        term.prompt()
        term.send("second\r")
        term.expect("Fresh start.")
        term.prompt()
        term.send("\x03")  # Ctrl-C on an empty prompt: asks for a second one
        term.expect("Press Ctrl-C again to exit.")
        term.prompt()
        term.send("\x03")
        assert term.finish() == 0
    assert user_texts(server.requests[1]) == ["second"]  # /clear forgot "first"


def test_session_commands_and_the_summary_on_quit(chat: Any, ws: Path, tmp_path: Path) -> None:
    (ws / "QWEN.md").write_text("Always answer in haiku.\n")
    script = [
        Reply(content="Listing.", tool_calls=[call("list_directory", {"path": str(ws)})]),
        Reply(content="The answer to copy."),
    ]
    with FakeOpenAI(script) as server:
        term = chat(server)
        term.prompt()
        term.send("/stats\r")
        term.expect("No tool calls yet.")
        term.prompt()
        term.send("look around\r")
        term.expect("The answer to copy.")
        term.prompt()
        term.send("/stats\r")
        term.expect(r"Tokens: input \d")
        term.expect(r"list_directory\s+1\s+1\s+0\s+\d+ ms")
        term.prompt()
        term.send("/model fake-model\r")
        term.expect("Already using fake-model.")
        term.prompt()
        term.send("/memory\r")
        term.expect("Always answer in haiku.")
        term.prompt()
        term.send("/memory add likes tea\r")
        term.expect("Saved to memory: likes tea")
        term.prompt()
        term.send("/mcp\r")
        term.expect("No MCP servers configured.")
        term.prompt()
        term.send("/approval-mode yolo\r")
        term.expect("Approval mode: yolo")
        term.prompt()
        term.send("/copy\r")
        term.expect("Copied the last answer")
        term.prompt()
        term.send("/quit\r")
        assert term.finish() == 0
    copied = base64.b64encode(b"The answer to copy.").decode()
    assert f"\x1b]52;c;{copied}\x07" in term.raw.decode()
    assert re.search(
        r"Session summary\s+turns 1\s+·\s+tool calls 1\s+·\s+tokens \d+ in / \d+ out", term.text
    )
    memory = (tmp_path / "home" / ".qwen" / "QWEN.md").read_text()
    assert "- likes tea" in memory


def test_a_crashed_chat_is_resumed(chat: Any) -> None:
    script = [Reply(content="Noted: 42."), Reply(content="It was 42."), Reply(content="Again 42.")]
    with FakeOpenAI(script) as server:
        first = chat(server)
        first.prompt()
        first.send("remember 42\r")
        first.expect("Noted: 42.")
        first.prompt()
        first.close()  # SIGKILL: no clean exit, nothing saved at the end
        second = chat(server, "--resume")
        second.expect(r"Resumed chat \S+ \(2 messages\)")
        second.prompt()
        second.send("what was it?\r")
        second.expect("It was 42.")
        second.prompt()
        second.send("/quit\r")
        assert second.finish() == 0
        resume_id = re.search(r"qwen-tools chat --resume (\S+)", second.text)
        assert resume_id is not None
        third = chat(server)
        third.prompt()
        third.send("/resume\r")
        third.expect(r"1\. " + re.escape(resume_id[1]) + r".*remember 42")
        third.prompt()
        third.send("/resume 1\r")
        third.expect(r"Resumed chat \S+ \(4 messages\)")
        third.prompt()
        third.send("once more\r")
        third.expect("Again 42.")
        third.prompt()
        third.send("/quit\r")
        assert third.finish() == 0
    assert user_texts(server.requests[1]) == ["remember 42", "what was it?"]
    assert user_texts(server.requests[2]) == ["remember 42", "what was it?", "once more"]


def test_bare_command_in_a_terminal_starts_chat_piped_input_stays_headless(
    tmp_path: Path, ws: Path
) -> None:
    with FakeOpenAI([Reply(content="Chatting."), Reply(content="Headless.")]) as server:
        env = {
            **base_env(tmp_path),
            "OPENAI_API_KEY": "test-key",
            "OPENAI_MODEL": "fake-model",
            "OPENAI_BASE_URL": server.url,
        }
        term = PtyTerminal([str(EXE)], env, ws)
        try:
            term.expect("qwen-tools chat")
            term.prompt()
            term.send("hi\r")
            term.expect("Chatting.")
            term.prompt()
            term.send("/quit\r")
            assert term.finish() == 0
        finally:
            term.close()
        piped = subprocess.run(
            [str(EXE)], input="hi", env=env, cwd=ws, capture_output=True, text=True, timeout=60
        )
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout.strip() == "Headless."
    assert user_texts(server.requests[1]) == ["hi"]


@pytest.mark.parametrize("size", [(24, 80), (40, 120)], ids=["80x24", "120x40"])
def test_input_box_placeholder_and_footer(chat: Any, ws: Path, size: tuple[int, int]) -> None:
    (ws / ".git").mkdir()
    (ws / ".git" / "HEAD").write_text("ref: refs/heads/feature-x\n")
    with FakeOpenAI(
        [
            Reply(
                content="Hi.",
                usage={"prompt_tokens": 5000, "completion_tokens": 20, "total_tokens": 5020},
            )
        ]
    ) as server:
        term = chat(server, size=size)
        term.expect("╭" + "─" * (size[1] - 2) + "╮")  # the input box's top border
        term.expect("> Type your message or @path/to/file")  # the placeholder
        term.expect("╰" + "─" * (size[1] - 2) + "╯")  # its bottom border, right under it
        footer = term.expect(r"[^\n]*ws \(feature-x\).*fake-model.*default.*100% context left")[0]
        assert len(footer) <= size[1]
        rows = screen(term, size).display
        assert "(feature-x)" in rows[rows.index(input_box(rows)[-1]) + 1]  # right under the box
        term.send("hello\r")
        term.expect("Hi.")
        term.expect(r"fake-model.*97% context left")  # 5020 of 200000 tokens
        term.send("\x1b[Z")  # Shift-Tab
        term.expect("auto-edi")  # redrawn in place: only the changed cells are sent
        term.send("/quit\r")
        assert term.finish() == 0


def test_shell_mode_runs_the_command_and_tells_the_model(chat: Any, ws: Path) -> None:
    (ws / "marker.txt").write_text("x")
    with FakeOpenAI([Reply(content="I see the marker.")]) as server:
        term = chat(server)
        term.prompt()
        term.send("!ls; echo sum-$((20+22))\r")
        term.expect("marker.txt")
        term.expect("sum-42")
        term.prompt()
        assert not server.requests  # the model is not asked
        term.send("what did you see?\r")
        term.expect("I see the marker.")
        term.prompt()
        term.send("/quit\r")
        assert term.finish() == 0
    assert user_texts(server.requests[0]) == ["what did you see?"]
    user = next(m for m in server.requests[0]["messages"] if m["role"] == "user")
    shell = next(p["text"] for p in user["content"] if "I ran the following" in p["text"])
    assert shell.startswith("I ran the following shell command:\n```sh\nls; echo sum-$((20+22))")
    assert "This produced the following result:\n```\n" in shell and "sum-42" in shell


def test_at_path_completes_and_attaches_files_respecting_ignores(chat: Any, ws: Path) -> None:
    (ws / ".git").mkdir()
    (ws / ".gitignore").write_text("hidden.txt\n")
    (ws / "hidden.txt").write_text("do-not-send\n")
    (ws / "docs").mkdir()
    (ws / "docs" / "notes.txt").write_text("secret-sauce\n")
    with FakeOpenAI([Reply(content="Read it.")]) as server:
        term = chat(server)
        term.prompt()
        term.send("summarise @do")
        term.expect("docs/")  # the completion menu
        term.send("\t")
        term.send("no")
        term.expect("notes.txt")
        term.send("\t")  # Tab takes the completion and closes the menu
        term.send(" and @hidden.txt and @../outside.txt\r")
        term.expect(r"Attached @docs/notes\.txt")
        term.expect(r"Not attached @hidden\.txt: ignored")
        term.expect(r"Not attached @\.\./outside\.txt: outside the workspace")
        term.expect("Read it.")
        term.prompt()
        term.send("/quit\r")
        assert term.finish() == 0
    user = [m for m in server.requests[0]["messages"] if m["role"] == "user"][-1]
    sent = "".join(part["text"] for part in user["content"])
    assert "summarise @docs/notes.txt and @hidden.txt and @../outside.txt" in sent
    assert "--- Content from referenced files ---" in sent
    assert "Content from @docs/notes.txt:\nsecret-sauce" in sent
    assert "do-not-send" not in sent


def _usage(prompt: int, completion: int = 10) -> dict[str, int]:
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + 1}


SUMMARY = "<analysis>draft</analysis><state_snapshot>the user said hello-one</state_snapshot>"


def _is_summary_request(body: dict[str, Any]) -> bool:
    return str(body["messages"][0]["content"]).startswith("You are the component that summarizes")


def test_compress_replaces_the_history_with_the_models_summary(chat: Any) -> None:
    script = [
        Reply(content="First answer.", usage=_usage(3000)),
        Reply(content=SUMMARY, usage=_usage(1800, 40)),
        Reply(content="After compression."),
    ]
    with FakeOpenAI(script) as server:
        term = chat(server)
        term.prompt()
        term.send("/compress\r")
        term.expect("Nothing to compress.")
        term.prompt()
        term.send("hello-one\r")
        term.expect("First answer.")
        term.prompt()
        term.send("/compress keep the names\r")
        term.expect(r"Chat history compressed from 3000 to ~2240 tokens\.")
        term.prompt()
        term.send("go on\r")
        term.expect("After compression.")
        term.prompt()
        term.send("/quit\r")
        assert term.finish() == 0
    asked = server.requests[1]
    assert _is_summary_request(asked) and asked["stream"] is False and "tools" not in asked
    assert asked["messages"][0]["content"].endswith("Additional Instructions:\nkeep the names")
    assert "hello-one" in json.dumps(asked["messages"][1:])
    after = server.requests[2]["messages"]
    assert "<state_snapshot>the user said hello-one</state_snapshot>" in json.dumps(after)
    assert user_texts(server.requests[2])[-1] == "go on"
    assert not any("First answer." in json.dumps(m) for m in after)


def test_automatic_compression_is_shown_and_a_failure_said_once(chat: Any, ws: Path) -> None:
    (ws / ".qwen").mkdir()
    window = {"model": {"generationConfig": {"contextWindowSize": 4000}}}
    (ws / ".qwen" / "settings.json").write_text(json.dumps(window))
    answers = [Reply(content=f"Answer {n}.", usage=_usage(3600)) for n in range(1, 5)]
    summaries = [
        Reply(content=SUMMARY, usage=_usage(1500, 50)),
        Reply(status=400),
        Reply(status=400),
    ]

    def answer(body: dict[str, Any]) -> Reply:
        return (summaries if _is_summary_request(body) else answers).pop(0)

    with FakeOpenAI(answer) as server:
        term = chat(server)
        for n in range(1, 5):
            term.prompt()
            term.send(f"prompt {n}\r")
            if n == 2:
                term.expect(r"IMPORTANT: This conversation approached the input token limit for")
            if n == 3:
                term.expect(r"Could not compress chat history due to an API error\. The")
            term.expect(f"Answer {n}.")
        term.prompt()
        term.send("/quit\r")
        assert term.finish() == 0
    assert term.text.count("Could not compress chat history") == 1  # the second failure: quiet
    assert [_is_summary_request(r) for r in server.requests] == [
        False, True, False, True, False, True, False,
    ]  # fmt: skip
    assert "prompt 1" not in json.dumps(server.requests[2]["messages"])  # compressed away
    assert "prompt 2" in json.dumps(server.requests[-1]["messages"])  # the failures kept it


def test_mcp_command_lists_servers_status_and_tools(chat: Any, ws: Path) -> None:
    demo = Path(__file__).resolve().parents[2] / "mcp" / "servers" / "demo_server.py"
    servers = {
        "demo": {"command": sys.executable, "args": [str(demo), "--name", "demo"]},
        "broken": {"command": str(ws / "no-such-program")},
    }
    (ws / ".qwen").mkdir()
    (ws / ".qwen" / "settings.json").write_text(json.dumps({"mcpServers": servers}))
    with FakeOpenAI([]) as server:
        term = chat(server)
        term.prompt()
        term.send("/mcp\r")
        term.expect(r"● demo connected, \d+ tool\(s\)")
        term.expect(r"- add")
        term.expect(r"- echo")
        term.expect(r"● broken disconnected, 0 tool\(s\)")
        term.prompt()
        term.send("/quit\r")
        assert term.finish() == 0


def test_multi_line_prompt(chat: Any) -> None:
    with FakeOpenAI([Reply(content="Got both lines.")]) as server:
        term = chat(server)
        term.prompt()
        term.send("line one\nline two\\\rline three\r")  # Ctrl-J, then backslash-Enter
        term.expect("Got both lines.")
        term.prompt()
        term.send("/quit\r")
        assert term.finish() == 0
    assert user_texts(server.requests[0]) == ["line one\nline two\nline three"]


def test_history_recalls_earlier_prompts(chat: Any, tmp_path: Path) -> None:
    with FakeOpenAI([Reply(content="One."), Reply(content="Two.")]) as server:
        term = chat(server)
        term.prompt()
        term.send("remember me\r")
        term.expect("One.")
        term.prompt()
        term.send("\x1b[A")  # Up
        term.expect("remember me")
        term.send("\r")
        term.expect("Two.")
        term.prompt()
        term.send("/quit\r")
        assert term.finish() == 0
    assert user_texts(server.requests[1]) == ["remember me", "remember me"]
    saved = list((tmp_path / "home" / ".qwen" / "tmp").glob("*/chat_history"))
    assert len(saved) == 1 and "+remember me" in saved[0].read_text()


def test_without_a_model_the_message_of_run(tmp_path: Path, ws: Path) -> None:
    env = base_env(tmp_path)
    chat = subprocess.run(
        [str(EXE), "chat"], env=env, cwd=ws, capture_output=True, text=True, timeout=60
    )
    run = subprocess.run(
        [str(EXE), "run", "hi"],
        env=env,
        cwd=ws,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert chat.returncode == run.returncode == 3
    assert chat.stderr == run.stderr
    assert "No model is configured" in chat.stderr


def test_without_a_terminal(tmp_path: Path, ws: Path) -> None:
    env = {**base_env(tmp_path), "OPENAI_API_KEY": "k", "OPENAI_MODEL": "m"}
    done = subprocess.run(
        [str(EXE), "chat"],
        env=env,
        cwd=ws,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "needs a terminal" in done.stderr


def test_help_does_not_import_the_terminal_libraries() -> None:
    probe = (
        "import sys, qwen_tools.cli.main as m; m.build_parser().format_help(); "
        "print(sorted({k.split('.')[0] for k in sys.modules} & {'rich', 'prompt_toolkit'}))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
