"""Cold start of the CLI and of a session, as ratios to ``python -c pass`` measured in the same run.

Run: ``.venv/bin/python bench/startup.py [--runs N] [--before SRC]``. Each CLI sample is a fresh
process (the medians are what a user, a script or a rollout worker waits for); the commands are
interleaved so a busy machine slows them alike. Each sample's CPU time (user + system, from
``wait4``) is reported beside its wall time: on a shared machine the wall time carries the
other processes' load, the CPU time much less. Measured:

* ``qwen-tools --help``, ``qwen-tools tools``;
* the floor: a bare interpreter importing the standard modules a call cannot do without
  (``asyncio`` for the lifecycle, ``argparse``, ``json``, ``pathlib``, ``dataclasses``,
  ``hashlib``, ``shutil``), and the same without ``asyncio``;
* ``qwen-tools call read_file`` on a one-line file and ``call list_directory`` on a one-file
  directory (target: ``call read_file`` under 4x ``python -c pass``);
* a :class:`qwen_tools.Session` in-process, after ``import qwen_tools``: importing ``Session``,
  then opening one (settings, workspace, the default registry; ``async with Session(cwd)``,
  closed again; target under 5 ms) the first time in a fresh process (what it imports on the
  way included) and a second time in the same process.

The CLI is run as ``python -m qwen_tools`` with this interpreter, so ``PYTHONPATH=<tree>/src``
measures another checkout. ``--before <tree>/src`` measures that checkout too, in the same run
(each of its commands interleaved with ours), for before/after numbers from one run.
``PYTHONDONTWRITEBYTECODE`` is dropped from the children's environment: the warm-up runs write
the bytecode, as an installed package has it.
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
start = time.perf_counter()
Session = qwen_tools.Session
imported = (time.perf_counter() - start) * 1000
async def main():
    took = []
    for _ in range(2):
        start = time.perf_counter()
        async with Session(sys.argv[1]):
            took.append((time.perf_counter() - start) * 1000)
    print(imported, *took)
asyncio.run(main())
"""

_FLOOR = "argparse, json, pathlib, dataclasses, hashlib, shutil"
"""What a call imports from the standard library besides ``asyncio``."""

_SESSION_PARTS = ("import Session", "open Session, first", "open Session, again")

_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _env(src: str | None) -> dict[str, str]:
    return _ENV if src is None else {**_ENV, "PYTHONPATH": src}


def _once_ms(cmd: list[str], cwd: str, src: str | None = None) -> tuple[float, float]:
    """Wall time and CPU time (user + system) of one run of ``cmd``, in ms."""
    start = time.perf_counter()
    child = subprocess.Popen(
        cmd, cwd=cwd, env=_env(src), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, status, usage = os.wait4(child.pid, 0)
    wall = (time.perf_counter() - start) * 1000
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise subprocess.CalledProcessError(child.returncode, cmd)
    return wall, (usage.ru_utime + usage.ru_stime) * 1000


def _open_session_ms(cwd: str, src: str | None = None) -> tuple[float, float, float]:
    out = subprocess.run(
        [sys.executable, "-c", _OPEN_SESSION, cwd],
        check=True,
        capture_output=True,
        text=True,
        env=_env(src),
    )
    imported, first, again = out.stdout.split()
    return float(imported), float(first), float(again)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--json", action="store_true", help="print the medians as JSON")
    parser.add_argument(
        "--before",
        metavar="SRC",
        help="also measure the package under SRC (another checkout's src/), interleaved",
    )
    args = parser.parse_args()
    trees: dict[str, str | None] = {"": None}
    if args.before:
        trees = {" (before)": str(Path(args.before).resolve()), "": None}
    cli = [sys.executable, "-m", "qwen_tools"]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp, "work")
        work.mkdir()
        (work / "a.txt").write_text("hello\n")
        read = json.dumps({"file_path": str(work / "a.txt")})
        listing = json.dumps({"path": str(work)})
        cli_commands = {
            "qwen-tools --help": [*cli, "--help"],
            "qwen-tools tools": [*cli, "tools"],
            "call read_file": [*cli, "call", "read_file", read],
            "call list_directory": [*cli, "call", "list_directory", listing],
        }
        commands: dict[str, tuple[list[str], str | None]] = {
            "python -c pass": ([sys.executable, "-c", "pass"], None),
            "floor: stdlib + asyncio": ([sys.executable, "-c", f"import {_FLOOR}, asyncio"], None),
            "floor: stdlib": ([sys.executable, "-c", f"import {_FLOOR}"], None),
        }
        for name, cmd in cli_commands.items():
            for label, src in trees.items():
                commands[name + label] = (cmd, src)
        for cmd, src in commands.values():  # warm the file cache, as a second call would be
            _once_ms(cmd, str(work), src)
        samples: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
        sessions: dict[str, list[tuple[float, float, float]]] = {label: [] for label in trees}
        for _ in range(args.runs):
            for name, (cmd, src) in commands.items():
                samples[name].append(_once_ms(cmd, str(work), src))
            for label, src in trees.items():
                sessions[label].append(_open_session_ms(str(work), src))
    wall = {name: statistics.median(w for w, _ in values) for name, values in samples.items()}
    cpu = {name: statistics.median(c for _, c in values) for name, values in samples.items()}
    opened = {
        label: [statistics.median(run[i] for run in runs) for i in range(3)]
        for label, runs in sessions.items()
    }
    if args.json:
        extra = {
            f"{part}{label}": value
            for label, values in opened.items()
            for part, value in zip(_SESSION_PARTS, values, strict=True)
        }
        cpu_named = {f"{name} (cpu)": value for name, value in cpu.items()}
        print(json.dumps({**wall, **cpu_named, **extra}, indent=2))
        return
    base_wall, base_cpu = wall["python -c pass"], cpu["python -c pass"]
    print(f"medians of {args.runs} fresh processes each: wall time, CPU time (user + system)")
    for name in wall:
        print(
            f"{name:31}: {wall[name]:7.1f} ms {wall[name] / base_wall:6.2f}x   "
            f"cpu {cpu[name]:7.1f} ms {cpu[name] / base_cpu:6.2f}x  (x python -c pass)"
        )
    for label, values in opened.items():
        for part, value in zip(_SESSION_PARTS, values, strict=True):
            print(f"{part + label:31}: {value:7.2f} ms  (in-process, after import qwen_tools)")
    for label in ("", " (cpu)"):
        measure = wall if not label else cpu
        ratio = measure["call read_file"] / measure["python -c pass"]
        print(f"call read_file < 4x{label:6}: {'met' if ratio < 4 else 'MISSED'} ({ratio:.2f}x)")
    _, first, again = opened[""]
    for name, value in (("first", first), ("again", again)):
        print(
            f"open Session < 5 ms   : {'met' if value < 5 else 'MISSED'} ({name}: {value:.2f} ms)"
        )


if __name__ == "__main__":
    main()
