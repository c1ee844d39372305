"""The test suite's time: the whole run's wall time, and where the tests' own time goes.

Run: ``.venv/bin/python bench/suite.py [-n WORKERS] [PYTEST ARGS...]``. It runs pytest once (by
default as ``scripts/check.sh`` does: ``-n 4``, the parallel workers of pytest-xdist), and
prints the wall time, the outcome counts, and per test directory the sum of its tests' times
(setup + call + teardown, from pytest's JUnit XML report) with the slowest tests. Under
parallel workers the sums add up to more than the wall time: they are the work, the wall
time is what a newcomer waits for. ``-n 0`` runs in one process.

Recorded results are in ``bench/suite_time.md``.
"""

from __future__ import annotations

import argparse
import collections
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _directory(classname: str) -> str:
    """``tests.cli.test_cli`` (a JUnit class name) -> ``tests/cli``."""
    parts = classname.split(".")
    return "/".join(parts[:2]) if len(parts) > 2 else parts[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--workers", default="4", help="pytest-xdist workers (0: none)")
    parser.add_argument("--slowest", type=int, default=15, help="slowest tests listed")
    options, extra = parser.parse_known_args()
    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "junit.xml"
        argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        argv += ["-n", options.workers, f"--junitxml={report}", *extra]
        started = time.monotonic()
        proc = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False)
        wall = time.monotonic() - started
        summary = [line for line in proc.stdout.splitlines() if line.strip()][-1:]
        per_dir: dict[str, float] = collections.defaultdict(float)
        counts: collections.Counter[str] = collections.Counter()
        tests: list[tuple[float, str]] = []
        failed: list[str] = []
        for case in ElementTree.parse(report).getroot().iter("testcase"):
            seconds = float(case.get("time", "0"))
            where = _directory(case.get("classname", "?"))
            per_dir[where] += seconds
            counts[where] += 1
            tests.append((seconds, f"{case.get('classname')}::{case.get('name')}"))
            if case.find("failure") is not None or case.find("error") is not None:
                failed.append(tests[-1][1])
    print(f"pytest -n {options.workers}: {wall:.1f} s wall; {' '.join(summary)}")
    total = sum(per_dir.values())
    print(f"{'directory':<20} {'tests':>6} {'seconds':>9} {'share':>6}")
    for where, seconds in sorted(per_dir.items(), key=lambda item: -item[1]):
        share = 100 * seconds / total if total else 0.0
        print(f"{where:<20} {counts[where]:>6} {seconds:>9.1f} {share:>5.1f}%")
    print(f"{'all':<20} {sum(counts.values()):>6} {total:>9.1f}")
    print("slowest tests:")
    for seconds, name in sorted(tests, reverse=True)[: options.slowest]:
        print(f"  {seconds:6.2f} s  {name}")
    for name in failed:
        print(f"FAILED {name}")
    return proc.returncode


if __name__ == "__main__":
    raise SystemExit(main())
