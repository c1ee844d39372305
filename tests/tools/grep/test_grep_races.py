"""grep_search reads only inside the workspace while another process swaps names under it.

A :class:`~support.swapper.Swapper` thread keeps replacing a name, atomically, by an inside file
or directory (holding ``inside needle``) and by a symlink to the outside, where every file holds
``SECRET needle`` (under the same names as inside, so a confusion of names would show). Each
scenario runs hundreds of searches with each engine: the searched file itself, a file in the
searched directory, the searched directory, a directory between the searched one and the files,
and a file path through such a directory. No output may ever hold the secret. Counts are
bounded; nothing is timed.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import qwen_tools.tools.grep.ripgrep as ripgrep_module
from qwen_tools.config.config import Config
from qwen_tools.contract.abort import AbortSignal
from qwen_tools.contract.errors import ToolParamsError
from qwen_tools.sandbox import landlock
from qwen_tools.tools.grep.tool import GrepTool
from support.swapper import Swapper

SEARCHES = 150
"""Searches that passed validation (the name was the inside one then) per scenario."""
MIN_SWAPS = 20
MAX_TRIES = 100_000


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    root = Path(os.path.realpath(tmp_path))
    ws, outside = root / "ws", root / "outside"
    for directory in (ws, outside):
        directory.mkdir()
    for name in ("secret.txt", "inside.txt", "x.txt"):
        (outside / name).write_text("SECRET needle\n")
    return ws, outside


SCENARIOS = {
    "the searched file": ("x.txt", False, "x.txt"),
    "a file in the searched directory": ("d/x.txt", False, "d"),
    "the searched directory": ("d", True, "d"),
    "a directory below the searched one": ("a/mid", True, "a"),
    "a directory on the searched file's path": ("a/mid", True, "a/mid/inside.txt"),
}


async def race(ws: Path, outside: Path, engine: str, scenario: str) -> tuple[int, int]:
    """(leaks, searches that found the inside line) over SEARCHES validated searches."""
    swapped, directory, path = SCENARIOS[scenario]
    target = outside if directory else outside / "secret.txt"
    tool = GrepTool(Config(ws), engine=engine)  # type: ignore[arg-type]
    leaks = found = searches = tries = 0
    (ws / swapped).parent.mkdir(parents=True, exist_ok=True)
    with Swapper(ws / swapped, target, directory=directory) as swapper:
        while searches < SEARCHES or swapper.swaps < MIN_SWAPS:
            tries += 1
            assert tries < MAX_TRIES, "the race never let a search through validation"
            try:
                invocation = tool.build({"pattern": "needle", "path": path})
            except ToolParamsError:
                continue  # the outside symlink (or nothing) was there at validation: refused
            searches += 1
            text = (await invocation.execute(AbortSignal())).llm_content
            assert isinstance(text, str)
            leaks += "SECRET" in text
            found += "inside needle" in text
    return leaks, found


@pytest.mark.parametrize("engine", ["ripgrep", "python"])
@pytest.mark.parametrize("scenario", list(SCENARIOS))
async def test_no_leak_under_a_swapping_race(
    layout: tuple[Path, Path], engine: str, scenario: str
) -> None:
    ws, outside = layout
    leaks, found = await race(ws, outside, engine, scenario)
    assert leaks == 0
    assert found > 0  # the race really ran: the inside version was searched too


async def test_without_landlock_ripgrep_gives_way_to_the_python_engine(
    layout: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """No confinement, no rg: the Python engine (which checks what it opens) searches instead."""
    monkeypatch.setenv(landlock.DISABLE_ENV, "off")
    assert landlock.abi_version() == 0

    def no_rg(*args: object, **kwargs: object) -> None:
        raise AssertionError("rg must not run unconfined")

    monkeypatch.setattr(ripgrep_module, "spawn_confined", no_rg)
    ws, outside = layout
    leaks, found = await race(ws, outside, "ripgrep", "a file in the searched directory")
    assert (leaks, found > 0) == (0, True)
