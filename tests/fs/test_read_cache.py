"""The file-read cache: every prior-read outcome with its exact 0.24.4 message, and the fast path."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from qwen_tools.contract.errors import ToolErrorType
from qwen_tools.fs.read_cache import FileReadCache, PriorReadProblem, PriorReadVerb

DASH = "\u2014"


def _never_read_edit(p: str) -> str:
    return (
        f"File {p} has not been read in this session. Use the read_file tool first to load the "
        f"current content (a partial read with offset / limit is fine {DASH} you only need to "
        "have seen the bytes you intend to edit) before editing it."
    )


def _never_read_write(p: str) -> str:
    return (
        f"File {p} has not been read in this session. Use the read_file tool first to load the "
        f"current content (read the full file {DASH} overwriting replaces every byte, so any "
        "unseen bytes would be discarded) before overwriting it."
    )


def _stale(p: str, gerund: str) -> str:
    return (
        f"File {p} has been modified since you last read it (mtime or size changed). Re-read it "
        f"with the read_file tool before {gerund} it to ensure your changes are based on "
        "current content."
    )


@pytest.fixture
def cache() -> FileReadCache:
    return FileReadCache()


@pytest.fixture
def file(tmp_path: Path) -> str:
    path = tmp_path / "app.py"
    path.write_text("print('hi')\n")
    return str(path)


def _touch(path: str, delta_ns: int = 5_000_000_000) -> None:
    """Move the mtime without changing the size."""
    info = os.stat(path)
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns + delta_ns))


def _problem(result: PriorReadProblem | None) -> PriorReadProblem:
    assert result is not None
    return result


def test_never_read_edit(cache: FileReadCache, file: str) -> None:
    problem = _problem(cache.check_prior_read(file, "edit"))
    assert problem.message == _never_read_edit(file)
    assert problem.error_type is ToolErrorType.EDIT_REQUIRES_PRIOR_READ
    assert problem.display_message == "read_file required before editing this file."


def test_never_read_write(cache: FileReadCache, file: str) -> None:
    problem = _problem(cache.check_prior_read(file, "overwrite"))
    assert problem.message == _never_read_write(file)
    assert problem.error_type is ToolErrorType.EDIT_REQUIRES_PRIOR_READ
    assert problem.display_message == "read_file required before overwriting this file."


@pytest.mark.parametrize("full", [True, False])
def test_fresh_read_allows_both_verbs(cache: FileReadCache, file: str, full: bool) -> None:
    cache.record_read(file, full=full)
    assert cache.check_prior_read(file, "edit") is None
    assert cache.check_prior_read(file, "overwrite") is None
    assert cache.check_prior_read(file, "edit", expect_existing=True) is None


@pytest.mark.parametrize(("verb", "gerund"), [("edit", "editing"), ("overwrite", "overwriting")])
def test_stale_after_mtime_change(
    cache: FileReadCache, file: str, verb: PriorReadVerb, gerund: str
) -> None:
    cache.record_read(file, full=True)
    _touch(file)
    problem = _problem(cache.check_prior_read(file, verb))
    assert problem.message == _stale(file, gerund)
    assert problem.error_type is ToolErrorType.FILE_CHANGED_SINCE_READ
    assert problem.display_message == "file changed since last read; re-run read_file first."


def test_stale_after_size_change_with_the_same_mtime(cache: FileReadCache, file: str) -> None:
    cache.record_read(file, full=True)
    before = os.stat(file)
    Path(file).write_text("print('hello, world')\n")
    os.utime(file, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(file).st_mtime_ns == before.st_mtime_ns
    problem = _problem(cache.check_prior_read(file, "edit"))
    assert problem.message == _stale(file, "editing")


def test_rereading_after_a_change_makes_it_fresh_again(cache: FileReadCache, file: str) -> None:
    cache.record_read(file, full=True)
    _touch(file)
    cache.record_read(file, full=False)
    assert cache.check_prior_read(file, "edit") is None


def test_recorded_status_is_the_one_given(cache: FileReadCache, file: str) -> None:
    """A read recorded with the status it was read under sees a change that came after."""
    snapshot = os.stat(file)
    _touch(file)
    cache.record_read(file, full=True, stat_result=snapshot)
    assert _problem(cache.check_prior_read(file, "edit")).message == _stale(file, "editing")


@pytest.mark.parametrize(("verb", "bare"), [("edit", "edit"), ("overwrite", "overwrite")])
def test_non_cacheable_read(
    cache: FileReadCache, file: str, verb: PriorReadVerb, bare: str
) -> None:
    cache.record_read(file, full=True, cacheable=False)
    problem = _problem(cache.check_prior_read(file, verb))
    assert problem.message == (
        f"File {file} is a binary / image / audio / video / PDF / notebook payload that the "
        "read_file tool returns as a structured value rather than as plain text. The Edit / "
        f"WriteFile tools cannot mutate that payload safely {DASH} re-reading it would not "
        "change this. If this is a Jupyter notebook (.ipynb), use the notebook_edit tool for "
        "cell-level edits after reading it. For other non-text files, use a different "
        f"mechanism (e.g. shell tool with an appropriate writer) if you need to {bare} it."
    )
    assert problem.error_type is ToolErrorType.EDIT_REQUIRES_PRIOR_READ
    assert problem.display_message == f"non-text payload; cannot {bare} via this tool."


def test_directory(cache: FileReadCache, tmp_path: Path) -> None:
    problem = _problem(cache.check_prior_read(str(tmp_path), "overwrite"))
    assert problem.message == (
        f"{tmp_path} is a directory. The Edit / WriteFile tools only operate on regular files. "
        "Use a different mechanism (e.g. the shell tool) if you need to overwrite the contents "
        "of this directory."
    )
    assert problem.error_type is ToolErrorType.TARGET_IS_DIRECTORY
    assert problem.display_message == "path is a directory; cannot overwrite via this tool."


def test_fifo(cache: FileReadCache, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    problem = _problem(cache.check_prior_read(str(fifo), "edit"))
    assert problem.message == (
        f"{fifo} is a FIFO / socket / character or block device. The Edit / WriteFile tools "
        "only operate on regular files; the read_file tool also rejects these targets. Use a "
        "different mechanism (e.g. shell tool with the appropriate command) if you need to "
        "edit this path."
    )
    assert problem.error_type is ToolErrorType.EDIT_REQUIRES_PRIOR_READ
    assert problem.display_message == "special file; cannot edit via this tool."


def test_character_device(cache: FileReadCache) -> None:
    problem = _problem(cache.check_prior_read("/dev/null", "overwrite"))
    assert problem.message.startswith("/dev/null is a FIFO / socket / character or block device.")


def test_missing_file_is_a_new_file(cache: FileReadCache, tmp_path: Path) -> None:
    assert cache.check_prior_read(str(tmp_path / "new.txt"), "edit") is None
    assert cache.check_prior_read(str(tmp_path / "new.txt"), "overwrite") is None


@pytest.mark.parametrize(("verb", "gerund"), [("edit", "editing"), ("overwrite", "overwriting")])
def test_disappeared(cache: FileReadCache, file: str, verb: PriorReadVerb, gerund: str) -> None:
    cache.record_read(file, full=True)
    os.unlink(file)
    assert cache.check_prior_read(file, verb) is None
    problem = _problem(cache.check_prior_read(file, verb, expect_existing=True))
    assert problem.message == (
        f"File {file} disappeared after the model read it (stat now returns ENOENT). Re-read "
        f"with the read_file tool {DASH} the path may have been deleted or moved {DASH} before "
        f"retrying {gerund} it."
    )
    assert problem.error_type is ToolErrorType.FILE_CHANGED_SINCE_READ
    assert problem.display_message == "file disappeared after last read; re-run read_file first."


def test_stat_error(cache: FileReadCache, file: str) -> None:
    below_a_file = os.path.join(file, "child.txt")
    problem = _problem(cache.check_prior_read(below_a_file, "edit"))
    assert problem.message == (
        f"Could not stat {below_a_file} to verify prior read (ENOTDIR). Re-read with the "
        "read_file tool, then retry editing it."
    )
    assert problem.error_type is ToolErrorType.PRIOR_READ_VERIFICATION_FAILED
    assert problem.display_message == (
        f"cannot verify prior read of {below_a_file}; re-run read_file before editing this file."
    )


def test_write_counts_as_a_full_read(cache: FileReadCache, tmp_path: Path) -> None:
    path = str(tmp_path / "created.txt")
    Path(path).write_text("made\n")
    cache.record_write(path)
    assert cache.check_prior_read(path, "edit") is None
    Path(path).write_text("made again\n")  # our own second write, recorded too
    cache.record_write(path)
    assert cache.check_prior_read(path, "overwrite") is None


def test_write_breaks_the_fast_path_until_the_next_read(cache: FileReadCache, file: str) -> None:
    cache.record_read(file, full=True)
    assert cache.is_unchanged_since_full_read(file)
    Path(file).write_text("print('changed')\n")
    cache.record_write(file)
    assert not cache.is_unchanged_since_full_read(file)
    cache.record_read(file, full=True)
    assert cache.is_unchanged_since_full_read(file)


def test_partial_read_after_a_write_rearms_the_fast_path(cache: FileReadCache, file: str) -> None:
    """As in 0.24.4: the write counted as a full read of these bytes, and flags are sticky."""
    Path(file).write_text("print('changed')\n")
    cache.record_write(file)
    cache.record_read(file, full=False)
    assert cache.is_unchanged_since_full_read(file)


def test_write_of_a_structured_payload_is_not_text(cache: FileReadCache, file: str) -> None:
    cache.record_write(file, cacheable=False)
    problem = _problem(cache.check_prior_read(file, "edit"))
    assert "structured value" in problem.message


def test_hard_link_shares_the_entry(cache: FileReadCache, file: str, tmp_path: Path) -> None:
    other = tmp_path / "hard.py"
    os.link(file, other)
    cache.record_read(str(other), full=True)
    assert cache.check_prior_read(file, "edit") is None
    assert cache.is_unchanged_since_full_read(file)


def test_symlink_shares_the_entry(cache: FileReadCache, file: str, tmp_path: Path) -> None:
    link = tmp_path / "link.py"
    link.symlink_to(file)
    cache.record_read(file, full=True)
    assert cache.check_prior_read(str(link), "overwrite") is None
    _touch(file)
    assert _problem(cache.check_prior_read(str(link), "overwrite")).message == _stale(
        str(link), "overwriting"
    )


def test_disabled_cache_enforces_nothing(file: str, tmp_path: Path) -> None:
    cache = FileReadCache(enabled=False)
    assert cache.enabled is False
    assert cache.check_prior_read(file, "edit") is None
    assert cache.check_prior_read(str(tmp_path), "overwrite") is None
    cache.record_read(file, full=True)
    assert not cache.is_unchanged_since_full_read(file)
    cache.enabled = True
    assert cache.check_prior_read(file, "edit") is not None  # the read was not recorded


def test_fast_path_needs_a_full_untruncated_cacheable_read(
    cache: FileReadCache, tmp_path: Path
) -> None:
    def fresh(name: str) -> str:
        path = tmp_path / name
        path.write_text(name)
        return str(path)

    # name: (full, cacheable, truncated) -> fast path?
    cases = {
        "full": ((True, True, False), True),
        "partial": ((False, True, False), False),
        "truncated": ((True, True, True), False),
        "binary": ((True, False, False), False),
    }
    for name, ((full, cacheable, truncated), expected) in cases.items():
        path = fresh(name)
        cache.record_read(path, full=full, cacheable=cacheable, truncated=truncated)
        assert cache.is_unchanged_since_full_read(path) is expected, name
    assert not cache.is_unchanged_since_full_read(fresh("never"))
    assert not cache.is_unchanged_since_full_read(str(tmp_path / "missing"))


def test_fast_path_off_after_a_change(cache: FileReadCache, file: str) -> None:
    cache.record_read(file, full=True)
    _touch(file)
    assert not cache.is_unchanged_since_full_read(file)


def test_flags_are_sticky_while_the_file_is_unchanged(cache: FileReadCache, file: str) -> None:
    cache.record_read(file, full=True, cacheable=False)
    cache.record_read(file, full=False, cacheable=True)
    assert cache.is_unchanged_since_full_read(file)  # full from the first, text from the second
    assert cache.check_prior_read(file, "edit") is None


def test_flags_reset_when_the_file_changed(cache: FileReadCache, file: str) -> None:
    cache.record_read(file, full=True)
    _touch(file)
    cache.record_read(file, full=False)
    assert not cache.is_unchanged_since_full_read(file)
    _touch(file)
    cache.record_read(file, full=True, cacheable=False)
    assert "structured value" in _problem(cache.check_prior_read(file, "edit")).message


def test_unreadable_path_is_not_recorded(cache: FileReadCache, tmp_path: Path) -> None:
    missing = str(tmp_path / "missing.txt")
    cache.record_read(missing, full=True)
    cache.record_write(missing)
    Path(missing).write_text("now here")
    assert _problem(cache.check_prior_read(missing, "edit")).message == _never_read_edit(missing)


def test_oldest_entries_are_evicted_past_4096(cache: FileReadCache, tmp_path: Path) -> None:
    paths = []
    for i in range(4097):
        path = tmp_path / f"f{i}"
        path.write_bytes(b"")
        paths.append(str(path))
        cache.record_read(str(path), full=True)
    assert cache.check_prior_read(paths[0], "edit") is not None
    assert cache.check_prior_read(paths[1], "edit") is None
    assert cache.check_prior_read(paths[-1], "edit") is None


def test_concurrent_use_from_threads(cache: FileReadCache, tmp_path: Path) -> None:
    paths = []
    for i in range(50):
        path = tmp_path / f"t{i}"
        path.write_text(str(i))
        paths.append(str(path))
    errors: list[BaseException] = []

    def worker(offset: int) -> None:
        try:
            for round_ in range(20):
                for i, path in enumerate(paths):
                    if (i + offset + round_) % 3 == 0:
                        cache.record_write(path)
                    else:
                        cache.record_read(path, full=bool(i % 2))
                    cache.check_prior_read(path, "edit")
                    cache.is_unchanged_since_full_read(path)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert all(cache.check_prior_read(path, "edit") is None for path in paths)


def test_atomic_write_forgets_the_freed_inode(cache: FileReadCache, file: str) -> None:
    from qwen_tools.fs.atomic import write_text_atomic
    from qwen_tools.fs.text_file import DEFAULT_TEXT_INFO

    cache.record_read(file, full=True)
    before = os.stat(file)
    write_text_atomic(file, "print('bye')\n", DEFAULT_TEXT_INFO)
    cache.record_write(file)
    assert os.stat(file).st_ino != before.st_ino  # the rename gave the path a new inode
    # a new file reusing the freed inode number must not pass for the file read before
    assert cache._lookup(before)[0] == "unknown"
    assert cache.check_prior_read(file, "edit") is None
