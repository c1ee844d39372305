"""The qwen-diff harness drives ``qwen-tools`` as it drove Qwen Code 0.24.4; the results must match.

``run_qwen.py`` (stdlib Python, from the shared reference) copies the fixture, starts its fake
model server, runs ``CMD --approval-mode yolo --output-format json --max-session-turns N
PROMPT`` and records every tool message our CLI sent back. Compared with the recorded 0.24.4
results, the only differences are the documented ones (see ``test_qwen_diff_replay.py``):
``read_many_files`` exists here, so README.md was already read when call 34 reads it again.
"""

from __future__ import annotations

import json
import os
import platform
import sys
from pathlib import Path
from typing import Any

import pytest

from support.workspaces import QWEN_DIFF, run_qwen_diff_harness

EXE = Path(sys.executable).with_name("qwen-tools")
RG = Path(sys.executable).with_name("rg")
DIFFERENCES = {"call_qd_25_0", "call_qd_34_0"}


def _cli_with_vendored_rg(root: Path) -> Path:
    """A ``qwen`` wrapper next to ``vendor/ripgrep/<arch>-linux/rg``, as ``--grep-backend ripgrep``
    expects to find beside the CLI it drives."""
    arch = {"x86_64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(platform.machine(), "x64")
    vendor = root / "vendor" / "ripgrep" / f"{arch}-linux"
    vendor.mkdir(parents=True)
    (vendor / "rg").symlink_to(RG)
    wrapper = root / "qwen"
    wrapper.write_text(f'#!/bin/sh\nexec "{EXE}" "$@"\n')
    wrapper.chmod(0o755)
    return wrapper


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, Any]]:
    root = Path(os.path.realpath(tmp_path_factory.mktemp("qwen-diff-run")))
    cli = _cli_with_vendored_rg(root / "bin")
    ours = run_qwen_diff_harness(
        QWEN_DIFF / "sample_script.json", cli, root, "--grep-backend", "ripgrep"
    )
    expected = json.loads((QWEN_DIFF / "results.json").read_text(encoding="utf-8"))
    return expected, ours


def test_every_tool_result_matches(results: tuple[dict[str, Any], dict[str, Any]]) -> None:
    expected, ours = results
    assert len(ours["calls"]) == len(expected["calls"]) == 36
    differing = set()
    for theirs, mine in zip(expected["calls"], ours["calls"], strict=True):
        assert (mine["id"], mine["name"], mine["arguments"]) == (
            theirs["id"],
            theirs["name"],
            theirs["arguments"],
        )
        if mine["result"] != theirs["result"]:
            differing.add(mine["id"])
    assert differing == DIFFERENCES


def test_workspace_after_matches(results: tuple[dict[str, Any], dict[str, Any]]) -> None:
    expected, ours = results
    assert ours["workspace_after"] == expected["workspace_after"]


def test_run_shape_matches(results: tuple[dict[str, Any], dict[str, Any]]) -> None:
    expected, ours = results
    for key in ("exit_code", "n_requests", "n_main_requests", "final_text", "stderr"):
        assert ours[key] == expected[key], key
