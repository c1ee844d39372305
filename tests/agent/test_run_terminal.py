"""``qwen-tools run`` with a terminal attached asks before a call that needs approval."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.cli_env import isolated_env
from support.fake_openai import FakeOpenAI, Reply, call
from support.processes import MARK_VAR, process_guard
from support.pty_terminal import PtyTerminal

EXE = Path(sys.executable).with_name("qwen-tools")


@pytest.fixture(autouse=True)
def _no_leftovers(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    yield from process_guard(monkeypatch, timeout=5.0)


def run_env(tmp_path: Path, server: FakeOpenAI) -> dict[str, str]:
    return isolated_env(
        tmp_path,
        TERM="xterm-256color",
        OPENAI_API_KEY="sk-test",
        OPENAI_BASE_URL=server.url,
        OPENAI_MODEL="fake-model",
        **{MARK_VAR: os.environ[MARK_VAR]},
    )


@pytest.mark.parametrize(("answer", "written"), [("1\r", True), ("n\r", False)])
def test_run_asks_in_the_terminal(tmp_path: Path, answer: str, written: bool) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    target = ws / "out.txt"
    script = [
        Reply(tool_calls=[call("write_file", {"file_path": str(target), "content": "hi\n"})]),
        Reply(content="Finished."),
    ]
    with FakeOpenAI(script) as server:
        term = PtyTerminal([str(EXE), "run", "write it"], run_env(tmp_path, server), ws)
        try:
            term.expect("Confirm Write: out.txt")
            term.expect(r"1\) Yes, allow once")
            term.send(answer)
            term.expect("Finished.")
            assert term.finish() == 0
        finally:
            term.close()
    assert target.exists() is written
    sent = json.dumps(server.requests[1]["messages"][-1])
    if written:
        assert "Successfully created and wrote to new file" in sent
    else:
        assert "User did not allow tool call" in sent
