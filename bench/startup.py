"""Cold start of ``qwen-tools --help`` compared with ``python -c pass`` (target: < 150 ms).

Run: ``.venv/bin/python bench/startup.py [--runs N]``. Each sample is a fresh process; the
script prints the median of each and the difference, so the figure is what a user waits for.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path


def _median_ms(cmd: list[str], runs: int) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    exe = Path(sys.executable).parent / "qwen-tools"
    cli = [str(exe)] if exe.exists() else [shutil.which("qwen-tools") or "qwen-tools"]
    _median_ms([*cli, "--help"], 3)  # warm the file cache, as a second invocation would be
    baseline = _median_ms([sys.executable, "-c", "pass"], args.runs)
    ours = _median_ms([*cli, "--help"], args.runs)
    print(f"python -c pass      : {baseline:7.1f} ms (median of {args.runs})")
    print(f"qwen-tools --help   : {ours:7.1f} ms (median of {args.runs})")
    print(f"ratio               : {ours / baseline:7.2f}x  (overhead {ours - baseline:.1f} ms)")
    print(f"target < 150 ms     : {'met' if ours < 150 else 'MISSED'}")


if __name__ == "__main__":
    main()
