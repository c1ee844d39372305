"""Reading the files read_many_files found: concurrently, each through the read_file engine.

Files are processed in batches on a shared thread pool (the per-file work is small, so one
task per file would cost more in scheduling than it saves); the results keep the order of the
input. Each file is classified first: media (image, PDF, audio, video) is read only when one of
the ``paths`` patterns contains its extension (case-insensitively) or its name without the
extension, as the reference decides. Every successful read is recorded in the session's read
cache, as a full read unless the content was cut.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Collection, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from typing import TypeAlias

from qwen_tools._config.config import Config
from qwen_tools._contract.abort import AbortSignal

from ._file_content import FileContent, process_file, relative_for_display
from ._file_types import FileType, detect_file_type, js_extname, media_mime_type

__all__ = ["ASSET_REASON", "Outcome", "read_all"]

ASSET_REASON = "asset file (image/pdf) was not explicitly requested by name or extension"
_ASSETS = frozenset({"image", "pdf", "audio", "video"})
_PARALLEL_FROM = 64
_WORKERS = 1
_NAME_DECIDES = frozenset({".ts", ".mts", ".cts", ".tsx", ".svg", ".ipynb"})
_BY_MIME = ("text/", "audio/", "video/", "application/pdf")

Outcome: TypeAlias = tuple[str, str, FileContent | str]
"""``(absolute path, display path, content or the reason it was skipped)``."""


@cache
def _pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=_WORKERS, thread_name_prefix="read_many_files")


def _requested(path: str, patterns: Sequence[tuple[str, str]]) -> bool:
    """Whether a pattern names the file's extension or its name without the extension."""
    ext = js_extname(path).lower()
    name = os.path.basename(path)
    stem = name[: -len(ext)] if ext and name.endswith(ext) and name != ext else name
    return any(ext in lowered or stem in pattern for pattern, lowered in patterns)


class _Kinds:
    """:func:`detect_file_type`, remembered per extension when the name alone decides it.

    The extension decides for TypeScript, SVG and notebooks, and when the MIME table calls it
    text, audio, video or PDF; images and unknown extensions are sniffed every time.
    """

    def __init__(self) -> None:
        self._known: dict[str, FileType] = {}

    def __call__(self, path: str) -> FileType:
        ext = js_extname(path).lower()
        kind = self._known.get(ext)
        if kind is not None:
            return kind
        kind = detect_file_type(path)
        if len(ext) > 1 and (ext in _NAME_DECIDES or media_mime_type(path).startswith(_BY_MIME)):
            self._known[ext] = kind
        return kind


def _is_regular(path: str) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def _read_one(
    config: Config,
    root: str,
    kinds: _Kinds,
    path: str,
    regular: bool,
    patterns: Sequence[tuple[str, str]],
    limit: int | None,
) -> Outcome:
    rel = relative_for_display(path, root)
    try:
        if not regular and not _is_regular(path):
            # A directory, FIFO or device (sniffing one could block), or a dangling link:
            # the engine refuses it with the reference's message.
            content = process_file(config, path, offset=0, limit=limit, rel=rel)
            reason = content.error.message if content.error else "Not a regular file"
            return path, rel, f"Read error: {reason}"
        kind = kinds(path)
        if kind in _ASSETS and not _requested(path, patterns):
            return path, rel, ASSET_REASON
        content = process_file(config, path, offset=0, limit=limit, kind=kind, rel=rel)
        if content.error is not None:
            return path, rel, f"Read error: {content.error.message}"
        config.session.read_cache.record_read(
            path,
            full=True,
            cacheable=content.cacheable,
            truncated=content.is_truncated,
            stat_result=content.stat_result,
        )
        return path, rel, content
    except Exception as exc:  # one bad file must not sink the others
        return path, rel, f"Unexpected error: {exc}"


def _read_batch(
    config: Config,
    paths: Sequence[str],
    regular: Collection[str],
    patterns: Sequence[tuple[str, str]],
    limit: int | None,
    signal: AbortSignal,
) -> list[Outcome]:
    root = str(config.target_dir)
    kinds = _Kinds()
    outcomes: list[Outcome] = []
    for path in paths:
        if signal.aborted:
            break
        outcomes.append(_read_one(config, root, kinds, path, path in regular, patterns, limit))
    return outcomes


def read_all(
    config: Config,
    paths: Sequence[str],
    regular: Collection[str],
    input_patterns: Sequence[str],
    limit: int | None,
    signal: AbortSignal,
) -> list[Outcome]:
    """Read ``paths`` (in this order) with ``limit`` lines each; stops early when aborted.

    ``regular`` holds the paths known to be regular files; the others are stat'ed before
    anything opens them.
    """
    patterns = [(p, p.lower()) for p in input_patterns]
    if len(paths) < _PARALLEL_FROM:
        return _read_batch(config, paths, regular, patterns, limit, signal)
    size = -(-len(paths) // (_WORKERS + 1))
    first, *rest = [paths[i : i + size] for i in range(0, len(paths), size)]
    futures = [
        _pool().submit(_read_batch, config, b, regular, patterns, limit, signal) for b in rest
    ]
    outcomes = _read_batch(config, first, regular, patterns, limit, signal)  # this thread helps
    return outcomes + [outcome for future in futures for outcome in future.result()]
