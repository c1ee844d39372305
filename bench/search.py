"""``grep_search`` and ``glob`` on 50,000 files compared with raw ``rg``.

Run: ``.venv/bin/python bench/search.py [--runs N] [--files N] [--profile python|ripgrep|glob]``.

The tree (nested directories of small text files, one file in 50 containing the pattern, a
git repository whose ``.gitignore`` hides a directory and ``*.tmp``) is generated once and
cached in the temporary directory. The script then times, interleaved and in one process:

* ``grep_search`` end to end (``build`` + ``execute`` on one ``Config``, ripgrep engine)
  against ``rg`` run as a subprocess with the same arguments, output captured (target ≤ 1.3×);
  ``grep_search`` runs rg confined by Landlock, which makes the kernel check every open: the
  same ``rg`` run confined the same way (no tool around it) is timed too, so the ratio to it
  shows what the tool itself costs;
* the same call with the pure-Python engine against that ``rg`` run (target ≤ 5×);
* ``glob`` with ``**/*.txt`` against ``rg --files -g '*.txt'`` (target ≤ 1.5×). ``glob``
  stops collecting at 1,000 matches (as Qwen Code does), so this walk ends early; a pattern
  matching ten files (``**/file0000?.txt``), which makes both walk the whole tree, is timed too.

Broad patterns too (``--broad-runs N``, 0 to skip): ten patterns (two adjacent words) that
each match about 23,000 lines, about 12 MB of ``rg --json`` (under the 20 MB the tool keeps
before it kills rg), of which the answer shows 1,000 and counts the rest. Timed: one
``qwen-tools call --batch`` of the ten ``grep_search`` calls (a fresh process, as a user runs
it) against the ten same ``rg`` commands run one after the other (target ≤ 1.3×).

It prints the median of each and the ratios. ``--profile`` shows where one of the three spends
its time (cProfile, top functions by cumulative time).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import pstats
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from qwen_tools.config.config import Config
from qwen_tools.contract.abort import AbortSignal
from qwen_tools.contract.declarative import BaseDeclarativeTool
from qwen_tools.sandbox.landlock import abi_version, spawn_confined
from qwen_tools.tools.glob.tool import GlobTool
from qwen_tools.tools.grep.rg_sandbox import rg_confinement
from qwen_tools.tools.grep.ripgrep import SearchRequest, find_ripgrep
from qwen_tools.tools.grep.tool import GrepTool

PATTERN = "needle"
WORDS = ["alpha", "beta", "gamma", "delta", "return", "value", "config", "error", "print"]
BROAD = [f"{a} {b}" for a, b in zip(WORDS, WORDS[1:] + WORDS[:1], strict=True)] + [
    "alpha \\w+ beta"
]


def _tree(files: int) -> Path:
    """The cached benchmark tree with ``files`` text files (built on first use)."""
    root = Path(tempfile.gettempdir()) / f"qwen-tools-bench-search-{files}" / "ws"
    marker = root.parent / "complete"
    if marker.exists():
        return root
    rng = random.Random(files)
    root.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".gitignore").write_text("ignored/\n*.tmp\n")
    for i in range(files):
        directory = root / f"pkg{i // 1000:02d}" / f"mod{(i // 100) % 10}" / f"part{(i // 20) % 5}"
        directory.mkdir(parents=True, exist_ok=True)
        lines = [" ".join(rng.choices(WORDS, k=6)) for _ in range(rng.randint(3, 12))]
        if i % 50 == 0:
            lines.insert(rng.randrange(len(lines)), f"the {PATTERN} is here ({i})")
        (directory / f"file{i:05d}.txt").write_text("\n".join(lines) + "\n")
    for i in range(500):  # ignored content the tools must skip
        (root / "ignored").mkdir(exist_ok=True)
        (root / "ignored" / f"junk{i}.txt").write_text(f"{PATTERN}\n")
        (root / f"pkg00/scratch{i}.tmp").write_text(f"{PATTERN}\n")
    marker.write_text("ok\n")
    return root


def _run_tool(
    tool: BaseDeclarativeTool[Any], params: dict[str, Any], runner: asyncio.Runner
) -> float:
    start = time.perf_counter()
    result = runner.run(tool.build(dict(params)).execute(AbortSignal.never()))
    elapsed = time.perf_counter() - start
    if not isinstance(result.llm_content, str) or not result.llm_content.startswith("Found"):
        raise RuntimeError(f"{tool.name} failed: {result.llm_content!r}"[:300])
    return elapsed


def _run_command(argv: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def _run_confined(argv: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    policy, env = rg_confinement(argv[0], (str(cwd),), True)
    process = spawn_confined(
        argv, policy, cwd=cwd, env=env,
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    process.communicate()
    return time.perf_counter() - start


def _broad(root: Path, rg: str, runs: int) -> None:
    """Ten broad searches: one ``call --batch`` against the ten ``rg`` commands."""
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as batch:
        for pattern in BROAD:
            batch.write(json.dumps({"name": "grep_search", "args": {"pattern": pattern}}) + "\n")
    cli = [sys.executable, "-m", "qwen_tools", "call", "--batch", batch.name, "--json"]
    commands = [[rg, *SearchRequest(p, (str(root),), str(root)).rg_args()] for p in BROAD]
    ours: list[float] = []
    raw: list[float] = []
    try:
        for i in range(runs + 1):  # the first round warms the page cache
            start = time.perf_counter()
            done = subprocess.run(cli, cwd=root, capture_output=True, check=False)
            took = time.perf_counter() - start
            if done.returncode != 0 or done.stdout.count(b"Found ") < len(BROAD):
                raise RuntimeError(f"call --batch failed: {done.stderr[-500:]!r}")
            rg_took = sum(_run_command(argv, root) for argv in commands)
            if i:
                ours.append(took)
                raw.append(rg_took)
    finally:
        os.unlink(batch.name)
    ours_ms, raw_ms = _median_ms(ours), _median_ms(raw)
    ratio = ours_ms / raw_ms
    print(f"broad patterns ({len(BROAD)} searches), median of {runs} runs")
    print(f"  {'call --batch grep_search':<28}: {ours_ms:8.1f} ms")
    print(f"  {'rg --json, one by one':<28}: {raw_ms:8.1f} ms")
    verdict = "met" if ratio <= 1.3 else "MISSED"
    print(f"  {'batch / rg':<27}: {ratio:5.2f}x  (target ≤ 1.3x: {verdict})")


def _median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--files", type=int, default=50_000)
    parser.add_argument("--profile", choices=["python", "ripgrep", "glob"])
    parser.add_argument("--broad-runs", type=int, default=3)
    args = parser.parse_args()
    rg = find_ripgrep()
    if rg is None:
        raise SystemExit("no working rg found (install the ripgrep wheel)")
    root = _tree(args.files)
    config = Config(root)
    rg_grep = [rg, *SearchRequest(PATTERN, (str(root),), str(root)).rg_args()]
    rg_files = [rg, "--files", "-g", "*.txt", str(root)]
    rg_few = [rg, "--files", "-g", "file0000?.txt", str(root)]
    grep_params = {"pattern": PATTERN}
    glob_params = {"pattern": "**/*.txt"}
    few_params = {"pattern": "**/file0000?.txt"}
    jobs: dict[str, Callable[[asyncio.Runner], float]] = {
        "grep_search (ripgrep)": lambda r: _run_tool(
            GrepTool(config, engine="ripgrep"), grep_params, r
        ),
        "grep_search (python)": lambda r: _run_tool(
            GrepTool(config, engine="python"), grep_params, r
        ),
        "rg --json (same flags)": lambda r: _run_command(rg_grep, root),
        "rg --json, confined": lambda r: _run_confined(rg_grep, root),
        "glob **/*.txt": lambda r: _run_tool(GlobTool(config), glob_params, r),
        "rg --files -g '*.txt'": lambda r: _run_command(rg_files, root),
        "glob **/file0000?.txt": lambda r: _run_tool(GlobTool(config), few_params, r),
        "rg --files -g file0000?.txt": lambda r: _run_command(rg_few, root),
    }
    if abi_version() == 0:
        del jobs["rg --json, confined"]  # grep_search then runs the Python engine instead
    with asyncio.Runner() as runner:
        if args.profile:
            name = {"python": "grep_search (python)", "ripgrep": "grep_search (ripgrep)"}
            job = jobs[name.get(args.profile, "glob **/*.txt")]
            job(runner)
            profiler = cProfile.Profile()
            profiler.runcall(job, runner)
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)
            return
        samples: dict[str, list[float]] = {name: [] for name in jobs}
        for job in jobs.values():  # warm the page cache and lazily built tables
            job(runner)
        for _ in range(args.runs):  # interleaved, so load from elsewhere hits all alike
            for name, job in jobs.items():
                samples[name].append(job(runner))
    medians = {name: _median_ms(values) for name, values in samples.items()}
    print(f"{args.files} files, {os.cpu_count()} CPUs, median of {args.runs} runs")
    for name, value in medians.items():
        print(f"  {name:<28}: {value:8.1f} ms")
    rg_ms, files_ms = medians["rg --json (same flags)"], medians["rg --files -g '*.txt'"]
    for label, ours, base, target in (
        ("grep_search (ripgrep) / rg", medians["grep_search (ripgrep)"], rg_ms, 1.3),
        ("grep_search (python) / rg", medians["grep_search (python)"], rg_ms, 5.0),
        ("glob / rg --files", medians["glob **/*.txt"], files_ms, 1.5),
        (
            "glob (full walk) / rg",
            medians["glob **/file0000?.txt"],
            medians["rg --files -g file0000?.txt"],
            1.5,
        ),
    ):
        ratio = ours / base
        if label == "grep_search (ripgrep) / rg" and "rg --json, confined" in medians:
            own = ours / medians["rg --json, confined"]
            print(f"  {'grep_search (ripgrep) / rg confined':<27}: {own:5.2f}x")
        print(
            f"  {label:<27}: {ratio:5.2f}x  (target ≤ {target}x: {'met' if ratio <= target else 'MISSED'})"
        )

    if args.broad_runs > 0:
        _broad(root, rg, args.broad_runs)


if __name__ == "__main__":
    main()
