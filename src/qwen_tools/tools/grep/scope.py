"""The Qwen ignore files around a ``grep_search``, and the matches kept after them.

ripgrep (or the Python engine) is given the Qwen ignore files of the searched workspace
directories (custom ones first, then ``.qwenignore``). Its matches are then filtered again:
lines of Qwen-ignored files are dropped, the lines are ordered by search path, then by path
component (ripgrep's sorted walk order), and a line found through two workspace directories
is kept once.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from qwen_tools.config.config import Config
from qwen_tools.config.file_service import FileDiscoveryService
from qwen_tools.tools.common.paths import js_resolve
from qwen_tools.tools.grep.ripgrep import AnyMatch


def under(path: str, root: str) -> bool:
    """Whether ``path`` is ``root`` or lies below it (lexically)."""
    return path == root or path.startswith(root if root.endswith("/") else root + "/")


def _qwen_ignore_root(roots: list[str], path: str) -> str | None:
    """The first workspace directory that lexically contains ``path`` (as ``path.relative``)."""
    resolved = os.path.normpath(path) if path.startswith("/") else js_resolve(path)
    return next((root for root in roots if under(resolved, root)), None)


class SearchScope:
    """The workspace directories of one search and their Qwen ignore rules."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self._services: dict[str, FileDiscoveryService] = {}
        self._roots = [str(d) for d in config.workspace.directories]

    def _service(self, root: str) -> FileDiscoveryService:
        if root == str(self.config.target_dir):
            return self.config.file_service
        if root not in self._services:
            names = self.config.settings.file_filtering.custom_ignore_files
            self._services[root] = FileDiscoveryService(root, custom_ignore_files=names)
        return self._services[root]

    def _has_qwen_ignore_file(self, root: str) -> bool:
        """Whether a Qwen ignore file exists in ``root`` (without one, nothing is ignored)."""
        names = self._service(root).qwen_ignore_file_names()
        return any(os.path.exists(os.path.join(root, name)) for name in names)

    def ignore_files(self, paths: list[str]) -> tuple[str, ...]:
        """Existing Qwen ignore files of the searched workspace directories (custom first)."""
        custom: list[str] = []
        qwen: list[str] = []
        for path in paths:
            root = _qwen_ignore_root(self._roots, path)
            if root is None:
                continue
            for name in self._service(root).qwen_ignore_file_names():
                candidate = os.path.join(root, name)
                target = qwen if name == ".qwenignore" else custom
                if os.path.exists(candidate) and candidate not in (*custom, *qwen):
                    target.append(candidate)
        return (*custom, *qwen)

    def filter(self, matches: Sequence[AnyMatch], paths: list[str]) -> list[AnyMatch]:
        """Drop Qwen-ignored files, order the lines, drop duplicates across directories.

        The order is a stable sort by (search path, path components): files are sorted once
        and their lines, grouped, keep rg's order (the lines themselves are not decoded).
        Comparing the component lists is comparing the paths with ``/`` made ``\\0`` (lower
        than any character a name can hold), which is what the key does.
        """
        if self.config.file_filtering.respect_qwen_ignore and any(
            self._has_qwen_ignore_file(root) for root in self._roots
        ):
            verdicts: dict[str, bool] = {}
            for match in matches:
                if match.path not in verdicts:
                    root = _qwen_ignore_root(self._roots, match.path)
                    verdicts[match.path] = root is not None and self._service(
                        root
                    ).should_qwen_ignore_file(match.path)
            matches = [m for m in matches if not verdicts[m.path]]
        by_file: dict[str, list[AnyMatch]] = {}
        for match in matches:
            lines = by_file.get(match.path)
            if lines is None:
                lines = by_file[match.path] = []
            lines.append(match)

        def key(path: str) -> tuple[int, str]:
            if len(paths) == 1:
                index = 0 if under(path, paths[0]) else 1
            else:
                index = next((i for i, p in enumerate(paths) if under(path, p)), len(paths))
            return index, path.replace("/", "\0")

        ordered = [m for path in sorted(by_file, key=key) for m in by_file[path]]
        if len(paths) <= 1:
            return ordered
        seen: set[tuple[str, int]] = set()
        unique: list[AnyMatch] = []
        for match in ordered:
            if (match.path, match.line) not in seen:
                seen.add((match.path, match.line))
                unique.append(match)
        return unique
