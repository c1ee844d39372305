"""``tools.discoveryCommand`` runs once per server, not once per stateless request.

Over ``--stateless`` every request opens a session of its own; the sessions share the
discovery command's declarations (they depend only on the settings and the project directory),
while the discovered tool's ``tools.callCommand`` still runs for every call. Both commands
count their runs in a file.
"""

from __future__ import annotations

import json
import shlex
import sys
import textwrap
from pathlib import Path

from .conftest import start_http
from .test_http_modes import post

DISCOVER = """
import json, sys
with open(sys.argv[1], "a") as log:
    log.write("run\\n")
params = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
print(json.dumps([{"name": "shout", "description": "Shout.", "parametersJsonSchema": params}]))
"""
CALL = """
import json, sys
with open(sys.argv[1], "a") as log:
    log.write("call\\n")
print(sys.argv[2] + ": " + json.load(sys.stdin)["text"].upper())
"""


def lines(path: Path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


def test_stateless_requests_share_one_discovery_run(
    ws: Path, env: dict[str, str], tmp_path: Path
) -> None:
    runs, calls = tmp_path / "discoveries.log", tmp_path / "calls.log"
    (tmp_path / "discover.py").write_text(textwrap.dedent(DISCOVER).lstrip())
    (tmp_path / "call.py").write_text(textwrap.dedent(CALL).lstrip())
    python = [sys.executable]
    tools = {
        "discoveryCommand": shlex.join([*python, str(tmp_path / "discover.py"), str(runs)]),
        "callCommand": shlex.join([*python, str(tmp_path / "call.py"), str(calls)]),
        "allowed": ["shout"],
    }
    (ws / ".qwen").mkdir()
    (ws / ".qwen" / "settings.json").write_text(json.dumps({"tools": tools}))
    server = start_http(ws, env, tmp_path / "server.log", "--stateless")
    try:
        words = ("one", "two", "three", "four")
        answers = []
        for word in words:
            params = {"name": "shout", "arguments": {"text": word}}
            body = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params}
            status, _, text = post(server, body)
            assert status == 200
            answers.append(text)
            if word == "one":
                after_first = lines(runs)
        assert all(f"shout: {w.upper()}" in a for w, a in zip(words, answers, strict=True))
        assert 1 <= after_first <= 2  # the server's own session, and its clients' template
        assert lines(runs) == after_first
        assert lines(calls) == 4
    finally:
        assert server.stop() == 0, server.stderr()
