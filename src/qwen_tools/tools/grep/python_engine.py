"""The pure-Python ``grep_search`` engine: ripgrep's walk and matching, without ``rg``.

Used when no ripgrep binary runs (or ``tools.useRipgrep`` is off) and for patterns ripgrep's
regex syntax rejects. It gives what ``rg --json --ignore-case`` with the reference's flags gives:

* **Files.** Search roots are taken as given (a file root is always searched, as text, whatever
  it holds). Below a directory root, symbolic links and special files are skipped, and the
  other entries are decided by ripgrep's ignore rules (:mod:`.walk_ignores`).
* **Contents and lines** as ripgrep decodes and matches them (:mod:`.line_scan`).
* **Confinement.** Every file is read through a descriptor that is known to lie inside the
  allowed roots (:meth:`SearchRequest.allowed_roots`): a search root is opened and its real
  location checked; each directory below it is opened without following a final symlink and
  checked; each file is opened by name through its directory's descriptor, never through a
  symlink, and non-blocking. A swap by another process is seen as a read error.

The 20 MB output cap is approximated (ripgrep's JSON is not reproduced byte for byte);
cancellation and read errors behave as with ``rg`` (a read error makes the search incomplete,
as ripgrep's exit status 2 does). At the time limit the search stops with what it found and
:func:`.ripgrep.timeout_message`. :mod:`.worker` runs this engine in a process that can
be killed, since one runaway regular expression cannot be interrupted otherwise.
"""

from __future__ import annotations

import os
import stat
import time

from qwen_tools.contract.abort import AbortSignal
from qwen_tools.fs.confined import ConfinedOpener, open_confined
from qwen_tools.tools.grep.line_scan import decode, scan, shown_path
from qwen_tools.tools.grep.regex_translate import (
    NEWLINE_ERROR,
    LineRegex,
    RegexUnsupported,
    compile_line_regex,
)
from qwen_tools.tools.grep.rg_glob import GlobError, Override, compile_override
from qwen_tools.tools.grep.ripgrep import (
    ABORTED_MESSAGE,
    MAX_BUFFER,
    GrepMatch,
    SearchOutcome,
    SearchRequest,
    timeout_message,
)
from qwen_tools.tools.grep.walk_ignores import Sources, extra_sources, parents_ignores

__all__ = ["python_search"]

_READ_SIZE = 1 << 18
_RG_NEWLINE = (
    f"rg: {NEWLINE_ERROR}\n\nConsider enabling multiline mode with the --multiline flag (or -U "
    "for short).\nWhen multiline mode is enabled, new line characters can be matched.\n"
)
_FILE_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC
_ENTRY_FLAGS = _FILE_FLAGS | os.O_NOFOLLOW


def _read_all(fd: int) -> bytes:
    chunk = os.read(fd, _READ_SIZE)
    if len(chunk) < _READ_SIZE:
        return chunk
    parts = [chunk]
    while chunk := os.read(fd, _READ_SIZE):
        parts.append(chunk)
    return b"".join(parts)


def _read_entry(name: str, directory_fd: int) -> bytes:
    """A file of an open directory, by its name there: never through a symlink swapped in.

    Opened non-blocking, so a FIFO swapped in reads as empty (or fails) instead of hanging.
    """
    fd = os.open(name, _ENTRY_FLAGS, dir_fd=directory_fd)
    try:
        return _read_all(fd)
    finally:
        os.close(fd)


class _Search:
    """One run over all roots; stops at the deadline, on abort or past the output cap."""

    def __init__(self, request: SearchRequest, regex: LineRegex, override: Override | None,
                 signal: AbortSignal, deadline: float) -> None:  # fmt: skip
        self.request = request
        self.regex = regex
        self.override = override
        self.signal = signal
        self.deadline = deadline
        self.matches: list[GrepMatch] = []
        self.size = 0
        self.errored = False
        self.stopped: str | None = None
        self.roots = request.allowed_roots()
        self.open_dir = ConfinedOpener(self.roots, os.O_RDONLY | os.O_NOFOLLOW, directory=True).open
        cwd = request.cwd.rstrip("/")
        self.cwd_prefix = cwd + "/"
        self.extra: Sources = extra_sources(request)

    def check_stop(self) -> bool:
        if self.stopped is None:
            if self.signal.aborted:
                self.stopped = ABORTED_MESSAGE
            elif time.monotonic() > self.deadline:
                self.stopped = timeout_message(self.request.time_limit())
            elif self.size > MAX_BUFFER:
                self.stopped = "stdout maxBuffer length exceeded"
        return self.stopped is not None

    def search_bytes(self, path: str, data: bytes, explicit: bool) -> None:
        self.size += scan(decode(data, explicit), self.regex, shown_path(path), self.matches)

    def run(self) -> None:
        for root in self.request.paths:
            if self.check_stop():
                return
            try:  # a root given explicitly is followed through symlinks, as rg does
                fd = open_confined(root, self.roots, _FILE_FLAGS)
            except OSError:
                self.errored = True
                continue
            try:
                mode = os.fstat(fd).st_mode
                if stat.S_ISDIR(mode):
                    self.walk(root, fd)
                elif stat.S_ISREG(mode):
                    self.search_bytes(root, _read_all(fd), explicit=True)
                else:
                    self.errored = True
            except OSError:
                self.errored = True
            finally:
                os.close(fd)

    def walk(self, root: str, root_fd: int) -> None:
        """Search beneath ``root`` (open as ``root_fd``), each directory opened and checked.

        A directory below the root is opened without following a final symlink and checked to
        lie inside the allowed roots; its files are opened through the directory's descriptor,
        by name, without following symlinks. So whatever is swapped in on the way, no file
        outside the roots is read.
        """
        respect_git = self.request.respect_git_ignore
        pending = [(root, parents_ignores(os.path.dirname(root.rstrip("/")) or "/", respect_git))]
        override, cwd_prefix = self.override, self.cwd_prefix
        while pending and not self.check_stop():
            directory, parent_state = pending.pop()
            try:
                fd = root_fd if directory is root else self.open_dir(directory)
            except OSError:
                self.errored = True
                continue
            try:
                with os.scandir(fd) as listing:
                    entries = list(listing)
                names = {entry.name for entry in entries}
                state = parent_state.child(directory, names, respect_git)
                prefix = directory if directory.endswith("/") else directory + "/"
                for entry in entries:
                    is_dir = entry.is_dir(follow_symlinks=False)
                    if not is_dir and not entry.is_file(follow_symlinks=False):
                        continue
                    path = prefix + entry.name
                    verdict = None
                    if override is not None:
                        relative = path[len(cwd_prefix) :] if path.startswith(cwd_prefix) else path
                        verdict = override.decide(relative, is_dir)
                    if verdict is None:
                        verdict = state.decide(path, is_dir, self.extra)
                        if verdict is None and entry.name.startswith("."):
                            verdict = True
                    if verdict:
                        continue
                    if is_dir:
                        pending.append((path, state))
                        continue
                    try:
                        data = _read_entry(entry.name, fd)
                    except OSError:
                        self.errored = True
                        continue
                    self.search_bytes(path, data, explicit=False)
            except OSError:
                self.errored = True
            finally:
                if fd != root_fd:
                    os.close(fd)


def python_search(request: SearchRequest, signal: AbortSignal, deadline: float) -> SearchOutcome:
    """Search as ``rg`` would for ``request`` (blocking; run it in a worker thread).

    A glob ripgrep rejects fails like ``rg`` does; a pattern :mod:`.regex_translate` cannot
    express fails with its message (``output_empty`` set, no matches).
    """
    override: Override | None = None
    if request.glob:
        try:
            override = compile_override(request.glob)
        except GlobError as exc:
            failed = request.command_failed(f"rg: {exc}\n")
            return SearchOutcome(error=failed, output_empty=True)
    try:
        regex = compile_line_regex(request.pattern)
    except RegexUnsupported as exc:
        message = str(exc)
        if message == NEWLINE_ERROR:  # ripgrep's own wording for this one
            message = request.command_failed(_RG_NEWLINE)
        return SearchOutcome(error=message, output_empty=True)
    search = _Search(request, regex, override, signal, deadline)
    search.run()
    outcome = SearchOutcome(matches=search.matches)
    if search.stopped is not None:
        outcome.error = search.stopped
        outcome.output_empty = not search.matches
    elif search.errored:
        outcome.error = request.command_failed()
    outcome.incomplete = outcome.error is not None and not outcome.output_empty
    return outcome
