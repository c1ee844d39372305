"""Replay the recorded qwen-diff sample against our tools, byte for byte.

The workspace is prepared as the harness does (fixture copied, ``_gitignore`` renamed, ``git
init``, every mtime set to 2001-01-01 UTC). The sample's ``write_file`` and ``edit`` calls are
reproduced by writing the same bytes directly (with increasing recent mtimes), so the later
``read_file`` and ``glob`` calls see the state Qwen Code saw. Every ``list_directory``,
``read_file`` and ``glob`` call is then made as the model's calls are (``run_tool_call``) and
compared with the text the model received.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from qwen_tools import Config, ToolCallRequest, build_registry, run_tool_call
from support.workspaces import QWEN_DIFF, prepare_qwen_diff_workspace

OUR_TOOLS = {"list_directory", "read_file", "glob"}


def _load_results() -> list[dict[str, Any]]:
    results = QWEN_DIFF / "results.json"
    assert results.is_file(), f"the recorded qwen-diff results are missing: {results}"
    calls: list[dict[str, Any]] = json.loads(results.read_text(encoding="utf-8"))["calls"]
    return calls


CALLS = _load_results()
REPLAYED = [c for c in CALLS if c["name"] in OUR_TOOLS]


def _substitute(value: Any, ws: str) -> Any:
    if isinstance(value, str):
        return value.replace("{{WS}}", ws)
    if isinstance(value, dict):
        return {k: _substitute(v, ws) for k, v in value.items()}
    if isinstance(value, list):
        return [_substitute(v, ws) for v in value]
    return value


def _arguments(call: dict[str, Any], ws: str) -> dict[str, Any]:
    raw = call["arguments"]
    if isinstance(raw, str):  # malformed JSON that Qwen Code repaired by closing the object
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError:
            raw = json.loads(raw + "}")
    assert isinstance(raw, dict)
    return dict(_substitute(raw, ws))


def _apply_mutation(call: dict[str, Any], args: dict[str, Any], stamp: float) -> None:
    """Reproduce a successful write_file / edit of the recording on disk."""
    result: str = call["result"]
    path = Path(args["file_path"])
    if call["name"] == "write_file" and result.startswith("Successfully"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(args["content"], encoding="utf-8")
    elif call["name"] == "edit" and result.startswith("The file:"):
        text = path.read_text(encoding="utf-8")
        count = -1 if args.get("replace_all") else 1
        path.write_text(text.replace(args["old_string"], args["new_string"], count), "utf-8")
    else:
        return
    os.utime(path, (stamp, stamp))


@pytest.fixture(scope="module")
def replay(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, str]]:
    """Run the whole sample once; map call id to (expected, actual) model-facing text."""
    ws_path = Path(os.path.realpath(tmp_path_factory.mktemp("qwen-diff") / "ws"))
    prepare_qwen_diff_workspace(ws_path)
    ws = str(ws_path)
    config = Config(ws_path)
    registry = build_registry(config)
    base = time.time() - 3600  # mutations are "recent", ordered by turn
    outcome: dict[str, tuple[str, str]] = {}
    for call in CALLS:
        args = _arguments(call, ws)
        if call["name"] in ("write_file", "edit"):
            _apply_mutation(call, args, base + call["turn"])
            continue
        if call["name"] not in OUR_TOOLS:
            continue
        request = ToolCallRequest(call["name"], args, call["id"])
        actual = asyncio.run(run_tool_call(registry, config, request)).response_text
        outcome[call["id"]] = (call["result"].replace("{{WS}}", ws), actual)
    return outcome


def test_recording_has_the_expected_calls() -> None:
    assert len(REPLAYED) == 20
    assert {c["name"] for c in REPLAYED} == OUR_TOOLS


@pytest.mark.parametrize("call_id", [c["id"] for c in REPLAYED])
def test_replayed_call_matches_recording(replay: dict[str, tuple[str, str]], call_id: str) -> None:
    expected, actual = replay[call_id]
    assert actual == expected
