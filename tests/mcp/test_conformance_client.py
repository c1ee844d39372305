"""The MCP conformance suite (``@modelcontextprotocol/conformance``, client mode) scoring our client.

For each scenario the suite starts its own server and runs ``conformance_client.py URL``, which
connects through an ``mcpServers`` ``httpUrl`` entry exactly as a user's settings would, and
calls the tools offered. The suite's servers listen on every interface, so it runs in a private
network namespace. A scenario passes when the suite says so (exit code 0, ``OVERALL: PASSED``)
and every check it scored (``checks.json``) is ``SUCCESS``; the suite's output is shown when
one does not.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from support.npm_peers import conformance_argv, run_private

ADAPTER = Path(__file__).with_name("conformance_client.py")
SCENARIOS: dict[str, set[str]] = {
    "initialize": {"mcp-client-initialization"},
    "tools_call": {"tool-add-numbers"},
    "sse-retry": {
        "client-sse-graceful-reconnect",
        "client-sse-retry-timing",
        "client-sse-last-event-id",
    },
}


AUTH_SCENARIOS = [
    "auth/metadata-default",
    "auth/metadata-var1",
    "auth/metadata-var2",
    "auth/metadata-var3",
    "auth/basic-cimd",
    "auth/scope-from-www-authenticate",
    "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined",
    "auth/scope-retry-limit",
    "auth/token-endpoint-auth-basic",
    "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none",
    "auth/pre-registration",
    "auth/2025-03-26-oauth-endpoint-fallback",
    "auth/resource-mismatch",
    "auth/offline-access-scope",
    "auth/offline-access-not-supported",
]
"""The suite's authorization-code scenarios our client passes. Not here: ``auth/scope-step-up``
(a session cannot ask for consent mid-call: it fails with "run qwen-tools mcp auth"),
``auth/2025-03-26-oauth-metadata-backcompat`` (the SDK refuses that server's issuer, RFC 8414
§3.3), and the ``client-credentials-*`` extension scenarios (machine clients, no user)."""
REFUSED = {"auth/scope-retry-limit", "auth/resource-mismatch"}
"""Scenarios whose server our client must refuse: they pass when no tool is called."""


@dataclass
class Outcome:
    """One scenario run: the suite's exit code and output, its checks, our client's stdout."""

    returncode: int
    output: str
    checks: list[dict[str, Any]]
    client_stdout: str

    def scored(self) -> dict[str, str]:
        """The status of every check that counts (``INFO`` entries only log traffic)."""
        return {c["id"]: c["status"] for c in self.checks if c["status"] != "INFO"}

    def calls(self) -> list[dict[str, Any]]:
        """The JSON lines our client printed, one per tool call."""
        return [json.loads(line) for line in self.client_stdout.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def suite() -> list[str]:
    """The suite's command line (installed once, cached across runs)."""
    return conformance_argv()


def run_scenario(suite: list[str], scenario: str, out: Path) -> Outcome:
    command = f"{sys.executable} {ADAPTER}"
    # The suite splits --command on spaces: the paths must not contain any.
    assert len(command.split(" ")) == 2, f"unusable path for the suite: {command!r}"
    proc = run_private(
        [*suite, "client", "--command", command, "--scenario", scenario, "-o", str(out)],
        env=os.environ,
        timeout=300,
    )
    output = f"exit code {proc.returncode}\n--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}"
    results = sorted(out.rglob("checks.json"))  # auth/x scenarios nest one level deeper
    assert len(results) == 1, f"no results saved for {scenario}:\n{output}"
    (checks_file,) = results
    return Outcome(
        proc.returncode,
        output,
        json.loads(checks_file.read_text()),
        checks_file.with_name("stdout.txt").read_text(),
    )


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_scenario_passes(suite: list[str], scenario: str, tmp_path: Path) -> None:
    outcome = run_scenario(suite, scenario, tmp_path / "results")
    assert outcome.returncode == 0, outcome.output
    assert "OVERALL: PASSED" in outcome.output, outcome.output
    expected = dict.fromkeys(SCENARIOS[scenario], "SUCCESS")
    assert outcome.scored() == expected, outcome.output
    if scenario == "tools_call":
        (add,) = [c for c in outcome.checks if c["id"] == "tool-add-numbers"]
        assert add["details"] == {"a": 2, "b": 3, "result": 5}
        assert outcome.calls() == [
            {
                "tool": "conformance__add_numbers",
                "status": "success",
                "responseText": "The sum of 2 and 3 is 5",
            }
        ], outcome.output
    elif scenario == "sse-retry":
        # The result only arrives on the stream resumed with Last-Event-ID.
        assert outcome.calls() == [
            {
                "tool": "conformance__test_reconnection",
                "status": "success",
                "responseText": "Reconnection test completed successfully",
            }
        ], outcome.output
    else:
        assert outcome.calls() == [], outcome.output


@pytest.mark.parametrize("scenario", AUTH_SCENARIOS)
def test_auth_scenario_passes(suite: list[str], scenario: str, tmp_path: Path) -> None:
    """Login as ``qwen-tools mcp auth`` does, then a session with the stored tokens."""
    outcome = run_scenario(suite, scenario, tmp_path / "results")
    assert outcome.returncode == 0, outcome.output
    assert "OVERALL: PASSED" in outcome.output, outcome.output
    scored = outcome.scored()
    assert scored and set(scored.values()) == {"SUCCESS"}, outcome.output
    # where the server must be refused (a resource of another origin, endless 401s) no tool
    # is ever called; elsewhere the session calls the tool with the stored tokens
    expected = [] if scenario in REFUSED else ["success"]
    assert [c["status"] for c in outcome.calls()] == expected, outcome.output
