"""The MCP conformance suite (``@modelcontextprotocol/conformance``, server mode) against
``qwen-tools serve --transport http``.

Server and suite run together in one private network namespace (the suite's own listeners bind
every interface): a small shell script starts the server on a free port, reads the URL it
announces, runs each scenario with its results saved under its own directory, then stops the
server with SIGTERM. Each scenario passes when the suite exits 0 and every check it scored is
``SUCCESS``; the suite's output is shown when one does not.
"""

from __future__ import annotations

import json
import os
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from qwen_tools import Config, build_registry
from qwen_tools.cli.serve_cmd import SESSION_ONLY_TOOLS
from support.npm_peers import conformance_argv, run_private
from support.processes import MARK_VAR, kill_marked, wait_until_gone

from .conftest import EXE

SCENARIOS: dict[str, set[str]] = {
    "server-initialize": {"server-initialize"},
    "ping": {"ping"},
    "tools-list": {"tools-list"},
    "server-sse-multiple-streams": {
        "server-accepts-multiple-post-streams",
        "server-sse-streams-functional",
    },
    "dns-rebinding-protection": {
        "localhost-host-rebinding-rejected",
        "localhost-host-valid-accepted",
    },
}

# $1 qwen-tools, $2 workspace, $3 output dir, then the suite's command line; $SCENARIOS.
SCRIPT = r"""
exe=$1 ws=$2 out=$3
shift 3
"$exe" serve --transport http --port 0 --cwd "$ws" 2>"$out/server.log" &
server=$!
url=
while [ -z "$url" ] && kill -0 "$server" 2>/dev/null; do
  url=$(sed -n 's/^qwen-tools: serving MCP over streamable HTTP at //p' "$out/server.log")
  [ -n "$url" ] || sleep 0.05
done
echo "$url" >"$out/url"
for scenario in $SCENARIOS; do
  "$@" server --url "$url" --scenario "$scenario" -o "$out/$scenario" \
    >"$out/$scenario.log" 2>&1
  echo $? >"$out/$scenario.rc"
done
kill -TERM "$server"
wait "$server"
echo $? >"$out/server.rc"
"""


@dataclass
class Run:
    """Everything one run of the suite left behind."""

    out: Path
    workspace: Path
    home: Path
    leftovers: list[int]
    script_output: str

    def server_log(self) -> str:
        log = self.out / "server.log"
        return log.read_text(errors="replace") if log.exists() else "(no server log)"

    def report(self, scenario: str) -> str:
        log = self.out / f"{scenario}.log"
        text = log.read_text(errors="replace") if log.exists() else "(the scenario did not run)"
        return f"{text}\n--- server stderr\n{self.server_log()}\n--- script\n{self.script_output}"

    def returncode(self, scenario: str) -> int | None:
        rc = self.out / f"{scenario}.rc"
        return int(rc.read_text()) if rc.exists() else None

    def checks(self, scenario: str) -> list[dict[str, Any]]:
        found = sorted((self.out / scenario).glob("*/checks.json"))
        assert len(found) == 1, f"no results saved for {scenario}:\n{self.report(scenario)}"
        checks: list[dict[str, Any]] = json.loads(found[0].read_text())
        return checks


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """One server, every scenario (the suite is installed once, cached across runs)."""
    suite = conformance_argv()
    root = Path(os.path.realpath(tmp_path_factory.mktemp("conformance-server")))
    workspace, home, out = root / "ws", root / "home", root / "out"
    for directory in (workspace, home / ".qwen", out):
        directory.mkdir(parents=True)
    (workspace / "notes.txt").write_text("line 1\n")
    mark = uuid.uuid4().hex
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "QWEN_HOME": str(home / ".qwen"),
        "QWEN_CODE_SYSTEM_SETTINGS_PATH": str(root / "system-settings.json"),
        "QWEN_CODE_SYSTEM_DEFAULTS_PATH": str(root / "system-defaults.json"),
        "LANG": "C.UTF-8",
        "SCENARIOS": " ".join(SCENARIOS),
        MARK_VAR: mark,
    }
    argv = ["sh", "-c", SCRIPT, "sh", str(EXE), str(workspace), str(out), *suite]
    try:
        proc = run_private(argv, env=env, timeout=600)
    finally:
        leftovers = wait_until_gone(mark, timeout=5)
        kill_marked(mark)
    script = f"exit code {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return Run(out, workspace, home / ".qwen", leftovers, script)


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_scenario_passes(run: Run, scenario: str) -> None:
    report = run.report(scenario)
    assert run.returncode(scenario) == 0, report
    scored = {c["id"]: c["status"] for c in run.checks(scenario) if c["status"] != "INFO"}
    assert scored == dict.fromkeys(SCENARIOS[scenario], "SUCCESS"), report


def test_tools_list_offers_every_registered_tool(run: Run) -> None:
    (check,) = [c for c in run.checks("tools-list") if c["id"] == "tools-list"]
    registry = build_registry(Config(run.workspace, home_dir=run.home))
    served = set(registry.get_all_tool_names()) - set(SESSION_ONLY_TOOLS)
    assert sorted(check["details"]["tools"]) == sorted(served)


def test_rebinding_is_refused_with_a_client_error(run: Run) -> None:
    checks = {c["id"]: c for c in run.checks("dns-rebinding-protection")}
    rejected = checks["localhost-host-rebinding-rejected"]["details"]
    assert rejected["hostHeader"] == "evil.example.com"
    assert rejected["statusCode"] == 421
    accepted = checks["localhost-host-valid-accepted"]["details"]
    assert accepted["hostHeader"] == (run.out / "url").read_text().split("/")[2]


def test_server_stopped_cleanly(run: Run) -> None:
    assert (run.out / "server.rc").read_text().strip() == "0", run.server_log()
    assert run.leftovers == []
