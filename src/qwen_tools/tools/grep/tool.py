"""``grep_search``: lines matching a regular expression, as Qwen Code 0.24.4's ripgrep backend.

Output, as the model receives it::

    Found <N> match|matches for pattern "<pattern>" <location>[ (filter: "<glob>")]:
    ---
    <absolute path>:<line number>:<line text>
    ---                                            (only when lines were left out)
    [<k> line|lines truncated] ...
    ---                                            (only when the search was cut short)
    [Search did not complete: the results above may not include all matches.]

``<location>`` is ``in the workspace directory``, ``across <K> workspace directories`` or
``in path "<path as given>"``. Lines are shown up to ``min(truncate_tool_output_lines, limit)``
and within ``truncate_tool_output_threshold`` characters (JavaScript lengths): the line that
would overflow is cut to ``max(room left, 10)`` characters plus ``...``. The whole text is
trimmed. Without matches: ``No matches found for pattern "<pattern>" <location>[ (filter…)].``;
a search that was cut short before any match gives ``Search did not complete for pattern …``;
a failure gives ``Error during grep search operation: <message>`` (not marked as an error,
as in the reference). The user sees ``Found N matches`` (`` (truncated)``, `` (incomplete)``).

The search: ``rg --json --no-messages --path-separator / --ignore-case --regexp <pattern>``
with ``--no-ignore-vcs`` when .gitignore is not respected, ``--ignore-file`` for each Qwen
ignore file of the searched workspace directories, ``--glob <glob>``, ``--threads 4`` and the
absolute search paths; see :mod:`._ripgrep`. Matches in Qwen-ignored files are dropped again
afterwards, duplicates across workspace directories removed, and every file with a shown line
is recorded in the session's read cache as a partial read (notebooks as non-text).

Where we differ from 0.24.4:

* Without a working ``rg`` (or with ``tools.useRipgrep`` off) the pure-Python engine of
  :mod:`._grep_fallback` runs; its output is the same, where 0.24.4 switches to a tool with
  another format.
* ripgrep's output order across files depends on its threads; lines are ordered by search
  path, then by path component (ripgrep's sorted walk order), then by line number.
* Patterns ripgrep rejects but JavaScript accepts (look-around, back-references,
  ``interface{}``…) are searched by the Python engine with their JavaScript meaning instead
  of failing.
* A ``path`` outside the workspace directories is refused at validation time, and what is
  read is checked as it is opened: ``rg`` runs confined by the kernel to the workspace
  directories (Landlock, :mod:`._rg_sandbox`); where that is not possible (no Landlock, not
  Linux, ``QWEN_TOOLS_LANDLOCK=off``) the Python engine searches instead, even with
  ``engine="ripgrep"``, since it checks every descriptor it reads. A symlink swapped in by
  another process during a search is never followed outside.
* The Python engine runs in a worker process (:mod:`._grep_worker`): a runaway pattern never
  blocks the event loop, an abort kills it, and its time limit ends with
  ``Search timed out after N s: …`` instead of ripgrep's ``Command failed`` text.
* Control characters in file names are escaped (``\\n``, ``\\x1b``…), so a name cannot add a
  line to the output.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from typing import Any, ClassVar, Literal

import anyio

from qwen_tools.config.config import Config
from qwen_tools.config.file_service import FileDiscoveryService
from qwen_tools.contract.abort import AbortSignal
from qwen_tools.contract.declarative import BaseDeclarativeTool
from qwen_tools.contract.invocation import BaseToolInvocation, ToolInvocation, UpdateOutput
from qwen_tools.contract.kinds import Kind
from qwen_tools.contract.results import ToolResult
from qwen_tools.jscompat.jstext import js_trim, utf16_len, utf16_prefix
from qwen_tools.jscompat.v8_regex import js_regex_error
from qwen_tools.sandbox.landlock import LandlockError
from qwen_tools.tools.common.paths import (
    check_search_path,
    escape_control_chars,
    format_display_path,
    js_resolve,
    resolve_path,
)
from qwen_tools.tools.grep.rg_sandbox import confinement_works
from qwen_tools.tools.grep.ripgrep import (
    ABORTED_MESSAGE,
    AnyMatch,
    SearchOutcome,
    SearchRequest,
    find_ripgrep,
    run_ripgrep,
)
from qwen_tools.tools.grep.worker import run_python_search

__all__ = ["GrepEngine", "GrepTool"]

GrepEngine = Literal["auto", "ripgrep", "python"]
"""``auto``: ripgrep when one runs (and ``tools.useRipgrep`` is on), else Python."""

_INCOMPLETE_NOTICE = "Search did not complete: the results above may not include all matches."

_DESCRIPTION = (
    "Searches file contents for a regular expression, powered by ripgrep.\n\n"
    "- Use this tool for every content search instead of running grep or rg in the shell.\n"
    '- Full regex syntax, always case-insensitive (e.g. "log.*Error", "function\\s+\\w+"); '
    "escape regex metacharacters to match them literally (`interface\\{\\}` for "
    "`interface{}`).\n"
    '- Narrow the files with `glob` (e.g. "*.js", "**/*.tsx") or search a single file or '
    "directory with `path`.\n"
    "- Each hit is reported as `<absolute path>:<line>:<text>`.\n"
    "- For open-ended investigations that need several rounds of searching, hand the work to "
    "the Agent tool."
)

_SCHEMA: dict[str, Any] = {
    "properties": {
        "pattern": {
            "type": "string",
            "description": "Regular expression to look for in file contents.",
        },
        "glob": {
            "type": "string",
            "description": 'Only search files whose path matches this glob, e.g. "*.py" or '
            '"src/**/*.{ts,tsx}" (ripgrep --glob syntax).',
        },
        "path": {
            "type": "string",
            "description": "File or directory to search, absolute or relative to the project "
            "root. Leave it out to search every workspace directory.",
        },
        "limit": {
            "type": "integer",
            "minimum": 1,
            "description": "Show at most this many matching lines (a positive integer). "
            "Leave it out to show them all.",
        },
    },
    "required": ["pattern"],
    "type": "object",
}


def _qwen_ignore_root(roots: list[str], path: str) -> str | None:
    """The first workspace directory that lexically contains ``path`` (as ``path.relative``)."""
    resolved = os.path.normpath(path) if path.startswith("/") else js_resolve(path)
    return next((root for root in roots if _under(resolved, root)), None)


class GrepInvocation(BaseToolInvocation[dict[str, Any]]):
    """One validated ``grep_search`` call."""

    def __init__(
        self,
        config: Config,
        params: dict[str, Any],
        engine: GrepEngine,
        time_limit: float | None = None,
    ) -> None:
        super().__init__(params)
        self.config = config
        self.engine = engine
        self.time_limit = time_limit
        self._services: dict[str, FileDiscoveryService] = {}
        self._roots = [str(d) for d in config.workspace.directories]

    def get_description(self) -> str:
        """``'<pattern>'``, then `` in <path>`` and `` (filter: '<glob>')`` when given."""
        description = f"'{self.params['pattern']}'"
        if self.params.get("path"):
            root = str(self.config.target_dir)
            description += f" in {format_display_path(self.params['path'], root)}"
        if self.params.get("glob"):
            description += f" (filter: '{self.params['glob']}')"
        return description

    # -- searching --------------------------------------------------------------------------

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

    def _ignore_files(self, paths: list[str]) -> tuple[str, ...]:
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

    async def _search(self, request: SearchRequest, signal: AbortSignal) -> SearchOutcome:
        use_rg = self.engine == "ripgrep" or (
            self.engine == "auto" and self.config.settings.use_ripgrep
        )
        command = await anyio.to_thread.run_sync(confined_ripgrep) if use_rg else None
        if command is not None:
            try:
                outcome = await run_ripgrep(command, request, signal)
            except LandlockError:  # the ruleset could not be built: never run rg unconfined
                pass
            else:
                if not outcome.regex_rejected:
                    return outcome
        return await run_python_search(request, signal)

    def _filter(self, matches: Sequence[AnyMatch], paths: list[str]) -> list[AnyMatch]:
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
                index = 0 if _under(path, paths[0]) else 1
            else:
                index = next((i for i, p in enumerate(paths) if _under(path, p)), len(paths))
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

    async def execute(
        self, signal: AbortSignal, update_output: UpdateOutput | None = None
    ) -> ToolResult:
        """Search, then format the lines as the reference does."""
        pattern: str = self.params["pattern"]
        given: str = self.params.get("path") or ""
        glob: str = self.params.get("glob") or ""
        if given:
            paths = [resolve_path(str(self.config.target_dir), given)]
            location = f'in path "{given}"'
        else:
            paths = [str(d) for d in self.config.workspace.directories]
            count = len(paths)
            location = (
                f"across {count} workspace directories"
                if count > 1
                else "in the workspace directory"
            )
        where = location + (f' (filter: "{glob}")' if glob else "")
        filtering = self.config.file_filtering
        request = SearchRequest(
            pattern=pattern,
            paths=tuple(paths),
            cwd=str(self.config.target_dir),
            glob=glob or None,
            respect_git_ignore=filtering.respect_git_ignore,
            ignore_files=self._ignore_files(paths) if filtering.respect_qwen_ignore else (),
            roots=self.config.workspace.roots(readable=True),
            timeout=self.time_limit,
        )
        try:
            outcome = await self._search(request, signal)
        except Exception as exc:  # e.g. rg could not be started
            outcome = SearchOutcome(error=str(exc), output_empty=True)
        result = await self._answer(pattern, where, paths, outcome)
        result.interrupted = outcome.error == ABORTED_MESSAGE  # stopped by the abort: no result
        return result

    async def _answer(
        self, pattern: str, where: str, paths: list[str], outcome: SearchOutcome
    ) -> ToolResult:
        if outcome.error is not None and outcome.output_empty:
            message = f"Error during grep search operation: {outcome.error}"
            return ToolResult(llm_content=message, return_display=f"Error: {outcome.error}")
        matches = self._filter(outcome.matches, paths)
        if not matches:
            if outcome.incomplete:
                detail = f" Error: {outcome.error}" if outcome.error else ""
                message = (
                    f'Search did not complete for pattern "{pattern}" {where}. No valid matches '
                    f"were returned; do not treat this as no matches.{detail}"
                )
                return ToolResult(llm_content=message, return_display="Error: Search incomplete")
            message = f'No matches found for pattern "{pattern}" {where}.'
            return ToolResult(llm_content=message, return_display="No matches found")
        return await self._format(pattern, where, matches, outcome.incomplete)

    async def _format(
        self, pattern: str, where: str, matches: list[AnyMatch], incomplete: bool
    ) -> ToolResult:
        total = len(matches)
        term = "match" if total == 1 else "matches"
        header = f'Found {total} {term} for pattern "{pattern}" {where}:\n---\n'
        threshold = self.config.truncate_tool_output_threshold
        char_limit = threshold if threshold > 0 else None
        limits = [self.params.get("limit"), self.config.truncate_tool_output_lines]
        line_limit = min((n for n in limits if n is not None and n > 0), default=None)
        shown = matches if line_limit is None else matches[:line_limit]
        by_lines = len(shown) < total
        parts: list[str] = []
        visible: list[AnyMatch] = []
        length, by_chars = 0, False
        for match in shown:
            raw = f"{escape_control_chars(match.path)}:{match.line}:{match.text}"
            sep = 1 if parts else 0
            size = utf16_len(raw)
            visible.append(match)
            if char_limit is None or length + size + sep <= char_limit:
                parts.append(raw)
                length += size + sep
                continue
            parts.append(utf16_prefix(raw, max(char_limit - length - sep, 10)) + "...")
            by_chars = True
            break
        included = len(parts) - by_chars
        content = header + "\n".join(parts)
        if by_lines or by_chars:
            omitted = total - included
            content += f"\n---\n[{omitted} {'line' if omitted == 1 else 'lines'} truncated] ..."
        if incomplete:
            content += f"\n---\n[{_INCOMPLETE_NOTICE}]"
        tags = [
            t for t, on in (("truncated", by_lines or by_chars), ("incomplete", incomplete)) if on
        ]
        display = f"Found {total} {term}" + (f" ({', '.join(tags)})" if tags else "")
        files = list(dict.fromkeys(m.path for m in visible))
        await anyio.to_thread.run_sync(self._record_reads, files)
        return ToolResult(
            llm_content=js_trim(content), return_display=display, result_file_paths=files
        )

    def _record_reads(self, files: list[str]) -> None:
        """Record each shown file as a partial read (notebooks as non-text), as 0.24.4 does."""
        cache = getattr(self.config.session, "read_cache", None)
        if cache is None:
            return
        for path in files:
            try:
                info = os.stat(path)
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode):
                cacheable = not path.lower().endswith(".ipynb")
                cache.record_read(path, full=False, cacheable=cacheable, stat_result=info)


def confined_ripgrep() -> str | None:
    """The ``rg`` to run, when there is one and it can run confined to the workspace."""
    command = find_ripgrep()
    return command if command is not None and confinement_works(command) else None


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root if root.endswith("/") else root + "/")


class GrepTool(BaseDeclarativeTool[dict[str, Any]]):
    """The ``grep_search`` tool (display name ``Grep``, kind ``search``).

    ``engine`` forces the search engine (tests, benchmarks): ``"ripgrep"`` or ``"python"``
    (ripgrep only where it can be confined, else Python). ``time_limit`` replaces the default
    time limit of a search (seconds).
    """

    Name: ClassVar[str] = "grep_search"
    max_output_chars = 20_000
    """The per-tool output budget the scheduler applies (the reference's ``maxOutputChars``)."""

    def __init__(
        self, config: Config, *, engine: GrepEngine = "auto", time_limit: float | None = None
    ) -> None:
        super().__init__(self.Name, "Grep", _DESCRIPTION, Kind.SEARCH, _SCHEMA)
        self.config = config
        self.engine: GrepEngine = engine
        self.time_limit = time_limit

    def validate_tool_param_values(self, params: dict[str, Any]) -> str | None:
        """A positive limit, a pattern JavaScript compiles, an existing path in the workspace."""
        limit = params.get("limit")
        if limit is not None and (not isinstance(limit, int) or limit <= 0):
            return "limit must be a positive integer"
        error = js_regex_error(params["pattern"])
        if error is not None:
            return f"Invalid regular expression pattern: {params['pattern']}. Error: {error}"
        return check_search_path(self.config, params, directory_only=False)

    def create_invocation(self, params: dict[str, Any]) -> ToolInvocation[dict[str, Any]]:
        """Build the invocation for validated params."""
        return GrepInvocation(self.config, params, self.engine, self.time_limit)
