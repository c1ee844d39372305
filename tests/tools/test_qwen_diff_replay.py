"""Replay the recorded qwen-diff sample through our pipeline, in one session, byte for byte.

The workspace is prepared as the harness's ``prepare_workspace`` does. Every scripted call runs
in order through ``run_tool_call`` (YOLO mode, one shared session, so reads recorded by earlier
calls count for later edits), and the text the model would receive is compared with what Qwen
Code 0.24.4 sent. Calls are compared for every tool we implement, except the documented
differences listed in ``DIFFERENCES``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from qwen_tools import ApprovalMode, Config, ToolCallRequest, build_registry, run_tool_call
from support.workspaces import QWEN_DIFF, prepare_qwen_diff_workspace

RESULTS = json.loads((QWEN_DIFF / "results.json").read_text(encoding="utf-8"))["calls"]

DIFFERENCES = {
    # read_many_files is one of the seeds' tools: we implement it, 0.24.4 removed it.
    "call_qd_25_0": "read_many_files is implemented here; Qwen Code 0.24.4 answers 'not found in registry'",
    # ... so README.md was already read in full by call_qd_25_0, and the later full read of the
    # unchanged file takes read_file's "unchanged since last read" fast path.
    "call_qd_34_0": "README.md was read by read_many_files earlier (see call_qd_25_0)",
}


def _substitute(value: Any, ws: str) -> Any:
    if isinstance(value, str):
        return value.replace("{{WS}}", ws)
    if isinstance(value, dict):
        return {k: _substitute(v, ws) for k, v in value.items()}
    if isinstance(value, list):
        return [_substitute(v, ws) for v in value]
    return value


def _arguments(raw: Any, ws: str) -> Any:
    if isinstance(raw, str):  # malformed JSON: Qwen Code repaired it by closing the object
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError:
            raw = json.loads(raw + "}")
    return _substitute(raw, ws)


@pytest.fixture(scope="module")
def replay(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, str, str]]:
    """Run the whole sample once; map call id to (tool, expected, actual)."""
    import asyncio

    ws = Path(os.path.realpath(tmp_path_factory.mktemp("replay"))) / "ws"
    prepare_qwen_diff_workspace(ws)
    home = ws.parent / "home"
    config = Config(ws, approval_mode=ApprovalMode.YOLO, home_dir=home / ".qwen")
    registry = build_registry(config)
    outcome: dict[str, tuple[str, str, str]] = {}

    async def run_all() -> None:
        for call in RESULTS:
            request = ToolCallRequest(
                call["name"], _arguments(call["arguments"], str(ws)), call["id"]
            )
            done = await run_tool_call(registry, config, request)
            expected = call["result"].replace("{{WS}}", str(ws))
            outcome[call["id"]] = (call["name"], expected, done.response_text)

    asyncio.run(run_all())
    return outcome


IMPLEMENTED = {
    "list_directory",
    "read_file",
    "glob",
    "grep_search",
    "write_file",
    "edit",
    "read_many_files",
    "run_shell_command",
}
CASES = [c for c in RESULTS if c["name"] in IMPLEMENTED and c["id"] not in DIFFERENCES]


@pytest.mark.parametrize(
    "call_id", [c["id"] for c in CASES], ids=[f"{c['id']}-{c['name']}" for c in CASES]
)
def test_call_matches_recording(replay: dict[str, tuple[str, str, str]], call_id: str) -> None:
    _tool, expected, actual = replay[call_id]
    assert actual == expected


def test_every_recorded_call_is_replayed_or_listed(replay: dict[str, tuple[str, str, str]]) -> None:
    names = {c["name"] for c in RESULTS}
    assert names <= IMPLEMENTED
    assert len(replay) == len(RESULTS)


def test_listed_differences_are_what_we_expect(replay: dict[str, tuple[str, str, str]]) -> None:
    _tool, _expected, many = replay["call_qd_25_0"]
    assert many.startswith("--- ") and many.rstrip().endswith("--- End of content ---")
    _tool, _expected, unchanged = replay["call_qd_34_0"]
    assert unchanged.startswith("[File README.md unchanged since last read in this session")
