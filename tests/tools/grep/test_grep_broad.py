"""Broad searches: what the answer cuts is counted and ordered, never decoded.

rg's ``match`` events are read for their path only (:class:`RgMatch`); the line number and
text are decoded when the answer shows the line. These tests attack that shortcut with paths
and lines JSON must escape, and check the order of files against the component order.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from qwen_tools.tools.grep import ripgrep as ripgrep_module
from qwen_tools.tools.grep.ripgrep import GrepMatch, RgMatch, _Collector, _decode_match
from support.grep_tools import ENGINES, run, write

TRICKY_PATHS = [
    "/w/plain.txt",
    '/w/quote".txt',
    "/w/back\\slash.txt",
    "/w/new\nline.txt",
    "/w/caf\u00e9 \u00fc\u4e2d.txt",
    '/w/"},"lines":{"text":"x"}.txt',
    "/w/tab\t.txt",
]


def _event(path: str, line: int, text: str) -> bytes:
    event = {
        "type": "match",
        "data": {
            "path": {"text": path},
            "lines": {"text": text},
            "line_number": line,
            "absolute_offset": 0,
            "submatches": [{"match": {"text": '"line_number":9'}, "start": 0, "end": 1}],
        },
    }
    return json.dumps(event, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


def test_match_events_read_lazily_give_what_json_gives() -> None:
    collector = _Collector()
    lines = [_event(p, i + 1, f'say "hi" \\ {p}\n') for i, p in enumerate(TRICKY_PATHS)]
    collector.feed(b"".join(lines))
    assert len(collector.matches) == len(TRICKY_PATHS)
    for raw, match in zip(lines, collector.matches, strict=True):
        expected = _decode_match(raw.rstrip(b"\n"))
        assert expected is not None
        assert (match.path, match.line, match.text) == (
            expected.path,
            expected.line,
            expected.text,
        )


def test_plain_paths_are_not_decoded_until_shown() -> None:
    collector = _Collector()
    collector.feed(b"".join(_event("/w/a.txt", n, f"line {n}\n") for n in range(1, 1001)))
    matches = collector.matches
    assert all(isinstance(m, RgMatch) for m in matches)
    assert [m.path for m in matches] == ["/w/a.txt"] * 1000
    assert not any(m._decoded is not None for m in matches if isinstance(m, RgMatch))
    assert matches[5] == GrepMatch("/w/a.txt", 6, "line 6")
    decoded = [m for m in matches if isinstance(m, RgMatch) and m._decoded is not None]
    assert decoded == [matches[5]]


def test_an_event_cut_by_the_output_cap_is_not_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    raw = _event("/w/a.txt", 1, "x\n")
    monkeypatch.setattr(ripgrep_module, "MAX_BUFFER", len(raw) * 2 + 5)
    collector = _Collector()
    assert not collector.take(raw * 3)
    assert collector.finish(keep_last_line=False)
    assert [(m.path, m.line) for m in collector.matches] == [("/w/a.txt", 1)] * 2


NAMES = ["a/b.txt", "a-b.txt", "a.txt", "a b/c.txt", "ab/c.txt", "a/b/c.txt", "A.txt", "a0.txt"]


@pytest.mark.parametrize("engine", ENGINES)
async def test_files_are_ordered_by_path_components(tmp_path: Path, engine: str) -> None:
    root = Path(os.path.realpath(tmp_path))
    for name in NAMES:
        write(root, name, "needle\nneedle\n")
    text = await run(root, {"pattern": "needle"}, engine)
    shown = [line.rsplit(":", 2)[0] for line in text.splitlines()[2:]]
    expected = sorted((str(root / n) for n in NAMES), key=lambda p: p.split("/"))
    assert shown == [p for p in expected for _ in range(2)]
    assert text.startswith(f'Found {2 * len(NAMES)} matches for pattern "needle"')


@pytest.mark.parametrize("engine", ENGINES)
async def test_a_broad_search_counts_every_match_and_shows_the_limit(
    tmp_path: Path, engine: str
) -> None:
    root = Path(os.path.realpath(tmp_path))
    for i in range(30):
        write(root, f"d{i % 3}/f{i:02d}.txt", "".join(f"hit {n}\n" for n in range(100)))
    text = await run(root, {"pattern": "hit", "limit": 5}, engine)
    lines = text.splitlines()
    assert lines[0].startswith("Found 3000 matches")
    assert lines[2:7] == [f"{root}/d0/f00.txt:{n + 1}:hit {n}" for n in range(5)]
    assert lines[-1] == "[2995 lines truncated] ..."
