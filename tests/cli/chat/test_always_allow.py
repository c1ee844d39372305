"""Chat's "Always allow … in this project": the rule saved, honoured now and in the next chat."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from support.fake_openai import FakeOpenAI, Reply, call


def shell(command: str) -> Reply:
    return Reply(tool_calls=[call("run_shell_command", {"command": command})])


def test_always_allow_in_this_project_carries_over(chat: Any, ws: Path) -> None:
    script = [shell("touch a.txt"), Reply(content="Made a."), shell("touch b.txt")]
    script += [Reply(content="Made b.")]
    with FakeOpenAI(script) as server:
        term = chat(server)
        term.prompt()
        term.send("make a\r")
        term.expect("Allow execution of: 'touch'?")
        term.expect(r"2\. Always allow run 'touch \*' commands in this project")
        term.expect(r"3\. Always allow run 'touch \*' commands for this user")
        term.expect(r"n\. No, suggest changes \(esc\)")
        term.send("2")
        term.expect("Made a.")
        term.prompt()
        term.send("make b\r")
        term.expect("Made b.")
        assert "Allow execution" not in term.text[term.text.index("make b") :]
        term.prompt()
        term.send("/quit\r")
        assert term.finish() == 0
    saved = json.loads((ws / ".qwen" / "settings.json").read_text())
    assert saved == {"permissions": {"allow": ["Bash(touch *)"]}}

    script = [shell("touch c.txt"), Reply(content="Made c."), shell("rm a.txt")]
    script += [Reply(content="unused")]
    with FakeOpenAI(script) as server:
        term = chat(server)
        term.prompt()
        term.send("make c\r")
        term.expect("Made c.")
        assert "Allow execution" not in term.text
        term.prompt()
        term.send("remove a\r")
        term.expect("Allow execution of: 'rm'?")  # the rule allows touch, nothing more
        term.send("n")
        term.prompt()
        term.send("/quit\r")
        assert term.finish() == 0
    assert (ws / "c.txt").exists() and (ws / "a.txt").exists()


def test_a_settings_file_linked_outside_gets_one_message(chat: Any, ws: Path) -> None:
    outside = ws.parent / "outside.json"
    outside.write_text("{}\n")
    (ws / ".qwen").mkdir()
    (ws / ".qwen" / "settings.json").symlink_to(outside)
    with FakeOpenAI([shell("touch a.txt"), Reply(content="Made a.")]) as server:
        term = chat(server)
        term.prompt()
        term.send("make a\r")
        term.expect("Allow execution of: 'touch'?")
        term.send("2")
        term.expect(r"Could not save the permission rule to \S+settings\.json: it resolves to")
        term.expect("Nothing was written.")
        term.expect("Made a.")
        term.prompt()
        term.send("/quit\r")
        assert term.finish() == 0
    assert outside.read_text() == "{}\n" and (ws / "a.txt").exists()
    assert term.text.count("Could not save the permission rule") == 1
