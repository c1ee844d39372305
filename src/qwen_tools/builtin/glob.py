"""``glob``: files whose paths match a glob pattern, newest first.

Matching follows the options Qwen Code 0.24.4 passes to node-glob: case-insensitive, dot-files
and dot-directories included, ``**`` for any depth (a pattern without ``**`` stays at its own
level, so ``*.txt`` does not recurse), ``{a,b}`` braces and extglobs, directories never
returned. Symbolic links are reported like files (``follow: false``); a symlinked directory is
entered only through a name segment, or once by a ``**`` that does not start the pattern, and
only when it points inside the workspace. When the pattern names an existing path literally
(``file[1].txt``), its ``?*()[]`` characters are matched literally. Entries ignored by ``.gitignore`` (inside
a git repository) or the Qwen ignore files are skipped during the walk; directories are tested
as directories, so ``build/`` prunes the whole tree.

Results: collection stops after 1,000 matches; files modified within the last 24 hours come
first (newest first), the rest follow in ICU collation order of their full path; at most
``min(100, truncate_tool_output_lines)`` are shown.

Unlike 0.24.4, a ``path`` outside the workspace directories is refused at validation time, and
an absolute pattern only matches below its literal leading directories when those lie inside
the workspace.
"""

from __future__ import annotations

import operator
import os
import stat
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

import anyio

from qwen_tools._config.config import Config
from qwen_tools._config.ignore_rules import EntryFilter, never_ignored
from qwen_tools._contract.abort import AbortSignal
from qwen_tools._contract.declarative import BaseDeclarativeTool
from qwen_tools._contract.errors import ToolError, ToolErrorType
from qwen_tools._contract.invocation import BaseToolInvocation, ToolInvocation, UpdateOutput
from qwen_tools._contract.kinds import Kind
from qwen_tools._contract.results import ToolResult
from qwen_tools._jstext import js_trim

from ._collation import collation_key
from ._glob_patterns import (
    GlobAutomaton,
    GlobStep,
    Segment,
    State,
    compile_glob,
    escape_glob,
    globstar_closure,
)
from ._paths import check_search_path, format_display_path, js_join, resolve_path

__all__ = ["GlobTool"]

MAX_FILE_COUNT = 100
MAX_COLLECTED = MAX_FILE_COUNT * 10
_RECENT_MS = 24 * 60 * 60 * 1000
_ABORTED = "This operation was aborted"
_NAME = operator.attrgetter("name")
_IS_DIR = os.DirEntry.is_dir
_IS_SYMLINK = os.DirEntry.is_symlink

_DESCRIPTION = (
    "Finds files by name pattern in any size of codebase.\n"
    '- Understands glob syntax such as "**/*.js", "src/**/*.ts" or "*.{md,txt}"\n'
    "- Lists matching absolute paths, most recently modified first\n"
    "- Use it to locate files by name; for open-ended exploration that needs several rounds "
    "of globbing and grepping, hand the search to the Agent tool\n"
    "- Several independent searches can be issued together in one response."
)

_SCHEMA: dict[str, Any] = {
    "properties": {
        "pattern": {"description": "Glob pattern the file paths must match.", "type": "string"},
        "path": {
            "description": "Directory to search (absolute, or relative to the project root). "
            "Leave the field out to search the whole workspace; never send the strings "
            '"undefined" or "null". When given, it must be an existing directory.',
            "type": "string",
        },
    },
    "required": ["pattern"],
    "type": "object",
}


@dataclass(slots=True)
class _Match:
    """A matching file and its modification time (of the link itself for symlinks)."""

    path: str
    mtime_ms: float


class _Aborted(Exception):
    """The abort signal fired during the walk."""


class GlobInvocation(BaseToolInvocation[dict[str, Any]]):
    """One validated ``glob`` call."""

    def __init__(self, config: Config, params: dict[str, Any]) -> None:
        super().__init__(params)
        self.config = config

    def get_description(self) -> str:
        """The quoted pattern, plus the search directory when one was given."""
        description = f"'{self.params['pattern']}'"
        if self.params.get("path"):
            root = str(self.config.target_dir)
            description += f" in {format_display_path(self.params['path'], root)}"
        return description

    async def execute(
        self, signal: AbortSignal, update_output: UpdateOutput | None = None
    ) -> ToolResult:
        """Walk the search directories in a worker thread."""
        try:
            return await anyio.to_thread.run_sync(self._search, signal)
        except Exception as exc:  # the reference reports any failure of the walk this way
            reason = _ABORTED if isinstance(exc, _Aborted) else str(exc)
            message = f"Error during glob search operation: {reason}"
            return ToolResult(
                llm_content=message,
                return_display=f"Error: {reason or 'An unexpected error occurred.'}",
                error=ToolError(message, ToolErrorType.GLOB_EXECUTION_ERROR),
            )

    def _search(self, signal: AbortSignal) -> ToolResult:
        pattern: str = self.params["pattern"]
        given = self.params.get("path")
        if given:
            search_dir = resolve_path(str(self.config.target_dir), given)
            if not self.config.workspace.is_path_within_workspace(search_dir):
                message = self.config.workspace_error()
                return ToolResult.failure(message, ToolErrorType.PATH_NOT_IN_WORKSPACE)
            search_dirs, location = [search_dir], f"within {search_dir}"
        else:
            search_dirs = [str(d) for d in self.config.workspace.directories]
            count = len(search_dirs)
            location = (
                f"across {count} workspace directories"
                if count > 1
                else "in the workspace directory"
            )
        matches: list[_Match] = []
        seen: set[str] = set()
        hit_limit = False
        for search_dir in search_dirs:
            remaining = MAX_COLLECTED - len(matches)
            if remaining <= 0:
                hit_limit = True
                break
            found: list[_Match] = []
            for match in self._glob_dir(search_dir, pattern, signal):
                if len(found) >= remaining:
                    hit_limit = True
                    break
                found.append(match)
            for match in found:
                if match.path not in seen:
                    seen.add(match.path)
                    matches.append(match)
        if not matches:
            return ToolResult(
                llm_content=f'No files found matching pattern "{pattern}" {location}',
                return_display="No files found",
            )
        return self._format(pattern, location, matches, hit_limit)

    def _format(
        self, pattern: str, location: str, matches: list[_Match], hit_limit: bool
    ) -> ToolResult:
        now_ms = time.time() * 1000

        def order(match: _Match) -> tuple[int, float, tuple[int, ...]]:
            if now_ms - match.mtime_ms < _RECENT_MS:
                return (0, -match.mtime_ms, ())
            return (1, 0.0, collation_key(match.path))

        ordered = sorted(matches, key=order)
        total = len(ordered)
        lines_limit = self.config.truncate_tool_output_lines
        limit = min(MAX_FILE_COUNT, lines_limit) if lines_limit > 0 else MAX_FILE_COUNT
        truncated = hit_limit or total > limit
        shown = [m.path for m in (ordered[:limit] if truncated else ordered)]
        found = "Found at least" if hit_limit else "Found"
        message = (
            f'{found} {total} file(s) matching "{pattern}" {location}, '
            "sorted by modification time (newest first):\n---\n" + "\n".join(shown)
        )
        if hit_limit:
            message += (
                f"\n---\n[Results truncated after scanning {total} matching files. "
                "Narrow the pattern or path.]"
            )
        elif truncated:
            omitted = total - limit
            message += f"\n---\n[{omitted} {'file' if omitted == 1 else 'files'} truncated] ..."
        display = f"{found} {total} matching file(s)" + (" (truncated)" if truncated else "")
        return ToolResult(llm_content=message, return_display=display, result_file_paths=shown)

    def _glob_dir(self, search_dir: str, pattern: str, signal: AbortSignal) -> Iterator[_Match]:
        """Matches below ``search_dir``, depth first, names in sorted order."""
        if os.path.exists(js_join(search_dir, pattern)):
            pattern = escape_glob(pattern)
        inside = self.config.workspace.is_path_within_workspace
        groups: dict[str, list[tuple[Segment, ...]]] = {}
        for base, segments in compile_glob(pattern, search_dir, inside):
            groups.setdefault(base, []).append(segments)
        for base, patterns in groups.items():
            if inside(base):
                yield from self._walk(base, GlobAutomaton(patterns), signal)

    def _entry_filter(self, directory: str) -> EntryFilter:
        """Which entries of ``directory`` the ignore files hide (none outside the project)."""
        root = str(self.config.target_dir)
        if directory == root:
            relative = ""
        elif directory.startswith(prefix := root if root.endswith("/") else root + "/"):
            relative = directory[len(prefix) :]
        else:
            return never_ignored
        return self.config.file_service.entry_filter(relative, self.config.file_filtering)

    def _walk(self, base: str, automaton: GlobAutomaton, signal: AbortSignal) -> Iterator[_Match]:
        """Walk from ``base`` with one state ``(pattern, segment index)`` per live match.

        Per directory: one listing, entry kinds from ``d_type``, names tested against the
        step cached for its set of states; only matched files are stat-ed (for their mtime)
        and only entries that would be returned or entered are tested against the ignore
        rules. A directory holding a symlinked directory (or whose entry kinds cannot be
        read) goes entry by entry instead, applying the symlink rules.
        """
        stack: list[tuple[str, frozenset[State]]] = [(base, automaton.start())]
        while stack:
            if signal.aborted:
                raise _Aborted
            directory, states = stack.pop()
            try:
                with os.scandir(directory) as listing:
                    entries = list(listing)
            except OSError:
                continue
            step = automaton.step(states)
            prefix = directory if directory.endswith("/") else directory + "/"
            try:  # is_dir() follows symlinks: only a symlinked directory needs more care
                subdirectories = list(filter(_IS_DIR, entries))
                plain = not any(map(_IS_SYMLINK, subdirectories))
            except OSError:
                plain = False
            if not plain:
                yield from self._walk_entries(directory, entries, automaton, step, stack)
                continue
            # Any other entry (a symlink too) is matched like a file.
            dirs = sorted(map(_NAME, subdirectories))
            names: list[str]
            if step.consumed_ends:
                names = list(map(_NAME, entries))
            elif step.final is not None:
                names = list(filter(step.final, map(_NAME, entries)))
            else:
                names = []
            if names and dirs:
                skip = set(dirs)
                names = [name for name in names if name not in skip]
            ignored = None
            children: list[tuple[str, frozenset[State]]] = []
            for name in dirs:
                if following := step.descend(name):
                    if ignored is None:
                        ignored = self._entry_filter(directory)
                    if not ignored(name, True):
                        children.append((prefix + name, following))
            names.sort()
            for name in names:
                if ignored is None:
                    ignored = self._entry_filter(directory)
                if ignored(name, False):
                    continue
                try:
                    info = os.lstat(prefix + name)
                except OSError:
                    continue
                yield _Match(prefix + name, info.st_mtime_ns / 1_000_000)
            stack.extend(reversed(children))

    def _walk_entries(
        self,
        directory: str,
        entries: list[os.DirEntry[str]],
        automaton: GlobAutomaton,
        step: GlobStep,
        stack: list[tuple[str, frozenset[State]]],
    ) -> Iterator[_Match]:
        """One directory holding a symlinked directory, entry by entry."""
        ignored = self._entry_filter(directory)
        patterns = automaton.patterns
        children: list[tuple[str, frozenset[State]]] = []
        for entry in sorted(entries, key=_NAME):
            landed = step.landed(entry.name)  # a name segment matched the entry
            if not landed and not step.consumed:  # nor did a ``**`` swallow it
                continue
            exact = automaton.ends(landed)
            globstar_closure(landed, patterns)
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            is_dir = stat.S_ISDIR(info.st_mode)
            if ignored(entry.name, is_dir):
                continue
            if is_dir:
                if following := automaton.live(landed | step.consumed):
                    children.append((entry.path, following))
                continue
            # A trailing ``**`` matching nothing needs something to descend into: only
            # a symlink to a directory qualifies (it is reported, being no directory).
            link_to_dir = stat.S_ISLNK(info.st_mode) and os.path.isdir(entry.path)
            if exact or step.consumed_ends or (link_to_dir and automaton.ends(landed)):
                yield _Match(entry.path, info.st_mtime_ns / 1_000_000)
            # A symlinked directory is entered through a name segment, or by a ``**``
            # that does not start the pattern (which then stops there, as in node-glob),
            # and only when it points inside the workspace.
            following = automaton.live(landed | step.beyond)
            inside = link_to_dir and self.config.workspace.is_path_within_workspace(entry.path)
            if following and inside:
                children.append((entry.path, following))
        stack.extend(reversed(children))


class GlobTool(BaseDeclarativeTool[dict[str, Any]]):
    """The ``glob`` tool (display name ``Glob``, kind ``search``)."""

    Name: ClassVar[str] = "glob"

    def __init__(self, config: Config) -> None:
        super().__init__(self.Name, "Glob", _DESCRIPTION, Kind.SEARCH, _SCHEMA)
        self.config = config

    def validate_tool_param_values(self, params: dict[str, Any]) -> str | None:
        """A non-blank pattern; ``path``, when given, must be an existing workspace directory."""
        if not js_trim(params["pattern"]):
            return "The 'pattern' parameter cannot be empty."
        return check_search_path(self.config, params, directory_only=True)

    def create_invocation(self, params: dict[str, Any]) -> ToolInvocation[dict[str, Any]]:
        """Build the invocation for validated params."""
        return GlobInvocation(self.config, params)
