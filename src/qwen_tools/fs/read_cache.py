"""The session's file-read cache, and the prior-read check edit and write_file run.

Entries are keyed by the file's identity ``(st_dev, st_ino)``, so one file reached through a
hard link or a symlink shares its entry; the fingerprint is ``(st_mtime_ns, st_size)``. Each
entry remembers whether the last read was full (whole request, not truncated) and cacheable
(plain text, as opposed to image / PDF / binary / notebook payloads), and whether the model
wrote the file since.

Qwen Code 0.24.4 rules (``services/fileReadCache.ts``, ``tools/priorReadEnforcement.ts``):

* Re-reading a file whose fingerprint did not change keeps the "full" and "cacheable" flags
  once set (a full read followed by a partial one still counts as full); after a change the
  flags are exactly those of the new read.
* A write records the new fingerprint as a full, cacheable read, so editing right after an
  edit needs no read; it also disarms read_file's "unchanged" fast path until the next read.
* A file system without inode numbers (``st_ino == 0``) is never cached, and the check refuses
  it ("unverifiable").
* At most 4,096 entries are kept; the least recently touched goes first.

The check's outcomes, messages and error types are those of the reference, verbatim (the
tool names are ``read_file`` and ``notebook_edit``; the dashes are U+2014).
"""

from __future__ import annotations

import errno
import os
import stat
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Literal, TypeAlias

from qwen_tools.contract.errors import ToolErrorType
from qwen_tools.contract.tool_names import ToolNames

__all__ = ["FileReadCache", "PriorReadProblem", "PriorReadVerb"]

PriorReadVerb: TypeAlias = Literal["edit", "overwrite"]

_MAX_ENTRIES = 4096
_READ_FILE = ToolNames.READ_FILE
_NOTEBOOK_EDIT = "notebook_edit"
_DASH = "\u2014"


@dataclass(frozen=True)
class PriorReadProblem:
    """Why a mutation must not go ahead: the model-facing message and its error type."""

    message: str
    error_type: ToolErrorType
    display_message: str = ""
    """The short text the reference shows the user (``Error: <display>`` on the write path)."""


@dataclass
class _Entry:
    path: str
    mtime_ns: int
    size: int
    read_seq: int | None = None
    read_full: bool = False
    read_cacheable: bool = False
    write_seq: int | None = None


_Key: TypeAlias = tuple[int, int]


def _key(info: os.stat_result) -> _Key | None:
    """The identity of a file, or ``None`` when the file system has no inode numbers."""
    return (info.st_dev, info.st_ino) if info.st_ino > 0 else None


def _stat(path: str, given: os.stat_result | None) -> os.stat_result | None:
    if given is not None:
        return given
    try:
        return os.stat(path)
    except (OSError, ValueError):
        return None


class FileReadCache:
    """What the model has read or written this session, for prior-read enforcement.

    Thread-safe. ``enabled=False`` (the reference's ``fileReadCacheDisabled``) turns the check
    and the fast path off and stops recording reads.
    """

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self._entries: OrderedDict[_Key, _Entry] = OrderedDict()
        self._lock = threading.Lock()
        self._seq = 0

    # -- recording ------------------------------------------------------------------------

    def _upsert(self, key: _Key, path: str, info: os.stat_result) -> tuple[_Entry, bool]:
        """The entry for ``key`` with the new fingerprint; also whether it was unchanged."""
        entry = self._entries.pop(key, None)
        same = (
            entry is not None and entry.mtime_ns == info.st_mtime_ns and entry.size == info.st_size
        )
        if entry is None:
            while len(self._entries) >= _MAX_ENTRIES:
                self._entries.popitem(last=False)
            entry = _Entry(path, info.st_mtime_ns, info.st_size)
        entry.path, entry.mtime_ns, entry.size = path, info.st_mtime_ns, info.st_size
        self._entries[key] = entry
        self._seq += 1
        return entry, same

    def record_read(
        self,
        path: str,
        *,
        full: bool,
        cacheable: bool = True,
        truncated: bool = False,
        stat_result: os.stat_result | None = None,
    ) -> None:
        """Record a successful read of ``path``.

        ``full``: the request asked for the whole file (no offset, limit or pages);
        ``truncated``: the output was cut anyway (the read then does not count as full);
        ``cacheable``: the model received plain text. ``stat_result`` is the status the
        content was read under (default: ``stat`` it now). A file that cannot be stat'ed is
        not recorded.
        """
        if not self.enabled:
            return
        info = _stat(path, stat_result)
        key = None if info is None else _key(info)
        if info is None or key is None:
            return
        is_full = full and not truncated
        with self._lock:
            entry, same = self._upsert(key, path, info)
            entry.read_seq = self._seq
            if same:
                entry.read_full = entry.read_full or is_full
                entry.read_cacheable = entry.read_cacheable or cacheable
            else:
                entry.read_full, entry.read_cacheable = is_full, cacheable

    def record_write(
        self, path: str, *, cacheable: bool = True, stat_result: os.stat_result | None = None
    ) -> None:
        """Record that the model wrote ``path`` (call after the write, with its new status).

        The write counts as a full read of the new content (``cacheable=False`` for structured
        writers such as notebook cell edits), and read_file's fast path stays off until the
        next read.
        """
        info = _stat(path, stat_result)
        key = None if info is None else _key(info)
        if info is None or key is None:
            return
        with self._lock:
            # an atomic write replaced the file: forget the inode it freed, which a new file
            # could reuse and then pass for the one read before
            for stale in [k for k, e in self._entries.items() if e.path == path and k != key]:
                del self._entries[stale]
            entry, _same = self._upsert(key, path, info)
            entry.read_seq = entry.write_seq = self._seq
            entry.read_full, entry.read_cacheable = True, cacheable

    # -- persistence (named CLI sessions) -------------------------------------------------

    def export_entries(self) -> list[dict[str, object]]:
        """The entries as JSON-friendly dicts, least recently touched first."""
        with self._lock:
            return [
                {"dev": key[0], "ino": key[1], **vars(entry)}
                for key, entry in self._entries.items()
            ]

    def import_entries(self, entries: list[dict[str, object]]) -> None:
        """Restore :meth:`export_entries`' output (malformed entries are skipped).

        Entries stay sound across processes: a file changed since is "stale" by its
        fingerprint, and one replaced has another identity (a reused inode with the same
        fingerprint is the one case no fingerprint can tell, as within one process).
        """
        with self._lock:
            for raw in entries[-_MAX_ENTRIES:]:
                try:
                    entry = _Entry(
                        path=str(raw["path"]),
                        mtime_ns=int(raw["mtime_ns"]),  # type: ignore[call-overload]
                        size=int(raw["size"]),  # type: ignore[call-overload]
                        read_seq=_opt_int(raw.get("read_seq")),
                        read_full=raw.get("read_full") is True,
                        read_cacheable=raw.get("read_cacheable") is True,
                        write_seq=_opt_int(raw.get("write_seq")),
                    )
                    key = (int(raw["dev"]), int(raw["ino"]))  # type: ignore[call-overload]
                except (KeyError, TypeError, ValueError):
                    continue
                self._entries.pop(key, None)
                self._entries[key] = entry
                self._seq = max(self._seq, entry.read_seq or 0, entry.write_seq or 0)
            while len(self._entries) > _MAX_ENTRIES:
                self._entries.popitem(last=False)

    # -- queries --------------------------------------------------------------------------

    def _lookup(self, info: os.stat_result) -> tuple[str, _Entry | None]:
        """``("unverifiable" | "unknown" | "stale" | "fresh", entry)`` for a file's status."""
        key = _key(info)
        if key is None:
            return "unverifiable", None
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return "unknown", None
            snapshot = _Entry(**vars(entry))
        fresh = snapshot.mtime_ns == info.st_mtime_ns and snapshot.size == info.st_size
        return ("fresh" if fresh else "stale"), snapshot

    def is_unchanged_since_full_read(
        self, path: str, stat_result: os.stat_result | None = None
    ) -> bool:
        """read_file's fast path: the last read was full, untruncated and cacheable, nothing was
        written since, and the file's fingerprint has not changed.

        ``stat_result`` is the status of the file as the caller opened it (``fstat`` of the
        descriptor the workspace checked); read_file always passes it, so the answer is about
        the object it would read, never about whatever the name reaches by now. Without it
        the name is stat'ed (for tests and diagnostics).
        """
        if not self.enabled:
            return False
        info = _stat(path, stat_result)
        if info is None:
            return False
        state, entry = self._lookup(info)
        return (
            state == "fresh"
            and entry is not None
            and entry.read_seq is not None
            and entry.read_full
            and entry.read_cacheable
            and (entry.write_seq is None or entry.read_seq > entry.write_seq)
        )

    def check_prior_read(
        self, path: str, verb: PriorReadVerb, *, expect_existing: bool = False
    ) -> PriorReadProblem | None:
        """Whether the model may ``verb`` the file at ``path``: ``None`` when it may.

        A missing file is fine (a new file) unless ``expect_existing`` (the checks after the
        file was read and just before writing it).
        """
        if not self.enabled:
            return None
        try:
            info = os.stat(path)
        except FileNotFoundError:
            if not expect_existing:
                return None
            return _disappeared(path, verb)
        except OSError as exc:
            code = errno.errorcode.get(exc.errno or 0, "unknown error")
            return _stat_failed(path, verb, code)
        except ValueError:  # an embedded NUL; Node rejects the argument itself
            return _stat_failed(path, verb, "ERR_INVALID_ARG_VALUE")
        if stat.S_ISDIR(info.st_mode):
            return _directory(path, verb)
        if not stat.S_ISREG(info.st_mode):
            return _special_file(path, verb)
        state, entry = self._lookup(info)
        if state == "fresh" and entry is not None and entry.read_seq is not None:
            return None if entry.read_cacheable else _not_text(path, verb)
        if state == "stale":
            return _stale(path, verb)
        if state == "unverifiable":
            return _unverifiable(path, verb)
        return _never_read(path, verb)


# -- messages (Qwen Code 0.24.4, tools/priorReadEnforcement.ts) ---------------------------


def _opt_int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _gerund(verb: PriorReadVerb) -> str:
    return "editing" if verb == "edit" else "overwriting"


def _disappeared(path: str, verb: PriorReadVerb) -> PriorReadProblem:
    return PriorReadProblem(
        f"File {path} disappeared after the model read it (stat now returns ENOENT). "
        f"Re-read with the {_READ_FILE} tool {_DASH} the path may have been deleted or moved "
        f"{_DASH} before retrying {_gerund(verb)} it.",
        ToolErrorType.FILE_CHANGED_SINCE_READ,
        f"file disappeared after last read; re-run {_READ_FILE} first.",
    )


def _stat_failed(path: str, verb: PriorReadVerb, code: str) -> PriorReadProblem:
    return PriorReadProblem(
        f"Could not stat {path} to verify prior read ({code}). Re-read with the {_READ_FILE} "
        f"tool, then retry {_gerund(verb)} it.",
        ToolErrorType.PRIOR_READ_VERIFICATION_FAILED,
        f"cannot verify prior read of {path}; re-run {_READ_FILE} before "
        f"{_gerund(verb)} this file.",
    )


def _directory(path: str, verb: PriorReadVerb) -> PriorReadProblem:
    return PriorReadProblem(
        f"{path} is a directory. The Edit / WriteFile tools only operate on regular files. Use "
        f"a different mechanism (e.g. the shell tool) if you need to {verb} the contents of "
        "this directory.",
        ToolErrorType.TARGET_IS_DIRECTORY,
        f"path is a directory; cannot {verb} via this tool.",
    )


def _special_file(path: str, verb: PriorReadVerb) -> PriorReadProblem:
    return PriorReadProblem(
        f"{path} is a FIFO / socket / character or block device. The Edit / WriteFile tools "
        f"only operate on regular files; the {_READ_FILE} tool also rejects these targets. Use "
        "a different mechanism (e.g. shell tool with the appropriate command) if you need to "
        f"{verb} this path.",
        ToolErrorType.EDIT_REQUIRES_PRIOR_READ,
        f"special file; cannot {verb} via this tool.",
    )


def _stale(path: str, verb: PriorReadVerb) -> PriorReadProblem:
    return PriorReadProblem(
        f"File {path} has been modified since you last read it (mtime or size changed). "
        f"Re-read it with the {_READ_FILE} tool before {_gerund(verb)} it to ensure your "
        "changes are based on current content.",
        ToolErrorType.FILE_CHANGED_SINCE_READ,
        f"file changed since last read; re-run {_READ_FILE} first.",
    )


def _unverifiable(path: str, verb: PriorReadVerb) -> PriorReadProblem:
    return PriorReadProblem(
        f"File {path} is on a filesystem that does not provide a verifiable inode identity "
        f"(ino=0), so the {verb} tool cannot safely confirm a prior read. Use a different "
        f"mechanism (for example, the shell tool) to {verb} this file.",
        ToolErrorType.PRIOR_READ_VERIFICATION_FAILED,
        f"cannot verify prior read of {path}; use a different mechanism to {verb} it.",
    )


def _not_text(path: str, verb: PriorReadVerb) -> PriorReadProblem:
    return PriorReadProblem(
        f"File {path} is a binary / image / audio / video / PDF / notebook payload that the "
        f"{_READ_FILE} tool returns as a structured value rather than as plain text. The Edit "
        f"/ WriteFile tools cannot mutate that payload safely {_DASH} re-reading it would not "
        "change this. If this is a Jupyter notebook (.ipynb), use the "
        f"{_NOTEBOOK_EDIT} tool for cell-level edits after reading it. For other non-text "
        "files, use a different mechanism (e.g. shell tool with an appropriate writer) if you "
        f"need to {verb} it.",
        ToolErrorType.EDIT_REQUIRES_PRIOR_READ,
        f"non-text payload; cannot {verb} via this tool.",
    )


def _never_read(path: str, verb: PriorReadVerb) -> PriorReadProblem:
    if verb == "edit":
        guidance = (
            f"(a partial read with offset / limit is fine {_DASH} you only need to have seen "
            "the bytes you intend to edit)"
        )
    else:
        guidance = (
            f"(read the full file {_DASH} overwriting replaces every byte, so any unseen bytes "
            "would be discarded)"
        )
    return PriorReadProblem(
        f"File {path} has not been read in this session. Use the {_READ_FILE} tool first to "
        f"load the current content {guidance} before {_gerund(verb)} it.",
        ToolErrorType.EDIT_REQUIRES_PRIOR_READ,
        f"{_READ_FILE} required before {_gerund(verb)} this file.",
    )
