"""The pure-Python ``grep_search`` engine: ripgrep's walk and matching, without ``rg``.

Used when no ripgrep binary runs (or ``tools.useRipgrep`` is off) and for patterns ripgrep's
regex syntax rejects. It gives what ``rg --json --ignore-case`` with the reference's flags gives:

* **Files.** Search roots are taken as given (a file root is always searched, as text, whatever
  it holds). Below a directory root, symbolic links and special files are skipped, and an entry
  is decided in ripgrep's order: the ``--glob`` override first, then the ignore files —
  ``.rgignore``, ``.ignore``, ``.gitignore``, ``.git/info/exclude``, the global git excludes
  file, the ``--ignore-file`` files — then hidden names (a leading dot) are skipped. Within each
  kind the deepest directory with a matching pattern decides; ignore files of the root's parent
  directories count too. Git rules apply only inside a repository (a ``.git`` here or above)
  and stop at the innermost repository's top; ``--no-ignore-vcs`` (``respect_git_ignore``
  off) drops them. ``--ignore-file`` patterns are matched against the absolute path without
  its leading slash, as ripgrep does, so only unanchored ones take effect.
* **Contents.** A UTF-16 byte-order mark selects UTF-16 (decoded), a UTF-8 one is dropped.
  Binary files found by the walk are cut where ripgrep stops reading: at the first read of its
  64 KiB line buffer that contains a NUL byte (the first read is 3 bytes long, the size of
  its BOM sniff), so only the lines completed by earlier reads are searched.
* **Lines.** The pattern is translated by :mod:`._regex_translate`; a line whose bytes are not
  UTF-8 keeps its number but loses its text, and a file name that is not UTF-8 is shown with
  U+FFFD replacements, as the reference decodes ripgrep's output.

* **Confinement.** Every file is read through a descriptor that is known to lie inside the
  allowed roots (:meth:`SearchRequest.allowed_roots`): a search root is opened and its real
  location checked; each directory below it is opened without following a final symlink and
  checked; each file is opened by name through its directory's descriptor, never through a
  symlink, and non-blocking. A swap by another process is seen as a read error.

The 20 MB output cap is approximated (ripgrep's JSON is not reproduced byte for byte);
cancellation and read errors behave as with ``rg`` (a read error makes the search incomplete,
as ripgrep's exit status 2 does). At the time limit the search stops with what it found and
:func:`._ripgrep.timeout_message`. :mod:`._grep_worker` runs this engine in a process that can
be killed, since one runaway regular expression cannot be interrupted otherwise.
"""

from __future__ import annotations

import os
import re
import stat
import time
from dataclasses import dataclass

from qwen_tools.config.ignore_rules import IgnoreSource, load_ignore_file
from qwen_tools.contract.abort import AbortSignal
from qwen_tools.fs.confined import ConfinedOpener, open_confined
from qwen_tools.tools.grep.regex_translate import (
    NEWLINE_ERROR,
    LineRegex,
    RegexUnsupported,
    compile_line_regex,
)
from qwen_tools.tools.grep.rg_glob import GlobError, Override, compile_override
from qwen_tools.tools.grep.rg_sandbox import global_excludes_path
from qwen_tools.tools.grep.ripgrep import (
    ABORTED_MESSAGE,
    MAX_BUFFER,
    GrepMatch,
    SearchOutcome,
    SearchRequest,
    timeout_message,
)

__all__ = ["python_search"]

_CAPACITY = 1 << 16
_READ_SIZE = 1 << 18
_SURROGATE = re.compile("[\ud800-\udfff]")
_RGIGNORE, _IGNORE, _GITIGNORE, _EXCLUDE = range(4)
_RG_NEWLINE = (
    f"rg: {NEWLINE_ERROR}\n\nConsider enabling multiline mode with the --multiline flag (or -U "
    "for short).\nWhen multiline mode is enabled, new line characters can be matched.\n"
)
_Sources = tuple[tuple[int, IgnoreSource], ...]


@dataclass(frozen=True, slots=True)
class _Dir:
    """Ignore state for the entries of one directory: sources per kind, deepest first."""

    sources: tuple[_Sources, _Sources, _Sources, _Sources]
    in_git: bool

    def child(self, path: str, names: set[str], respect_git: bool) -> _Dir:
        base = len(path.rstrip("/")) + 1
        has_git = respect_git and ".git" in names

        def own(name: str, inherited: _Sources) -> _Sources:
            if name not in names:
                return inherited
            source = load_ignore_file(os.path.join(path, name), "", name)
            return ((base, source), *inherited) if source is not None else inherited

        rgignore = own(".rgignore", self.sources[_RGIGNORE])
        ignore = own(".ignore", self.sources[_IGNORE])
        git: _Sources = () if has_git else self.sources[_GITIGNORE]
        exclude: _Sources = () if has_git else self.sources[_EXCLUDE]
        if respect_git:
            git = own(".gitignore", git)
        if has_git:
            source = load_ignore_file(_exclude_path(path), "", "exclude")
            exclude = ((base, source),) if source is not None else ()
        return _Dir((rgignore, ignore, git, exclude), self.in_git or has_git)

    def decide(self, path: str, is_dir: bool, extra: _Sources) -> bool | None:
        """True (ignored), False (whitelisted) or None, by ripgrep's precedence."""
        for kind, sources in enumerate(self.sources):
            if kind >= _GITIGNORE and not self.in_git:
                break
            for base, source in sources:
                verdict = source.check(path[base:], is_dir)
                if verdict is not None:
                    return verdict
        for base, source in extra:  # global git excludes (git only), then --ignore-file
            if base < 0 and not self.in_git:
                continue
            verdict = source.check(path[1:], is_dir)
            if verdict is not None:
                return verdict
        return None


def _exclude_path(directory: str) -> str:
    """``.git/info/exclude`` of a work tree (following a ``gitdir:`` file)."""
    dot_git = os.path.join(directory, ".git")
    git_dir = dot_git
    if os.path.isfile(dot_git):
        try:
            with open(dot_git, encoding="utf-8", errors="replace") as fh:
                git_dir = os.path.join(
                    directory, fh.readline().strip().removeprefix("gitdir:").strip()
                )
            with open(os.path.join(git_dir, "commondir"), encoding="utf-8") as fh:
                git_dir = os.path.join(git_dir, fh.read().strip())
        except OSError:
            pass
    return os.path.join(git_dir, "info", "exclude")


def _global_excludes(request: SearchRequest) -> IgnoreSource | None:
    """git's global excludes file (``core.excludesFile``, else ``$XDG_CONFIG_HOME/git/ignore``)."""
    path = request.git_excludes if request.git_excludes is not None else global_excludes_path()
    return load_ignore_file(path, "", "excludesFile")


def _parents(root: str, respect_git: bool) -> _Dir:
    """The ignore state built from the ancestors of ``root`` (its own files included)."""
    chain = [root]
    while (parent := os.path.dirname(chain[-1])) != chain[-1]:
        chain.append(parent)
    state = _Dir(((), (), (), ()), False)
    for directory in reversed(chain):
        names = {n for n in (".git", ".gitignore", ".ignore", ".rgignore") if _exists(directory, n)}
        state = state.child(directory, names, respect_git)
    return state


def _exists(directory: str, name: str) -> bool:
    return os.path.lexists(os.path.join(directory, name))


def _quit_offset(data: bytes, first_read: int) -> int:
    """How many leading bytes ripgrep searches before its binary check stops it (NUL present).

    Models a fresh line buffer: reads fill a 64 KiB buffer (growing threefold when a line does
    not fit), the very first read is ``first_read`` bytes, and a read containing a NUL ends the
    search before anything in it is searched.
    """
    nul = data.find(b"\0")
    capacity, end, searched = _CAPACITY, 0, 0
    while True:
        while True:
            used = end - searched
            if used >= capacity:
                capacity *= 3
            size = min(capacity - used, first_read, len(data) - end)
            first_read = len(data)
            start, end = end, end + size
            if size == 0 or nul < end:
                return searched
            newline = data.rfind(b"\n", start, end)
            if newline >= 0:
                searched = newline + 1
                break


def _decode(data: bytes, explicit: bool) -> str:
    """The text ripgrep searches in a file's bytes."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        codec = "utf-16-le" if data[:2] == b"\xff\xfe" else "utf-16-be"
        data = data[2:].decode(codec, "replace").encode("utf-8", "surrogatepass")
        first_read = len(data)
    elif data[:3] == b"\xef\xbb\xbf":
        data, first_read = data[3:], len(data)
    else:
        first_read = 3
    if not explicit and b"\0" in data:
        data = data[: _quit_offset(data, first_read)]
    return data.decode("utf-8", "surrogateescape")


def _scan(text: str, line_regex: LineRegex, path: str, out: list[GrepMatch]) -> int:
    """Append the matching lines of ``text``; returns their approximate JSON size."""
    regex = line_regex.pick(text)
    size, size_text, pos, line, counted = 0, len(text), 0, 1, 0
    phantom_end = size_text == 0 or text[-1] == "\n"
    bad = not text.isascii() and _SURROGATE.search(text) is not None
    while (m := regex.search(text, pos)) is not None:
        start = m.start()
        if start >= size_text and phantom_end:
            break
        line += text.count("\n", counted, start)
        counted = start
        begin = text.rfind("\n", 0, start) + 1
        stop = text.find("\n", start)
        content = text[begin : stop if stop >= 0 else size_text]
        if stop >= 0 and content.endswith("\r"):
            content = content[:-1]
        if bad and _SURROGATE.search(content):
            content = ""
        out.append(GrepMatch(path, line, content))
        size += 2 * len(path) + 2 * len(content) + 160
        if stop < 0:
            break
        pos = stop + 1
    return size + (3 * len(path) + 400 if size else 0)


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
        extra: list[tuple[int, IgnoreSource]] = []
        if request.respect_git_ignore and (excludes := _global_excludes(request)) is not None:
            extra.append((-1, excludes))
        for ignore_file in reversed(request.ignore_files):
            if (source := load_ignore_file(ignore_file, "", ignore_file)) is not None:
                extra.append((0, source))
        self.extra: _Sources = tuple(extra)

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
        text = _decode(data, explicit)
        if not path.isascii() and _SURROGATE.search(path):  # a name that is not UTF-8
            path = path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        self.size += _scan(text, self.regex, path, self.matches)

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
        pending = [(root, _parents(os.path.dirname(root.rstrip("/")) or "/", respect_git))]
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

    A glob ripgrep rejects fails like ``rg`` does; a pattern :mod:`._regex_translate` cannot
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
