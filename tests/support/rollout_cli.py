"""``qwen-tools rollout`` as a subprocess in a test's directory: writing ``tasks.jsonl``, running
the command against a model URL (piped, or on a pty), and reading ``out.jsonl`` back; records
with what differs between two runs of the same tasks (workspace paths, call ids, timings)
normalised away."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from support.cli_env import isolated_env

__all__ = ["comparable", "records", "rollout", "rollout_env", "write_tasks"]

EXE = Path(sys.executable).with_name("qwen-tools")
_WORKSPACE = re.compile(r"/[^\s\"']*/sessions/[0-9a-f]+/workspace")
_CALL_ID = re.compile(r"call_\d+_\d+")


def rollout_env(tmp_path: Path, url: str, **extra: str) -> dict[str, str]:
    """An isolated environment with the model at ``url`` (and Ray quiet, without auth)."""
    return isolated_env(
        tmp_path,
        OPENAI_BASE_URL=url,
        OPENAI_API_KEY="k",
        OPENAI_MODEL="m",
        RAY_AUTH_MODE="disabled",
        RAY_USAGE_STATS_ENABLED="0",
        **extra,
    )


def rollout(
    tmp_path: Path, url: str, *extra: str, output: str = "out.jsonl", **env: str
) -> subprocess.CompletedProcess[str]:
    """``qwen-tools rollout tasks.jsonl -o OUTPUT EXTRA...`` in ``tmp_path``, piped (``env``:
    more environment variables)."""
    argv = [str(EXE), "rollout", "tasks.jsonl", "-o", output, *extra]
    return subprocess.run(
        argv,
        cwd=tmp_path,
        env=rollout_env(tmp_path, url, **env),
        capture_output=True,
        text=True,
        timeout=300,
    )


def write_tasks(tmp_path: Path, tasks: list[dict[str, Any]]) -> None:
    lines = [json.dumps(task) for task in tasks]
    (tmp_path / "tasks.jsonl").write_text("\n".join(lines) + "\n")


def records(tmp_path: Path, output: str = "out.jsonl") -> dict[str, dict[str, Any]]:
    found = [json.loads(line) for line in (tmp_path / output).read_text().splitlines()]
    return {record["id"]: record for record in found}


def comparable(record: dict[str, Any]) -> Any:
    """``record`` without its timings, with its workspace written ``<WS>`` and its call ids
    numbered in order of appearance (the fake server numbers them across all conversations)."""
    kept = {key: value for key, value in record.items() if key != "timings"}
    kept["tool_calls"] = [
        {key: value for key, value in call.items() if key != "duration_ms"}
        for call in record.get("tool_calls", [])
    ]
    text = _WORKSPACE.sub("<WS>", json.dumps(kept, sort_keys=True))
    ids: dict[str, str] = {}
    text = _CALL_ID.sub(lambda m: ids.setdefault(m.group(0), f"call#{len(ids)}"), text)
    return json.loads(text)
