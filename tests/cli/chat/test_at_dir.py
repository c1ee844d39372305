"""``@dir`` in a chat prompt attaches the directory's files, as read_many_files reads them.

In a real pty against the scripted OpenAI server. The attacks: ``@../outside``, a symlink to a
directory outside the workspace, a symlink inside the directory to an outside file, an ignored
directory, an ignored file inside the directory: none sends anything outside the rules, and
each ``@`` word gets one line saying what was attached or why not.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from support.fake_openai import FakeOpenAI, Reply


def _sent(request: dict[str, Any]) -> str:
    user = [m for m in request["messages"] if m["role"] == "user"][-1]
    content = user["content"]
    return content if isinstance(content, str) else "".join(p["text"] for p in content)


def test_at_dir_attaches_its_files_within_the_rules(chat: Any, ws: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("outside-secret\n")
    (ws / ".git").mkdir()
    (ws / ".gitignore").write_text("private/\n*.log\n")
    (ws / "docs" / "sub").mkdir(parents=True)
    (ws / "docs" / "a.txt").write_text("alpha-text\n")
    (ws / "docs" / "sub" / "b.md").write_text("beta-text\n")
    (ws / "docs" / "noise.log").write_text("ignored-log\n")
    (ws / "docs" / "escape.txt").symlink_to(outside / "secret.txt")
    (ws / "linkdir").symlink_to(outside, target_is_directory=True)
    (ws / "private").mkdir()
    (ws / "private" / "p.txt").write_text("private-text\n")
    (ws / "logs").mkdir()
    (ws / "logs" / "run.log").write_text("ignored-log\n")
    with FakeOpenAI([Reply(content="Read them."), Reply(content="Again.")]) as server:
        term = chat(server)
        term.prompt()
        term.send("see @docs @../outside @linkdir @private @logs\r")
        term.expect(r"Attached @docs \(2 files")
        term.expect(r"Not attached @\.\./outside: outside the workspace")
        term.expect(r"Not attached @linkdir: outside the workspace")
        term.expect(r"Not attached @private: ignored")
        term.expect(r"Not attached @logs: no file in it can be sent")
        term.expect("Read them.")
        term.prompt()
        term.send("again @do")
        term.expect("docs/")  # completion offers the directory
        term.send("\t")  # Tab takes the completion and closes the menu (as in Qwen Code) ...
        term.send("\r")  # ... so Enter sends (it added a new line while the menu stayed open)
        term.expect(r"Attached @docs/ \(2 files")  # completed with its slash
        term.expect("Again.")
        term.prompt()
        term.send("/quit\r")
        assert term.finish() == 0
    for request in server.requests:
        sent = _sent(request)
        assert "--- Content from referenced files ---" in sent
        assert "Content from @docs/a.txt:\nalpha-text" in sent
        assert "Content from @docs/sub/b.md:\nbeta-text" in sent
        for leaked in ("outside-secret", "private-text", "ignored-log"):
            assert leaked not in sent, leaked
    assert term.text.count("@linkdir:") == 1 and term.text.count("@private:") == 1
