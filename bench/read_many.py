"""``read_many_files`` on 1,000 small files compared with ``cat`` of the same files (target ≤ 1.5×).

Run: ``.venv/bin/python bench/read_many.py [--files N] [--runs N] [--profile]``. The script
writes N small text files (three short lines each) into a temporary workspace, then times

* the tool in-process: ``build({"paths": ["**/*.txt"]})`` + ``execute()`` on one session's
  ``Config``, in one event loop (search, ignore checks, reading, formatting, read-cache
  records, the hop to a worker thread), and
* ``cat`` of the same files as one subprocess, output captured,

interleaved, and prints the median of each and their ratio. ``--profile`` prints where the tool's time
goes (cProfile, top functions by cumulative time).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from qwen_tools.config.config import Config
from qwen_tools.contract.abort import AbortSignal
from qwen_tools.tools.read_many_files.tool import ReadManyFilesTool


def _make_files(root: Path, count: int) -> list[str]:
    paths = []
    for i in range(count):
        directory = root / f"pkg{i // 100:02d}"
        directory.mkdir(exist_ok=True)
        path = directory / f"module_{i:04d}.txt"
        path.write_text(f"first line of file {i}\nsecond line\nthird line, the last\n")
        paths.append(str(path))
    return sorted(paths)


def _time_tool(tool: ReadManyFilesTool, runner: asyncio.Runner) -> float:
    start = time.perf_counter()
    invocation = tool.build({"paths": ["**/*.txt"]})
    result = runner.run(invocation.execute(AbortSignal.never()))
    elapsed = time.perf_counter() - start
    if result.error is not None or not isinstance(result.llm_content, list):
        raise RuntimeError(f"read_many_files failed: {result.error}")
    return elapsed


def _time_cat(paths: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(["cat", *paths], check=True, stdout=subprocess.PIPE)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, asyncio.Runner() as runner:
        root = Path(os.path.realpath(tmp)) / "ws"
        root.mkdir()
        paths = _make_files(root, args.files)
        tool = ReadManyFilesTool(Config(root))
        for _ in range(2):  # warm the page cache and the lazily built tables
            _time_tool(tool, runner)
            _time_cat(paths)
        tool_samples, cat_samples = [], []
        for _ in range(args.runs):  # interleaved, so load from elsewhere hits both alike
            tool_samples.append(_time_tool(tool, runner))
            cat_samples.append(_time_cat(paths))
        ours = statistics.median(tool_samples) * 1000
        cat = statistics.median(cat_samples) * 1000
        print(f"read_many_files ({args.files} files): {ours:7.1f} ms (median of {args.runs})")
        print(f"cat of the same files         : {cat:7.1f} ms (median of {args.runs})")
        print(f"ratio                         : {ours / cat:7.2f}x  (target <= 1.5x)")
        if args.profile:
            profiler = cProfile.Profile()
            profiler.runcall(_time_tool, tool, runner)
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)


if __name__ == "__main__":
    main()
