"""A scripted model for rollouts: many conversations at once against one :class:`FakeOpenAI`.

Each task's prompt names its kind (``KIND=edit``); the model finds the workspace in the
environment reminder ("Working directory: ...") and answers from the number of turns so far, so
its script does not depend on the order in which concurrent conversations reach it.
Kinds: ``read`` (read_file, grep), ``edit`` (read_file, edit), ``shell`` (a command writing a
file), ``write`` (a new file), ``loop`` (globs until the turn limit), ``error`` (HTTP 401).
"""

from __future__ import annotations

import re
from typing import Any

from support.fake_openai import Reply, call

__all__ = ["KINDS", "TEMPLATE_FILES", "expected_diff_line", "scripted_model"]

TEMPLATE_FILES = {"app.py": "def answer():\n    return 41\n", "README.md": "# demo\n"}
KINDS = ("read", "edit", "shell", "write", "loop", "error")


def _steps(kind: str, ws: str, tag: str) -> list[dict[str, Any]]:
    app = f"{ws}/app.py"
    if kind == "read":
        return [call("read_file", {"absolute_path": app}), call("grep_search", {"pattern": "ret"})]
    if kind == "edit":
        edit = {"file_path": app, "old_string": "41", "new_string": f"42  # {tag}"}
        return [call("read_file", {"absolute_path": app}), call("edit", edit)]
    if kind == "shell":
        return [call("run_shell_command", {"command": f"echo {tag} > out.txt && wc -l app.py"})]
    if kind == "write":
        return [call("write_file", {"file_path": f"{ws}/new_{tag}.txt", "content": f"{tag}\n"})]
    if kind == "loop":
        return [call("glob", {"pattern": "*.py"})] * 1000
    return []


def expected_diff_line(kind: str, tag: str) -> str | None:
    """A line the task's diff must contain (``None``: the diff must be empty)."""
    return {
        "edit": f"+    return 42  # {tag}",
        "shell": f"+{tag}",
        "write": f"+{tag}",
    }.get(kind)


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content)
    return str(content or "")


def scripted_model(body: dict[str, Any]) -> Reply:
    """The reply to one request of any of the conversations."""
    messages = body["messages"]
    opening = _text(next(m for m in messages if m["role"] == "user"))
    found = re.search(r"KIND=(\w+) TAG=(\w+)", opening)
    where = re.search(r"Working directory: (\S+)", opening)
    assert found is not None and where is not None, opening[:500]
    kind, tag = found.group(1), found.group(2)
    if kind == "error":
        return Reply(status=401, error={"error": {"message": "bad key"}})
    turns = sum(1 for m in messages if m["role"] == "assistant")
    steps = _steps(kind, where.group(1), tag)
    if turns < len(steps):
        return Reply(tool_calls=[steps[turns]])
    return Reply(content=f"Finished {tag}.")
