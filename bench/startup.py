"""Cold start of the CLI and of a session, as ratios to ``python -c pass`` measured in the same run.

Run: ``.venv/bin/python bench/startup.py [--runs N]``. Each CLI sample is a fresh process (the
medians are what a user, a script or a rollout worker waits for); the commands are interleaved
so a busy machine slows them alike. Measured:

* ``qwen-tools --help``, ``qwen-tools tools``;
* ``qwen-tools call read_file`` on a one-line file and ``call list_directory`` on a one-file
  directory (target: ``call read_file`` under 4x ``python -c pass``);
* opening a :class:`qwen_tools.Session` in-process after ``import qwen_tools`` (settings,
  workspace, the default registry; ``async with Session(cwd)``, closed again; target under
  5 ms): the first one in a fresh process (it imports what a session needs) and a second one
  in the same process.

The CLI is run as ``python -m qwen_tools`` with this interpreter, so ``PYTHONPATH=<tree>/src``
measures another checkout. ``PYTHONDONTWRITEBYTECODE`` is dropped from the children's
environment: the warm-up runs write the bytecode, as an installed package has it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_OPEN_SESSION = """
import asyncio, sys, time
import qwen_tools
async def main():
    took = []
    for _ in range(2):
        start = time.perf_counter()
        async with qwen_tools.Session(sys.argv[1]):
            took.append((time.perf_counter() - start) * 1000)
    print(*took)
asyncio.run(main())
"""


_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _once_ms(cmd: list[str], cwd: str) -> float:
    start = time.perf_counter()
    subprocess.run(
        cmd, check=True, cwd=cwd, env=_ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    return (time.perf_counter() - start) * 1000


def _open_session_ms(cwd: str) -> tuple[float, float]:
    out = subprocess.run(
        [sys.executable, "-c", _OPEN_SESSION, cwd],
        check=True,
        capture_output=True,
        text=True,
        env=_ENV,
    )
    first, again = out.stdout.split()
    return float(first), float(again)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--json", action="store_true", help="print the medians as JSON")
    args = parser.parse_args()
    cli = [sys.executable, "-m", "qwen_tools"]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp, "work")
        work.mkdir()
        (work / "a.txt").write_text("hello\n")
        read = json.dumps({"file_path": str(work / "a.txt")})
        listing = json.dumps({"path": str(work)})
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "qwen-tools --help": [*cli, "--help"],
            "qwen-tools tools": [*cli, "tools"],
            "call read_file": [*cli, "call", "read_file", read],
            "call list_directory": [*cli, "call", "list_directory", listing],
        }
        for cmd in commands.values():  # warm the file cache, as a second invocation would be
            _once_ms(cmd, str(work))
        samples: dict[str, list[float]] = {name: [] for name in commands}
        sessions: list[tuple[float, float]] = []
        for _ in range(args.runs):
            for name, cmd in commands.items():
                samples[name].append(_once_ms(cmd, str(work)))
            sessions.append(_open_session_ms(str(work)))
    medians = {name: statistics.median(values) for name, values in samples.items()}
    session = statistics.median(first for first, _ in sessions)
    again = statistics.median(second for _, second in sessions)
    baseline = medians["python -c pass"]
    if args.json:
        extra = {"open Session (first)": session, "open Session (again)": again}
        print(json.dumps({**medians, **extra}, indent=2))
        return
    print(f"medians of {args.runs} fresh processes each")
    for name, value in medians.items():
        print(f"{name:22}: {value:7.1f} ms  {value / baseline:5.2f}x python -c pass")
    print(f"{'open Session, first':22}: {session:7.2f} ms  (in-process, after import qwen_tools)")
    print(f"{'open Session, again':22}: {again:7.2f} ms  (the same process, a second one)")
    ratio = medians["call read_file"] / baseline
    print(f"call read_file < 4x   : {'met' if ratio < 4 else 'MISSED'} ({ratio:.2f}x)")
    for label, value in (("first", session), ("again", again)):
        print(
            f"open Session < 5 ms   : {'met' if value < 5 else 'MISSED'} ({label}: {value:.2f} ms)"
        )


if __name__ == "__main__":
    main()
