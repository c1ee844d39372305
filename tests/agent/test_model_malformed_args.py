"""``qwen-tools run``: malformed tool-call arguments from the model get clear errors, and go on.

The fake model sends, in one turn, arguments holding a lone surrogate escape, nesting 5,000
levels deep (closed and cut off), a 5,000-digit integer, ``NaN``, and a tool name with a lone
surrogate; its texts hold lone surrogates too. The run must finish, send every error back to the
model (a real HTTP request the fake server parses) and print valid UTF-8.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from support.cli_env import isolated_env
from support.fake_openai import FakeOpenAI, Reply, call

EXE = Path(sys.executable).with_name("qwen-tools")
INTEGER_OR_NULL = "params/offset must be integer,null"
DEPTH = "params/offset must NOT be nested more than 100 levels deep"


@pytest.fixture
def env(tmp_path: Path, server: FakeOpenAI) -> dict[str, str]:
    return isolated_env(
        tmp_path,
        OPENAI_API_KEY="sk-test",
        OPENAI_BASE_URL=server.url,
        OPENAI_MODEL="fake-model",
        NO_PROXY="127.0.0.1",
    )


def tool_texts(request: dict[str, Any]) -> dict[str, str]:
    """The tool messages of a request, by call id (their text parts joined)."""
    found: dict[str, str] = {}
    for message in request["messages"]:
        if message.get("role") != "tool":
            continue
        content = message["content"]
        text = content if isinstance(content, str) else "".join(p["text"] for p in content)
        found[message["tool_call_id"]] = text
    return found


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_malformed_arguments_from_the_model(
    server: FakeOpenAI, env: dict[str, str], ws: Path, fmt: str
) -> None:
    notes = json.dumps(str(ws / "notes.txt"))
    read = '{"file_path": ' + notes
    deep = "[" * 5000
    calls = Reply(
        content="Checking \ud800 now.",
        tool_calls=[
            call("read_file", read[:-1] + '\\ud800"}', "c1"),
            call("read_file", read + ', "offset": ' + deep + "]" * 5000 + "}", "c2"),
            call("read_file", read + ', "offset": ' + deep, "c3"),
            call("read_file", read + ', "offset": 1' + "0" * 5000 + "}", "c4"),
            call("read_file", read + ', "offset": NaN}', "c5"),
            call("read\udfff_file", "{}", "c6"),
            call("read_file", read + "}", "c7"),
        ],
    )
    # Cut-off arguments make the reference ask once more; the same answer is then repaired.
    server.script = [calls, calls, Reply(content="Done \udfff.")]
    done = subprocess.run(
        [str(EXE), "run", "--approval-mode", "yolo", "--output-format", fmt, "go"],
        env=env,
        cwd=ws,
        capture_output=True,
        timeout=300,
    )
    err = done.stderr.decode("utf-8")
    assert done.returncode == 0, err[-3000:]
    assert "Traceback" not in err
    out = done.stdout.decode("utf-8")  # strict
    assert "Done" in out
    assert len(server.requests) == 3
    texts = tool_texts(server.requests[2])
    assert texts["c1"] == f"File not found: {ws}/notes.txt\ufffd"
    assert texts["c2"] == DEPTH
    assert texts["c3"] == DEPTH
    assert texts["c4"] == INTEGER_OR_NULL
    assert texts["c5"] == INTEGER_OR_NULL
    assert texts["c6"].startswith('Tool "read\ufffd_file" not found in registry.')
    assert texts["c7"] == "alpha\nbeta\ngamma\n"
