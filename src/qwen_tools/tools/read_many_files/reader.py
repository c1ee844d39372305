"""Reading the files read_many_files found: concurrently, each through the read_file engine.

Files are processed in batches on a shared thread pool (the per-file work is small, so one
task per file would cost more in scheduling than it saves); the results keep the order of the
input. Each file is opened once through the workspace's checked open (a descriptor that lies
outside is skipped with the tool's outside-the-workspace reason) and classified from that
descriptor: media (image, PDF, audio, video) is read only when one of the ``paths`` patterns
contains its extension (case-insensitively) or its name without the extension, as the
reference decides. Every successful read is recorded in the session's read cache, as a full
read unless the content was cut. Display paths and reasons are shown with control characters
escaped (:func:`~qwen_tools.tools.common.paths.escape_control_chars`).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from typing import TypeAlias

from qwen_tools.config.config import Config
from qwen_tools.contract.abort import AbortSignal
from qwen_tools.contract.errors import ToolErrorType
from qwen_tools.contract.tool_names import ToolNames
from qwen_tools.fs.confined import ConfinedOpener
from qwen_tools.tools.common.paths import escape_control_chars
from qwen_tools.tools.file_reading.content import (
    FileContent,
    open_for_read,
    process_opened,
    read_opener,
    relative_for_display,
)
from qwen_tools.tools.file_reading.file_types import (
    FileType,
    detect_file_type,
    js_extname,
    media_mime_type,
)

__all__ = ["ASSET_REASON", "Outcome", "outside_reason", "read_all"]

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
    return ThreadPoolExecutor(max_workers=_WORKERS, thread_name_prefix=ToolNames.READ_MANY_FILES)


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

    def __call__(self, path: str, fd: int) -> FileType:
        ext = js_extname(path).lower()
        kind = self._known.get(ext)
        if kind is not None:
            return kind
        kind = detect_file_type(path, fd)
        if len(ext) > 1 and (ext in _NAME_DECIDES or media_mime_type(path).startswith(_BY_MIME)):
            self._known[ext] = kind
        return kind


def outside_reason(path: str) -> str:
    """Why a file found by the search but lying outside the workspace was skipped."""
    return (
        "Security: Glob library returned path outside workspace. "
        f"Path: {escape_control_chars(path)}"
    )


def _skipped(path: str, content: FileContent) -> str:
    error = content.error
    if error is not None and error.type == ToolErrorType.PATH_NOT_IN_WORKSPACE:
        return outside_reason(path)
    reason = error.message if error is not None else "Not a regular file"
    return f"Read error: {escape_control_chars(reason)}"


def _read_one(
    config: Config,
    opener: ConfinedOpener,
    root: str,
    kinds: _Kinds,
    path: str,
    patterns: Sequence[tuple[str, str]],
    limit: int | None,
) -> Outcome:
    # Names come from the file system: shown escaped, so none can inject a line.
    rel = escape_control_chars(relative_for_display(path, root))
    try:
        # One open, checked on its descriptor; the sniff and the read use that descriptor.
        opened = open_for_read(config, path, rel, opener)
        if isinstance(opened, FileContent):
            return path, rel, _skipped(path, opened)
        with opened:
            kind: FileType | None = None
            if stat.S_ISREG(opened.info.st_mode):
                kind = kinds(path, opened.fd)
                if kind in _ASSETS and not _requested(path, patterns):
                    return path, rel, ASSET_REASON
            content = process_opened(config, opened, rel, offset=0, limit=limit, kind=kind)
        if content.error is not None:
            return path, rel, _skipped(path, content)
        config.session.read_cache.record_read(
            path,
            full=True,
            cacheable=content.cacheable,
            truncated=content.is_truncated,
            stat_result=content.stat_result,
        )
        return path, rel, content
    except Exception as exc:  # one bad file must not sink the others
        return path, rel, f"Unexpected error: {escape_control_chars(str(exc))}"


def _read_batch(
    config: Config,
    paths: Sequence[str],
    patterns: Sequence[tuple[str, str]],
    limit: int | None,
    signal: AbortSignal,
) -> list[Outcome]:
    root = str(config.target_dir)
    opener = read_opener(config)
    kinds = _Kinds()
    outcomes: list[Outcome] = []
    for path in paths:
        if signal.aborted:
            break
        outcomes.append(_read_one(config, opener, root, kinds, path, patterns, limit))
    return outcomes


def read_all(
    config: Config,
    paths: Sequence[str],
    input_patterns: Sequence[str],
    limit: int | None,
    signal: AbortSignal,
) -> list[Outcome]:
    """Read ``paths`` (in this order) with ``limit`` lines each; stops early when aborted.

    Each file is opened once, non-blocking and checked on its descriptor; a directory, FIFO
    or device is refused from the descriptor's status before anything reads it.
    """
    patterns = [(p, p.lower()) for p in input_patterns]
    if len(paths) < _PARALLEL_FROM:
        return _read_batch(config, paths, patterns, limit, signal)
    size = -(-len(paths) // (_WORKERS + 1))
    first, *rest = [paths[i : i + size] for i in range(0, len(paths), size)]
    futures = [_pool().submit(_read_batch, config, b, patterns, limit, signal) for b in rest]
    outcomes = _read_batch(config, first, patterns, limit, signal)  # this thread helps
    return outcomes + [outcome for future in futures for outcome in future.result()]
