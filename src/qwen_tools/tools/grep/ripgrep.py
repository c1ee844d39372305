"""Run ripgrep for ``grep_search`` the way Qwen Code 0.24.4 does, and the shapes both engines share.

Locating ``rg``: first the binary installed by the ``ripgrep`` wheel (a dependency of this
package: next to ``sys.executable`` or in the interpreter's ``scripts`` directory), then ``rg``
on ``PATH``. A candidate is used only when ``rg --version`` exits 0 and prints ``ripgrep…``;
the choice is made once per process.

Running it (:func:`run_ripgrep`) follows the reference's ``execFile`` call: no shell, the
project root as working directory (so ``--glob`` patterns with a slash are anchored there),
stdout parsed as it streams (only ``match`` events are kept, and of those only the path is
read at once: the line number and text, which a broad search mostly cuts from the answer, are
decoded when asked for, see :class:`RgMatch`), a 10 s timeout (60 s under WSL)
and a 20,000,000-byte output cap, both of which kill ``rg`` and keep the output received so far
minus its last, possibly partial, line. Exit code 1 with an empty stderr means "no match"; any
other failure is reported with Node's wording, ``Command failed: rg <args>\\n<stderr>``. The
program is always named ``rg`` in that text, whichever binary ran, so both engines agree.
``RIPGREP_CONFIG_PATH`` is removed from the environment: a user's ripgrep config file would
change the search in ways the Python engine cannot follow.

Unlike the reference, ``rg`` runs confined by the kernel to the workspace directories
(:mod:`~qwen_tools.tools.grep.rg_sandbox`), started and read from a thread of its own (:mod:`~qwen_tools.tools.grep.search_child`), so
the event loop never waits on it and an abort, a cancellation, the timeout or the output cap
kill it and end the call at once; its stdout and stderr are always read to their end.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from qwen_tools.contract.abort import AbortSignal
from qwen_tools.sandbox.landlock import spawn_confined
from qwen_tools.tools.grep.rg_sandbox import rg_confinement
from qwen_tools.tools.grep.search_child import Child, pump_output, run_blocking

__all__ = [
    "ABORTED_MESSAGE",
    "MAX_BUFFER",
    "AnyMatch",
    "GrepMatch",
    "RgMatch",
    "SearchOutcome",
    "SearchRequest",
    "find_ripgrep",
    "run_ripgrep",
    "search_timeout",
    "timeout_message",
]

MAX_BUFFER = 20_000_000
ABORTED_MESSAGE = "The operation was aborted"
MAX_BUFFER_MESSAGE = "stdout maxBuffer length exceeded"
_MATCH_PREFIX = b'{"type":"match"'
_MATCH_PATH = b'{"type":"match","data":{"path":{"text":"'
_PATH_END = b'"},"lines":'
_CHUNK = 1 << 16


def timeout_message(seconds: float) -> str:
    """What the model is told when the Python engine's search ran out of time."""
    return (
        f"Search timed out after {seconds:g} s: the pattern may be too expensive (or the "
        "search too large); simplify the pattern or narrow the search with path or glob."
    )


def search_timeout() -> float:
    """Seconds a search may run: 10, or 60 under WSL (as the reference decides)."""
    return 60.0 if sys.platform == "linux" and os.environ.get("WSL_INTEROP") else 10.0


@dataclass(frozen=True, slots=True)
class SearchRequest:
    """One search: what ``grep_search`` asks ripgrep (or the Python engine) to do."""

    pattern: str
    paths: tuple[str, ...]
    cwd: str
    glob: str | None = None
    respect_git_ignore: bool = True
    ignore_files: tuple[str, ...] = ()
    roots: tuple[str, ...] = ()
    """The realpath-resolved directories the search may read beneath (the workspace's)."""
    timeout: float | None = None
    """Seconds the search may run; ``None``: :func:`search_timeout`."""
    git_excludes: str | None = None
    """git's global excludes file, as found in the caller's environment (``None``: look it up
    here); the Python engine's worker was started with an environment of its own."""

    def time_limit(self) -> float:
        """The time limit in seconds."""
        return search_timeout() if self.timeout is None else self.timeout

    def allowed_roots(self) -> tuple[str, ...]:
        """``roots``; when none were given, each search path's directory (realpath-resolved)."""
        if self.roots:
            return self.roots
        real = (os.path.realpath(p) for p in self.paths)
        return tuple(p if os.path.isdir(p) else os.path.dirname(p) for p in real)

    def rg_args(self, threads: int = 4) -> list[str]:
        """The arguments after ``rg``, in the reference's order."""
        args = ["--json", "--no-messages", "--path-separator", "/", "--ignore-case"]
        args += ["--regexp", self.pattern]
        if not self.respect_git_ignore:
            args.append("--no-ignore-vcs")
        for ignore_file in self.ignore_files:
            args += ["--ignore-file", ignore_file]
        if self.glob:
            args += ["--glob", self.glob]
        return [*args, "--threads", str(threads), *self.paths]

    def command_failed(self, stderr: str = "") -> str:
        """Node's message for a failed ``execFile``: ``Command failed: rg …\\n<stderr>``."""
        return f"Command failed: rg {' '.join(self.rg_args())}\n{stderr}"


@dataclass(frozen=True, slots=True)
class GrepMatch:
    """One matching line: the path as ripgrep prints it, its number and its text."""

    path: str
    line: int
    text: str


class RgMatch:
    """A ``match`` event of rg's JSON output: the path read at once, the rest on first use.

    A broad search yields tens of thousands of matches that are only counted and ordered by
    path (the answer shows the first ``limit``/1,000 lines): their JSON is never decoded.
    """

    __slots__ = ("_decoded", "_raw", "path")

    def __init__(self, path: str, raw: bytes) -> None:
        self.path = path
        self._raw = raw
        self._decoded: GrepMatch | None = None

    def _full(self) -> GrepMatch:
        if self._decoded is None:
            # rg writes well-formed events; one that is not keeps the path and reads as empty
            self._decoded = _decode_match(self._raw) or GrepMatch(self.path, 0, "")
        return self._decoded

    @property
    def line(self) -> int:
        """The line number."""
        return self._full().line

    @property
    def text(self) -> str:
        """The line's text, without its line ending."""
        return self._full().text

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RgMatch | GrepMatch):
            return (self.path, self.line, self.text) == (other.path, other.line, other.text)
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.path, self.line, self.text))

    def __repr__(self) -> str:
        return f"RgMatch({self.path!r}, {self.line!r}, {self.text!r})"


AnyMatch = GrepMatch | RgMatch
"""A match of either engine (both have ``path``, ``line`` and ``text``)."""


@dataclass(slots=True)
class SearchOutcome:
    """What a search produced.

    ``error`` is the failure message (``Command failed: …``, a timeout, an abort…);
    ``output_empty`` says whether ripgrep printed nothing at all, in which case the reference
    reports the error instead of results. ``regex_rejected`` marks a pattern ripgrep refused.
    """

    matches: Sequence[AnyMatch] = field(default_factory=list)
    incomplete: bool = False
    error: str | None = None
    output_empty: bool = False
    regex_rejected: bool = False


def _decode_match(line: bytes) -> GrepMatch | None:
    """A ``match`` event as the reference reads it (non-UTF-8 line text becomes empty)."""
    try:
        event = json.loads(line)
        data = event["data"]
        path_field = data["path"]
        number = data["line_number"]
    except (ValueError, KeyError, TypeError):
        return None
    if not isinstance(number, int) or isinstance(number, bool):
        return None
    path = path_field.get("text") if isinstance(path_field, dict) else None
    if not isinstance(path, str):
        raw = path_field.get("bytes") if isinstance(path_field, dict) else None
        if not isinstance(raw, str):
            return None
        path = base64.b64decode(raw).decode("utf-8", "replace")
    lines = data.get("lines")
    text = lines.get("text") if isinstance(lines, dict) else None
    text = text if isinstance(text, str) else ""
    if text.endswith("\n"):
        text = text[:-2] if text.endswith("\r\n") else text[:-1]
    return GrepMatch(path, number, text)


# -- locating ripgrep ---------------------------------------------------------------------

_selected: list[str | None] = []


def _candidates() -> list[str]:
    names = ("rg.exe", "rg") if os.name == "nt" else ("rg",)
    dirs = [Path(sys.executable).parent, Path(sysconfig.get_path("scripts"))]
    found = [str(d / n) for d in dirs for n in names]
    on_path = shutil.which("rg")
    return list(dict.fromkeys([*found, *([on_path] if on_path else [])]))


def _healthy(command: str) -> bool:
    try:
        probe = subprocess.run(
            [command, "--version"], capture_output=True, timeout=5, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return probe.returncode == 0 and probe.stdout.startswith(b"ripgrep")


def find_ripgrep() -> str | None:
    """The ``rg`` to use (health-checked once per process), or ``None`` when none works."""
    if not _selected:
        _selected.append(
            next((c for c in _candidates() if os.path.isfile(c) and _healthy(c)), None)
        )
    return _selected[0]


# -- running it ---------------------------------------------------------------------------


class _Collector:
    """Splits streamed stdout into lines, keeps match events, enforces the output cap."""

    def __init__(self) -> None:
        self.matches: list[AnyMatch] = []
        self.pending = b""
        self._segment = b""  # the path of the last match, as rg wrote it, and decoded
        self._path = ""
        self.total = 0
        self.kept_output = False  # a complete, non-blank line was received
        self.overflowed = False

    def feed(self, chunk: bytes) -> None:
        if self.total + len(chunk) > MAX_BUFFER:
            chunk = chunk[: MAX_BUFFER - self.total]
            self.overflowed = True
        self.total += len(chunk)
        lines = (self.pending + chunk).split(b"\n")
        self.pending = lines.pop()
        for line in lines:
            if line.startswith(_MATCH_PREFIX) and (match := self._match(line)) is not None:
                self.matches.append(match)
            if not self.kept_output and line.strip():
                self.kept_output = True

    def _match(self, line: bytes) -> AnyMatch | None:
        """The event's path now (plain text: no escape, so no quote, before the end found);
        anything else (escapes, a path given as bytes) is decoded in full at once."""
        if line.startswith(_MATCH_PATH):
            start = len(_MATCH_PATH)
            end = line.find(_PATH_END, start)
            segment = line[start:end]
            if end > 0 and b"\\" not in segment:
                if segment != self._segment:
                    try:
                        self._path = segment.decode()
                    except UnicodeDecodeError:
                        return _decode_match(line)
                    self._segment = segment
                return RgMatch(self._path, line)
        return _decode_match(line)

    def take(self, chunk: bytes) -> bool:
        """Feed ``chunk``; False once the cap is reached (stop reading)."""
        self.feed(chunk)
        return not self.overflowed

    def finish(self, keep_last_line: bool) -> bool:
        """Take the unterminated tail unless the run was cut short; True if output remains."""
        if keep_last_line and self.pending.strip():
            self.feed(b"\n")
        return self.kept_output


def _drive(
    command: str, request: SearchRequest, threads: int, child: Child
) -> tuple[SearchOutcome, str]:
    """Start ``rg`` confined, stream its output into a :class:`_Collector`, judge how it ended.

    Blocking: runs in the search's own thread (:func:`run_blocking`).
    """
    deadline = time.monotonic() + request.time_limit()
    policy, env = rg_confinement(command, request.allowed_roots(), request.respect_git_ignore)
    popen = spawn_confined(
        [command, *request.rg_args(threads)], policy,
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        cwd=request.cwd, env=env, process_group=0,
    )  # fmt: skip
    child.attach(popen)
    collector = _Collector()
    try:
        raw_stderr, timed_out = pump_output(child, collector.take, deadline)
        returncode = child.reap()
    finally:
        for stream in (popen.stdout, popen.stderr):
            if stream is not None:
                stream.close()
    stderr = raw_stderr.decode("utf-8", "replace")
    aborted = child.stopped
    outcome = SearchOutcome()
    cut_short = aborted or timed_out or collector.overflowed
    has_output = collector.finish(keep_last_line=not cut_short)
    outcome.matches = collector.matches
    outcome.output_empty = not has_output
    if aborted:
        outcome.error = ABORTED_MESSAGE
    elif collector.overflowed:
        outcome.error = MAX_BUFFER_MESSAGE
    elif timed_out:
        outcome.error = request.command_failed(stderr)
    elif returncode != 0 and not (returncode == 1 and not stderr.strip()):
        outcome.error = request.command_failed(stderr)
        outcome.regex_rejected = not has_output and "regex" in stderr
    outcome.incomplete = outcome.error is not None and has_output
    return outcome, stderr


async def _run_once(
    command: str, request: SearchRequest, signal: AbortSignal, threads: int
) -> tuple[SearchOutcome, str]:
    child = Child()
    return await run_blocking(lambda: _drive(command, request, threads, child), child, signal)


def _thread_eagain(stderr: str) -> bool:
    lower = stderr.lower()
    if "os error 11" in lower:
        return True
    busy = "resource temporarily unavailable" in lower or "eagain" in lower
    return busy and ("thread" in lower or "worker" in lower)


async def run_ripgrep(command: str, request: SearchRequest, signal: AbortSignal) -> SearchOutcome:
    """Run ``command`` (an ``rg`` binary) for ``request``; cancelling ``signal`` kills it.

    A failure to start a thread (EAGAIN) is retried once with ``--threads 1``.
    """
    outcome, stderr = await _run_once(command, request, signal, 4)
    if outcome.error and not signal.aborted and _thread_eagain(stderr):
        outcome, _ = await _run_once(command, request, signal, 1)
    return outcome
