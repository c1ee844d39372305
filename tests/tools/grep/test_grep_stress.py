"""Batches of grep_search calls over a large tree always finish (no hang, no child left).

The hang this guards against: a search cut short at the output cap stopped reading rg's stdout;
on Python 3.11 ``Process.wait()`` waits for every pipe's EOF, which a paused pipe never read,
so about one batch in ten waited forever with no child left. Here the cap is lowered so that
most searches of each batch hit it, and 20 batches of 10 concurrent calls run over a tree of
5,000 files. Each batch gets a generous bound that only fails when it never finishes.
"""

from __future__ import annotations

import asyncio
import os
import random
from pathlib import Path

import pytest

import qwen_tools.tools.grep.ripgrep as ripgrep_module
from qwen_tools import Config, ToolCallRequest, ToolRegistry
from qwen_tools.execution.scheduler import ToolScheduler
from qwen_tools.tools.grep.tool import GrepTool

FILES = 5_000
BATCHES = 20
WORDS = ["alpha", "beta", "gamma", "delta", "return", "value", "config", "error", "print"]
CALLS = [
    {"pattern": "needle"},
    {"pattern": "config"},
    {"pattern": "alpha beta"},
    {"pattern": "print", "glob": "*.txt"},
    {"pattern": "error", "path": "pkg1"},
    {"pattern": "zzz_nowhere"},
    {"pattern": "value", "limit": 5},
    {"pattern": "gamma|delta"},
    {"pattern": "return"},
    {"pattern": "needle", "path": "pkg0/mod1"},
]


@pytest.fixture(scope="module")
def big_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = Path(os.path.realpath(tmp_path_factory.mktemp("stress"))) / "ws"
    rng = random.Random(5)
    for i in range(FILES):
        directory = root / f"pkg{i // 1000}" / f"mod{(i // 100) % 10}"
        directory.mkdir(parents=True, exist_ok=True)
        lines = [" ".join(rng.choices(WORDS, k=6)) for _ in range(rng.randint(3, 12))]
        if i % 50 == 0:
            lines.append(f"the needle ({i})")
        (directory / f"file{i:05d}.txt").write_text("\n".join(lines) + "\n")
    return root


async def test_batches_never_hang(big_tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ripgrep_module, "MAX_BUFFER", 100_000)  # most searches hit the cap
    config = Config(big_tree)
    scheduler = ToolScheduler(ToolRegistry([GrepTool(config, engine="ripgrep")]), config)
    capped = 0
    for batch in range(BATCHES):
        requests = [
            ToolCallRequest("grep_search", dict(args), f"b{batch}c{i}")
            for i, args in enumerate(CALLS)
        ]
        done = await asyncio.wait_for(scheduler.schedule(requests), 120)
        assert [c.status for c in done] == ["success"] * len(CALLS)
        capped += sum("(truncated, incomplete)" in str(c.display) for c in done)
    assert capped >= BATCHES  # the cap really was hit, batch after batch
